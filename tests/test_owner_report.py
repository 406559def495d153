"""`fibsbot report`: the page and its pictures from a small data directory."""

from __future__ import annotations

import re
import sys

import pytest

from fibsbot.owner.analysis_io import load_analyses
from tests.owner_fixture import make_data_dir
from tests.test_cli import run_cli

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    pytest.importorskip("matplotlib")
    root = tmp_path_factory.mktemp("report")
    data_dir = make_data_dir(root / "data", matches=2)
    code, out, err = run_cli(
        ["report", "--data-dir", str(data_dir), "--out", str(root / "out"), "--analyse", "2", "--ply", "0"]
    )
    assert code == 0, err
    return data_dir, root / "out", out


def test_the_page_shows_every_picture_it_references(report):
    data_dir, out_dir, printed = report
    page = (out_dir / "index.html").read_text()
    images = re.findall(r'<img src="([^"]+)"', page)
    assert sorted(images) == ["errors.png", "luck.png", "promotions.png", "queue.png", "rating.png", "results.png"]
    for name in images:
        data = (out_dir / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 2000
    assert "Nothing to draw yet." not in page
    assert "6 pictures, 2 matches analysed now" in printed


def test_the_worst_decisions_are_listed_with_their_ids(report):
    data_dir, out_dir, _ = report
    page = (out_dir / "index.html").read_text()
    analyses = load_analyses(data_dir)
    assert len(analyses) == 2
    ours = sorted(
        (d for a in analyses.values() for d in a.decisions if d.player == 0 and d.loss > 0),
        key=lambda d: (d.cost, d.loss),
        reverse=True,
    )
    assert ours and f"{ours[0].position_id}:{ours[0].match_id}" in page
    ours_table = page.split("Our worst decisions")[1].split("worst decisions")[0]
    assert ours_table.count("<tr>") == min(15, len(ours)) + 1


def test_a_section_without_data_says_so(tmp_path):
    pytest.importorskip("matplotlib")
    data_dir = make_data_dir(tmp_path / "data", matches=1, with_owner_files=False)
    code, out, err = run_cli(["report", "--data-dir", str(data_dir), "--out", str(tmp_path / "out"), "--analyse", "0"])
    page = (tmp_path / "out" / "index.html").read_text()
    assert code == 0 and page.count("Nothing to draw yet.") == 4  # rating, errors, luck, promotions
    assert "No analysed decisions yet" in page


def test_missing_matplotlib_is_one_line(tmp_path, monkeypatch):
    data_dir = make_data_dir(tmp_path / "data", matches=1, with_owner_files=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run_cli(["report", "--data-dir", str(data_dir), "--out", str(tmp_path / "out")])
    assert code == 2 and "pip install 'fibsbot[report]'" in err and err.count("\n") == 1


def test_an_empty_data_dir_is_one_line(tmp_path):
    code, out, err = run_cli(["report", "--data-dir", str(tmp_path), "--out", str(tmp_path / "out")])
    assert code == 2 and "no records yet" in err and err.count("\n") == 1


def drawn_figure(monkeypatch, draw):
    """The figure a plot function draws, kept open instead of saved."""
    from fibsbot.owner import plots

    kept = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: kept.append(fig) or path)
    assert draw(plots) is not None
    return kept[0].axes[0]


def visible_ticks(ax) -> list[float]:
    lo, hi = ax.get_xlim()
    return [t for t in ax.get_xticks() if lo <= t <= hi]


def test_one_match_draws_a_results_line_on_whole_match_numbers(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    ax = drawn_figure(monkeypatch, lambda plots: plots.results_plot(tmp_path / "r.png", [True], [(3, 1)]))
    for line in ax.get_lines()[:2]:  # matches and points: from the start to after the match
        assert list(line.get_xdata()) == [0, 1] and line.get_ydata()[0] == 0
    assert [line.get_ydata()[1] for line in ax.get_lines()[:2]] == [1, 2]
    assert visible_ticks(ax) == [0, 1]


@pytest.mark.parametrize("title", ["Error rate per match", "Luck per match"])
def test_one_analysed_match_is_drawn_on_whole_match_numbers(tmp_path, monkeypatch, title):
    pytest.importorskip("matplotlib")
    ax = drawn_figure(monkeypatch, lambda plots: plots.per_match_plot(tmp_path / "p.png", title, "mEMG", [4.2], [7.5]))
    assert visible_ticks(ax) == [1]


def test_a_loss_that_would_read_0_000_is_not_among_the_worst_decisions():
    from fibsbot.owner.analysis import Decision, MatchAnalysis
    from fibsbot.owner.report import _worst
    from fibsbot.owner.stats import PlayerStats

    def decision(number, loss):
        return Decision(1, number, 0, "move", "pos", "match", "13/9", "24/20", loss, loss / 2, "")

    analysis = MatchAnalysis(
        "m.mat",
        ("fibsbot", "oppo"),
        3,
        (3, 1),
        0,
        "default",
        [decision(1, 0.0004), decision(2, 0.0005), decision(3, 0.07)],
        (PlayerStats("fibsbot"), PlayerStats("oppo")),
    )
    assert [d.number for _, d in _worst([analysis], True, 15)] == [3, 2]


def test_one_match_is_counted_in_the_singular(tmp_path):
    pytest.importorskip("matplotlib")
    data_dir = make_data_dir(tmp_path / "data", matches=1)
    code, out, err = run_cli(
        ["report", "--data-dir", str(data_dir), "--out", str(tmp_path / "out"), "--analyse", "1", "--ply", "0"]
    )
    page = (tmp_path / "out" / "index.html").read_text()
    assert code == 0, err
    assert ", 1 match analysed now)" in out and "<p>1 match analysed (0-ply)" in page
    assert "1 matches" not in page and ": 1 match, won" in page
