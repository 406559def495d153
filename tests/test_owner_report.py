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
    code, out, err = run_cli(["report", "--data-dir", str(data_dir), "--out", str(root / "out"),
                              "--analyse", "2", "--ply", "0"])
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
    ours = sorted((d for a in analyses.values() for d in a.decisions if d.player == 0 and d.loss > 0),
                  key=lambda d: (d.cost, d.loss), reverse=True)
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
