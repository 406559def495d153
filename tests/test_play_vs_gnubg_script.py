"""scripts/gnubg_match/play_vs_gnubg.py: gnubg's match statistics read, resumed runs, the summary, a live match."""

from __future__ import annotations

import json
import math

import pytest

from tests.gnubg_cli import require_gnubg
from tests.script_loader import load_script as load_script_named

# ``show statistics match`` of gnubg 1.07 after a 3-point match (gnubg 0-ply, player 0,
# against net:default@0 through ``fibsbot external``, player 1), analysed at 0-ply.
STATISTICS = """
Player                                   gnubg                   root

Chequerplay statistics

Total moves                               26                      26
Unforced moves                            22                      20
Unmarked moves                            26                      25
Moves marked doubtful                      0                       0
Moves marked bad                           0                       0
Moves marked very bad                      0                       1
Error total EMG (MWC)                         -0.000 ( -0.000%)       -0.198 ( -4.959%)
Error rate mEMG (MWC)                         -0.0   ( -0.000%)       -9.9   ( -0.248%)
Chequerplay rating                       Supernatural            Advanced


Luck statistics

Rolls marked very lucky                    0                       1
Rolls marked lucky                         0                       1
Rolls unmarked                            25                      23
Rolls marked unlucky                       1                       1
Rolls marked very unlucky                  0                       0
Luck total EMG (MWC)                          -1.036 (-25.211%)       +1.514 (+25.306%)
Luck rate mEMG (MWC)                         -39.8   ( -0.970%)      +58.2   ( +0.973%)
Luck rating                              Bad dice, man!          Good dice, man!


Cube statistics

Total cube decisions                      26                       7
Close or actual cube decisions            14                       4
Doubles                                    0                       1
Takes                                      1                       0
Passes                                     0                       0
Missed doubles below CP (EMG (MWC))        0                       2 (-0.049 ( -0.490%))
Missed doubles above CP (EMG (MWC))        0                       0
Wrong doubles below DP (EMG (MWC))         0                       0
Wrong doubles above TG (EMG (MWC))         0                       0
Wrong takes (EMG (MWC))                    0                       0
Wrong passes (EMG (MWC))                   0                       0
Error total EMG (MWC)                         -0.000 ( -0.000%)       -0.049 ( -0.490%)
Error rate mEMG (MWC)                         -0.0   ( -0.000%)      -12.3   ( -0.122%)
Cube decision rating                     Supernatural            Intermediate


Overall statistics

Error total EMG (MWC)                         -0.000 ( -0.000%)       -0.247 ( -5.448%)
Error rate mEMG (MWC)                         -0.0   ( -0.000%)      -10.3   ( -0.227%)
Snowie error rate                             -0.0   ( +0.000%)       -4.7   ( +0.000%)
Overall rating                           Supernatural            Advanced
Actual result                             -50.00%                 +50.00%
Luck adjusted result                       +0.52%                  -0.52%
Luck based FIBS rating diff.              +10.38
Error based abs. FIBS rating             2050.0                  1870.4
Chequerplay errors rating loss              0.0                   171.1
Cube errors rating loss                     0.0                     8.5
"""


def load_script():
    return load_script_named("gnubg_match.play_vs_gnubg")


CONFIG = dict(player="net:default@0", length=3, gnubg_plies=0, analysis_plies=0, seed=4)


def fake_match(script, config, index: int, winner: str = "ours") -> dict:
    figures = {
        "unforced_moves": 20,
        "chequer_errors": 1,
        "chequer_error_total_emg": 0.02,
        "cube_decisions": 4,
        "cube_errors": 0,
        "cube_error_total_emg": 0.0,
    }
    return {
        "config": script.asdict(config),
        "index": index,
        "winner": winner,
        "score": {"ours": 3 if winner == "ours" else 1, "gnubg": 3 if winner == "gnubg" else 0},
        "analysis": {"ours": figures, "gnubg": figures},
        "wall_s": 1.0,
        "play_s": 0.5,
        "analysis_s": 0.2,
    }


class FakePlayer:
    """Stands in for gnubg: records which matches were played, writes their JSON as ``play_match`` does."""

    def __init__(self, script, failing: tuple[int, ...] = ()) -> None:
        self.script, self.failing, self.played = script, failing, []

    def __call__(self, config, index, out, timeout):
        self.played.append(index)
        if index in self.failing:
            raise self.script.MatchError("the match stopped")
        data = fake_match(self.script, config, index)
        self.script.write_json(out / f"{self.script.match_stem(config, index)}.json", data)
        return data


# ---------------------------------------------------------------------- gnubg's statistics


def test_statistics_give_each_sides_chequer_and_cube_figures():
    figures = load_script().side_figures(STATISTICS)
    ours, gnubg = figures["ours"], figures["gnubg"]
    assert (ours["total_moves"], ours["unforced_moves"], ours["chequer_errors"]) == (26, 20, 1)
    assert ours["chequer_error_total_emg"] == pytest.approx(0.198)
    assert ours["chequer_error_rate_memg"] == pytest.approx(9.9)
    ratings = (ours["chequer_rating"], ours["cube_rating"], ours["overall_rating"])
    assert ratings == ("Advanced", "Intermediate", "Advanced")
    assert (ours["cube_total_decisions"], ours["cube_decisions"], ours["doubles"], ours["takes"], ours["passes"]) == (
        7,
        4,
        1,
        0,
        0,
    )
    assert ours["cube_errors"] == 2  # the two missed doubles below the cash point
    assert ours["cube_error_total_emg"] == pytest.approx(0.049)
    assert ours["cube_error_rate_memg"] == pytest.approx(12.3)
    assert (ours["overall_error_rate_memg"], ours["fibs_rating"]) == pytest.approx((10.3, 1870.4))
    # gnubg's rates are its totals (to 0.001 EMG) over unforced moves and close cube decisions (to 0.1 mEMG)
    for total, decisions, rate in (
        ("chequer_error_total_emg", "unforced_moves", 9.9),
        ("cube_error_total_emg", "cube_decisions", 12.3),
    ):
        assert 1000 * ours[total] / ours[decisions] == pytest.approx(rate, abs=0.05 + 0.5 / ours[decisions])
    assert (gnubg["unforced_moves"], gnubg["cube_total_decisions"], gnubg["cube_decisions"], gnubg["takes"]) == (
        22,
        26,
        14,
        1,
    )
    assert (gnubg["chequer_errors"], gnubg["cube_errors"]) == (0, 0)
    assert gnubg["chequer_error_total_emg"] == gnubg["cube_error_rate_memg"] == 0
    assert (gnubg["chequer_rating"], gnubg["fibs_rating"]) == ("Supernatural", 2050.0)


def test_statistics_are_read_between_the_markers_of_gnubg_output():
    script = load_script()
    stdout = (
        "root wins a gammon and 4 points.\nNew matches default to 7 points.\n"
        + STATISTICS
        + "\nNew matches default to 7 points.\nPlayer 0:\n  Name: gnubg\n"
    )
    block = script.statistics_block(stdout)
    assert block.strip() == STATISTICS.strip()
    with pytest.raises(script.MatchError, match="no match statistics"):
        script.statistics_block("root wins a gammon and 4 points.\n")


def test_statistics_without_a_cube_section_are_refused():
    script = load_script()
    without_cube = STATISTICS.split("Cube statistics")[0]
    with pytest.raises(script.MatchError, match="cube"):
        script.side_figures(without_cube)


def test_the_match_record_gives_the_winner_and_each_sides_points():
    script = load_script()
    games = [
        {"info": {"winner": "X", "points-won": 1, "resigned": False}},
        {"info": {"winner": "O", "points-won": 2, "resigned": False}},
        {"info": {"winner": "O", "points-won": 4, "resigned": True}},
    ]
    result = script.match_result({"games": games}, length=5)
    assert result["winner"] == "ours" and result["score"] == {"ours": 6, "gnubg": 1}
    assert [g["resigned"] for g in result["games"]] == [False, False, True]
    with pytest.raises(script.MatchError, match="stopped"):
        script.match_result({"games": games[:2]}, length=5)
    with pytest.raises(script.MatchError, match="no winner"):
        script.match_result({"games": [*games[:2], {"info": {"points-won": 0}}]}, length=5)


def test_gnubg_plays_and_analyses_at_the_plies_asked(tmp_path):
    script = load_script()
    config = script.Config(**{**CONFIG, "gnubg_plies": 2, "analysis_plies": 3, "length": 7})
    plan = script.gnubg_plan(config, 5, 4321, tmp_path)
    play, analyse = plan["play"], plan["analyse"]
    for part in ("chequerplay", "cubedecision"):
        assert {f"set player 0 {part} evaluation plies 2", f"set player 0 {part} evaluation noise 0"} <= set(play)
        assert f"set analysis {part} evaluation plies 3" in analyse
    assert f"set seed {script.dice_seed(config.seed, 5)}" in play
    # player 1 is ours before the match starts
    assert play.index("set player 1 external 127.0.0.1:4321") < play.index("new match 7")
    assert analyse.index("analyse match") < analyse.index("show statistics match")


def test_every_match_gets_its_own_dice():
    script = load_script()
    seeds = {script.dice_seed(seed, index) for seed in (1, 2) for index in range(500)}
    assert len(seeds) == 1000 and all(0 <= s < 2**31 for s in seeds)
    assert script.dice_seed(1, 7) == script.dice_seed(1, 7)


# ---------------------------------------------------------------------- resuming


def test_a_match_with_its_json_is_not_played_again(tmp_path):
    script = load_script()
    config = script.Config(**CONFIG)
    first = FakePlayer(script)
    matches, failed = script.run_matches(config, 2, tmp_path, play=first)
    assert sorted(first.played) == [0, 1] and failed == 0 and [m["index"] for m in matches] == [0, 1]
    again = FakePlayer(script)
    matches, failed = script.run_matches(config, 3, tmp_path, workers=2, play=again)
    assert again.played == [2] and [m["index"] for m in matches] == [0, 1, 2]


def test_a_second_run_into_the_same_folder_is_refused_while_one_plays(tmp_path):
    # a second run started beside the first played five matches of a 100-match series again
    script = load_script()
    config = script.Config(**CONFIG)
    with script.playing_into(tmp_path):
        player = FakePlayer(script)
        with pytest.raises(SystemExit, match="another run is playing into it"):
            script.run_matches(config, 2, tmp_path, play=player)
        assert player.played == []
    matches, _ = script.run_matches(config, 1, tmp_path, play=FakePlayer(script))  # free again once it ends
    assert [m["index"] for m in matches] == [0]


def test_the_summary_switch_reads_the_folder_and_plays_nothing(tmp_path, capsys):
    script = load_script()
    config = script.Config(**CONFIG)
    script.run_matches(config, 2, tmp_path, play=FakePlayer(script))
    argv = ["--player", "net:default@0", "--length", "3", "--gnubg-plies", "0", "--analysis-plies", "0"]
    code = script.main([*argv, "--seed", "4", "--matches", "3", "--out", str(tmp_path), "--summary", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["matches"] == 2 and summary["wins"] == 2
    assert not list(tmp_path.glob(f"{script.match_stem(config, 2)}.*"))  # match 2 was not played


def test_a_failed_match_is_counted_and_played_by_the_next_run(tmp_path):
    script = load_script()
    config = script.Config(**CONFIG)
    matches, failed = script.run_matches(config, 3, tmp_path, play=FakePlayer(script, failing=(1,)))
    assert failed == 1 and [m["index"] for m in matches] == [0, 2]
    retry = FakePlayer(script)
    matches, failed = script.run_matches(config, 3, tmp_path, play=retry)
    assert retry.played == [1] and failed == 0 and len(matches) == 3


def test_a_partly_written_json_does_not_count_as_played(tmp_path):
    script = load_script()
    config = script.Config(**CONFIG)
    stem = script.match_stem(config, 0)
    (tmp_path / f"{stem}.json.partial").write_text('{"config": ')
    player = FakePlayer(script)
    script.run_matches(config, 1, tmp_path, play=player)
    assert player.played == [0]


def test_matches_of_another_configuration_are_not_mixed_in(tmp_path):
    script = load_script()
    config = script.Config(**CONFIG)
    other = script.Config(**{**CONFIG, "analysis_plies": 2})
    data = fake_match(script, other, 0)
    (tmp_path / f"{script.match_stem(config, 0)}.json").write_text(json.dumps(data))
    with pytest.raises(SystemExit, match="use another --out"):
        script.run_matches(config, 1, tmp_path, play=FakePlayer(script))


# ---------------------------------------------------------------------- the summary


def test_the_summary_gives_the_win_rate_and_error_rates_with_standard_errors():
    script = load_script()
    config = script.Config(**CONFIG)
    matches = [fake_match(script, config, i, winner) for i, winner in enumerate(["ours", "ours", "gnubg", "ours"])]
    chequer_rates = [1.0, 2.0, 0.0, 3.0]  # mEMG a move, each over 50 unforced moves
    for match, rate in zip(matches, chequer_rates):
        match["analysis"]["ours"] = {
            **match["analysis"]["ours"],
            "unforced_moves": 50,
            "chequer_error_total_emg": rate * 50 / 1000,
        }
    summary = script.summarise(config, matches)
    assert (summary["matches"], summary["wins"], summary["points_for"], summary["points_against"]) == (4, 3, 10, 3)
    assert summary["win_rate"] == 0.75
    assert summary["win_rate_se"] == pytest.approx(math.sqrt(0.75 * 0.25 / 4))
    ours = summary["sides"]["ours"]
    # with equal move counts the pooled rate is the mean of the matches' rates, its error theirs
    mean = sum(chequer_rates) / 4
    sd = math.sqrt(sum((r - mean) ** 2 for r in chequer_rates) / 3)
    assert (ours["chequer_error_memg"], ours["chequer_error_se"]) == pytest.approx((mean, sd / 2))
    assert (ours["unforced_moves"], ours["chequer_errors"]) == (200, 4)
    assert (ours["cube_error_memg"], ours["cube_error_se"]) == (0, 0)
    assert summary["wall_s_per_match"] == 1.0
    assert "our wins: 3/4 = 75.0 ± 21.7%" in script.report(summary)


def test_pooled_error_rates_weigh_matches_by_their_decisions():
    script = load_script()
    # a match without a close cube decision adds nothing: gnubg's own total over total
    assert script.pooled_rate([0.0, 0.049], [0, 4])[0] == pytest.approx(12.25)
    assert script.pooled_rate([0.1], [50]) == (pytest.approx(2.0), None)
    assert script.pooled_rate([0.0, 0.0], [0, 0]) == (None, None)


def test_a_summary_of_no_matches_says_so():
    script = load_script()
    summary = {**script.summarise(script.Config(**CONFIG), []), "failed": 2}
    assert summary["matches"] == 0 and summary["win_rate"] is None
    assert "0 3-point matches" in script.report(summary) and "2 match(es) failed" in script.report(summary)


# ---------------------------------------------------------------------- a live match


def test_a_one_point_match_against_gnubg_is_played_analysed_and_saved(tmp_path, capsys):
    require_gnubg()
    script = load_script()
    argv = [
        "--player",
        "net:default@0",
        "--matches",
        "1",
        "--length",
        "1",
        "--gnubg-plies",
        "0",
        "--analysis-plies",
        "0",
        "--seed",
        "3",
        "--out",
        str(tmp_path),
        "--json",
    ]
    assert script.main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["matches"] == 1 and summary["failed"] == 0
    assert max(summary["points_for"], summary["points_against"]) >= 1
    assert summary["wins"] == (summary["points_for"] > summary["points_against"])
    stem = script.match_stem(script.Config("net:default@0", 1, 0, 0, 3), 0)
    record = json.loads((tmp_path / f"{stem}.json").read_text())
    assert record["our_decisions"] > 0
    assert all(record["analysis"][side]["total_moves"] > 0 for side in ("ours", "gnubg"))
    assert (tmp_path / f"{stem}.sgf.gz").stat().st_size > 0
    assert "1 point match" in (tmp_path / f"{stem}.mat").read_text()
    written = (tmp_path / f"{stem}.json").stat().st_mtime_ns
    assert script.main(argv) == 0  # resumed: nothing left to play
    assert json.loads(capsys.readouterr().out) == summary
    assert (tmp_path / f"{stem}.json").stat().st_mtime_ns == written
