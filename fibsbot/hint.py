"""``fibsbot hint``: ranked moves or the cube decision, like gnubg's ``hint``.

A request is a position (row 0 = the player on roll, as a Position ID gives it), an
optional match state and optional dice.  Answers are plain dicts, so the command
line prints them as text or JSON and other engines' answers compare at scale.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.players.agent import Agent
from engine.rules.ids import CENTRED, MatchState, board_from_position_id, match_state_from_id, parse_xgid, position_id
from engine.rules.moves import check_dice
from engine.rules.notation import format_gnubg
from engine.rules.position import Position


class HintError(ValueError):
    """A request that cannot be answered (bad ID, finished game, bad dice)."""


@dataclass(frozen=True)
class HintRequest:
    board: np.ndarray  # row 0 = the player on roll (or, when doubled, the doubler)
    state: MatchState
    dice: tuple[int, int] | None


def as_player0(state: MatchState, player: int) -> MatchState:
    """The same state with ``player`` renamed 0 (the agent's own convention)."""
    if player == 0:
        return state
    owner = state.cube_owner if state.cube_owner == CENTRED else 1 - state.cube_owner
    assert state.to_decide is not None  # MatchState.__post_init__ fills it from on_roll
    return replace(
        state,
        on_roll=1 - state.on_roll,
        to_decide=1 - state.to_decide,
        cube_owner=owner,
        score=(state.score[1], state.score[0]),
    )


def parse_request(
    position: str | None = None, match: str | None = None, xgid: str | None = None, dice: tuple[int, int] | None = None
) -> HintRequest:
    try:
        if xgid:
            if position or match:
                raise HintError("give an XGID, or a Position ID with an optional Match ID, not both")
            board, state = parse_xgid(xgid)
        elif position:
            board = board_from_position_id(position)
            state = match_state_from_id(match) if match else MatchState(jacoby=False)
        else:
            raise HintError("give --position-id (with an optional --match-id) or --xgid")
        if dice is None and state.dice != (0, 0):
            dice = state.dice
        if dice is not None:
            check_dice(*dice)
    except HintError:
        raise
    except ValueError as exc:
        raise HintError(str(exc)) from exc
    if Position(board).is_game_over():
        raise HintError("the game is over: there is nothing to decide")
    # a pair: check_dice took exactly two
    return HintRequest(np.ascontiguousarray(board, dtype=np.int8), state, (dice[0], dice[1]) if dice else None)


def hint(agent: Agent, request: HintRequest, limit: int | None = None) -> dict:
    """Ranked moves (best first) for a roll, else the cube decision."""
    board, state = request.board, request.state
    if request.dice is not None:
        me = as_player0(state, state.on_roll)
        choice = agent.choose_move(board, *request.dice, me)
        moves = []
        for ranked in choice.ranked[:limit]:
            moves.append(
                {
                    "move": format_gnubg(board, ranked.steps) if ranked.steps else "(no legal move)",
                    "position_id": position_id(ranked.board[::-1].copy()),
                    "equity": round(ranked.equity, 6),
                    "probs": [round(p, 6) for p in ranked.probs],
                    "ply": ranked.ply,
                }
            )
        answer = {"player": agent.name, "dice": list(request.dice), "ply": agent.ply, "moves": moves}
        if agent.ply > 0:
            answer["filters"] = [float(f) for f in agent.filters]  # (k1, w1, k2, w2): see filter_note
        return answer
    if state.doubled:
        taker = state.to_decide
        assert taker is not None  # MatchState.__post_init__ fills it from on_roll
        me = as_player0(state, taker)
        decision = agent.take_decision(np.ascontiguousarray(board[::-1]), me)
        kind = "take"
    else:
        me = as_player0(state, state.on_roll)
        decision = agent.double_decision(board, me)
        kind = "double"
    return {
        "player": agent.name,
        "decision": kind,
        "action": decision.action,
        "ply": agent.ply,
        "equities": {k: round(float(v), 6) for k, v in decision.equities.items()},
        "probs": [round(float(p), 6) for p in decision.probs],
    }


def parse_batch_line(line: str) -> HintRequest:
    """``POSITION_ID [MATCH_ID] [D1 D2]``; money play when there is no Match ID."""
    fields = line.split()
    if len(fields) not in (1, 2, 3, 4):
        raise HintError(f"expected 'POSITION_ID [MATCH_ID] [D1 D2]', got {line.strip()!r}")
    dice = None
    if len(fields) >= 3:
        if not (fields[-1].isdigit() and fields[-2].isdigit()):
            raise HintError(f"dice must be two numbers, got {fields[-2:]}")
        dice = (int(fields[-2]), int(fields[-1]))
        fields = fields[:-2]
    return parse_request(fields[0], fields[1] if len(fields) == 2 else None, dice=dice)


def filter_note(answer: dict) -> str:
    """Why moves of a deeper search show a shallower ply: the move filter sent them no
    deeper (empty when every move reached the depth asked for)."""
    moves, ply = answer["moves"], answer["ply"]
    deep = sum(m["ply"] >= ply for m in moves)
    if ply == 0 or deep == len(moves):
        return ""
    k1, w1, k2, w2 = answer["filters"]
    passes = f"the best {k1:.0f} within {w1:.3f} of the best 0-ply equity go on to 1-ply"
    if ply >= 2:
        passes += f", and of those the best {k2:.0f} within {w2:.3f} of the best 1-ply equity go on to 2-ply"
    return (
        f"{ply}-ply asked: {deep} of the {len(moves)} moves listed reached it; each shows the ply it stopped at.\n"
        f"The move filter: {passes}; a pass left with fewer than 2 moves is not run (the best move is clear)."
    )


def format_text(answer: dict) -> str:
    if "moves" in answer:
        lines = []
        for rank, move in enumerate(answer["moves"], 1):
            probs = " ".join(f"{p:.3f}" for p in move["probs"])
            lines.append(f"{rank:3d}. {move['ply']}-ply  {move['move']:28s} Eq.: {move['equity']:+.3f}   {probs}")
        note = filter_note(answer)
        return "\n".join(lines + ([note] if note else []))
    probs = " ".join(f"{p:.3f}" for p in answer["probs"])
    eq = "  ".join(f"{k.replace('_', ' ')}: {v:+.3f}" for k, v in answer["equities"].items())
    return (
        f"0-ply cubeless probabilities: {probs}\n{answer['ply']}-ply cubeful equities: {eq}\n"
        f"Proper cube action: {answer['action']}"
    )
