"""A match reloaded inside its Crawford game by a server that loses the Crawford flag there.

The bot (driver and records, read back from disk after a kill) is killed at the
Crawford game or a few moves into it; the server reloads the match with the post-Crawford field
set at the same score and accepts doubles.  The bot must not double, must answer
the opponent's double, and must leave a record that ``fibsbot analyse`` reads.
"""

from __future__ import annotations

import functools

import pytest

from fibsbot.owner.matread import read_mat
from fibsbot.owner.replay import replay_turns
from fibsbot.server.phases import Phase
from tests.interrupt_harness import BOT, InterruptedMatch

LENGTH = 3


def kill_in_the_crawford_game(im: InterruptedMatch, *, moves_in: int | None) -> bool:
    """True at the Crawford game: between games (``moves_in`` None) or that many actions into
    it; from then on both sides want to double."""
    match = im.match
    if match is None or not match.crawford_game:
        return False
    if moves_in is None and match.phase is not Phase.BETWEEN:
        return False
    if moves_in is not None and (
        match.phase not in (Phase.ROLL, Phase.MOVE) or len(match.history[-1]["actions"]) < moves_in
    ):
        return False
    im.double_rate = 1.0  # the opponent doubles whenever the server lets it
    im.agent.double_rate = 1.0  # and our agent would, whenever the driver asked it
    return True


@pytest.mark.parametrize("moves_in", [None, 3], ids=["at_it", "inside_it"])
def test_a_match_reloaded_at_its_crawford_game_is_played_and_recorded_by_the_rules(tmp_path, moves_in):
    im = InterruptedMatch(
        tmp_path,
        seed=5,
        length=LENGTH,
        double_rate=0.0,
        server={"crawford_lost_on_reload": True},
        kill_when=functools.partial(kill_in_the_crawford_game, moves_in=moves_in),
    )
    im.play()
    assert im.kills == 1 and im.match.is_over
    ours = im.match.seat_of(BOT)
    crawford = next(game for game in im.match.history if LENGTH - 1 in game["score"])
    doubles = [action[1] for action in crawford["actions"] if action[0] == "double"]
    assert doubles and ours not in doubles  # the opponent doubled in it (the server let it); we never did
    mat = next((tmp_path / "matches").glob("*.mat"))
    text = mat.read_text()
    assert "doubled to 2 in the Crawford game, which the server allowed" in text
    turns = list(replay_turns(read_mat(mat)))  # what `fibsbot analyse` reads: no MatFileError
    assert any(turn.kind == "double" and turn.state.crawford for turn in turns)
    audit = im.audit()
    assert audit.games_left_out == 0 and audit.moves_wrong == 0, audit
