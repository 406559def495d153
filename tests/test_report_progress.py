"""`fibsbot report`: progress while it analyses, the retrain rounds on the page, and
legends that leave every point in sight."""

from __future__ import annotations

import re

import pytest

from fibsbot.owner.live import record_retrain
from tests.owner_fixture import make_data_dir
from tests.test_cli import run_cli
from tests.test_owner_report import drawn_figure
from tests.test_retrain_rounds import NOTHING_NEW, REFUSED


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    pytest.importorskip("matplotlib")
    root = tmp_path_factory.mktemp("report")
    data_dir = make_data_dir(root / "data", matches=2, with_owner_files=False)
    record_retrain(data_dir, REFUSED)
    record_retrain(data_dir, NOTHING_NEW)
    record_retrain(data_dir, {"started": "2026-12-04T00:10:00+00:00", "failed": "MemoryError: "})
    code, out, err = run_cli(
        ["report", "--data-dir", str(data_dir), "--out", str(root / "out"), "--analyse", "2", "--ply", "0"]
    )
    assert code == 0, err
    return (root / "out" / "index.html").read_text(), out, err


def test_the_report_says_on_stderr_which_match_it_is_analysing(report):
    _page, out, err = report
    lines = err.splitlines()
    assert lines[0] == "report: analysing 2 matches not analysed yet, at 0-ply by net:default"
    assert re.fullmatch(r"analysing 1/2 matches: \S+\.mat \(\d+ s\)", lines[1]), lines[1]
    assert re.fullmatch(r"analysing 2/2 matches: \S+\.mat \(\d+ s\)", lines[2]), lines[2]
    assert lines[3].startswith("report: analysed 2 matches in ")
    assert out.count("\n") == 1 and out.startswith("report: ")  # stdout keeps its one line


def test_nothing_to_analyse_prints_no_progress(tmp_path):
    pytest.importorskip("matplotlib")
    data_dir = make_data_dir(tmp_path / "data", matches=1, with_owner_files=False)
    code, _out, err = run_cli(["report", "--data-dir", str(data_dir), "--out", str(tmp_path / "out"), "--analyse", "0"])
    assert code == 0 and err == ""


def test_the_page_lists_every_retrain_round_with_the_gates_error_bars(report):
    page, _out, _err = report
    table = page.split("<h2>Retrain rounds</h2>")[1].split("<h2>")[0]
    assert table.count("<tr>") == 1 + 3
    assert "44039 positions labelled by bgsage@3" in table
    assert "real-life benchmark v1 (300 decisions) 7.471 -&gt; 7.230, -0.240 +/- 0.275" in table
    assert "head to head +0.0021 +/- 0.0054 ppg (20000 games)" in table
    assert "not promoted: not better by more than its standard error" in table
    assert "failed: MemoryError" in table


def test_a_page_without_retrains_says_how_rounds_come(tmp_path):
    pytest.importorskip("matplotlib")
    data_dir = make_data_dir(tmp_path / "data", matches=1, with_owner_files=False)
    code, _out, err = run_cli(["report", "--data-dir", str(data_dir), "--out", str(tmp_path / "out"), "--analyse", "0"])
    assert code == 0, err
    assert "No retrain yet" in (tmp_path / "out" / "index.html").read_text()


def _first_point_hidden(ax) -> bool:
    """Whether the legend's box covers the first point of the first line, on the drawn figure."""
    ax.figure.canvas.draw()
    box = ax.get_legend().get_window_extent()
    line = ax.get_lines()[0]
    x, y = ax.transData.transform((line.get_xdata()[0], line.get_ydata()[0]))
    return box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1


def test_a_run_of_losses_leaves_the_results_first_point_in_sight(tmp_path, monkeypatch):
    """Losses only: the line falls from (0, 0), the axes' upper left, where the legend stood."""
    pytest.importorskip("matplotlib")
    ax = drawn_figure(
        monkeypatch, lambda plots: plots.results_plot(tmp_path / "r.png", [False] * 4, [(0, 3), (1, 3), (2, 3), (0, 3)])
    )
    assert not _first_point_hidden(ax)
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1  # beside the axes, not on them


def test_a_high_first_match_leaves_the_error_charts_first_point_in_sight(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    ax = drawn_figure(
        monkeypatch,
        lambda plots: plots.per_match_plot(tmp_path / "p.png", "Errors", "mEMG", [12.0, 3.0, 2.0], [1, 2, 3]),
    )
    assert not _first_point_hidden(ax)
