"""``fibsbot hint``: ranked moves or the cube decision, like gnubg's ``hint``.

A request is a position (row 0 = the player on roll, as a Position ID gives it), an
optional match state and optional dice.  Answers are plain dicts, so the command
line prints them as text or JSON and other engines' answers compare at scale.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.eval.static import WON
from engine.players.agent import Agent
from engine.rules.ids import (
    CENTRED,
    MatchState,
    board_from_position_id,
    match_id,
    match_state_from_id,
    parse_xgid,
    position_id,
)
from engine.rules.moves import check_dice
from engine.rules.notation import format_gnubg
from engine.rules.position import Position
from nets.player import ROLLER, TABLE

PROBABILITY_COLUMNS = ("Win", "W(g)", "W(bg)", "L(g)", "L(bg)")  # gnubg's order and names


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


def agent_level(agent: Agent) -> str:
    """The level of a player spec's ``@LEVEL``: ``0``, ``1``, ``2``, ``table`` (2-ply with a
    deeper look at close decisions, which an agent given time to think takes) or ``roller``
    (whose deeper look is its own: short rollouts)."""
    if agent.look is not None:
        return ROLLER
    return TABLE if agent.think > 0 else str(agent.ply)


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
        answer = {
            "player": agent.name,
            "level": agent_level(agent),
            "dice": list(request.dice),
            "ply": agent.ply,
            "moves": moves,
        }
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
        "level": agent_level(agent),
        "decision": kind,
        "action": decision.action,
        "ply": decision.ply,  # the deepest look taken: 3 at the table level (the mean of 2 and 3 plies)
        "equities": {k: round(float(v), 6) for k, v in decision.equities.items()},
        "probs": [round(float(p), 6) for p in decision.probs],
    }


def parse_batch_line(line: str) -> HintRequest:
    """``POSITION_ID [MATCH_ID] [D1 D2]``; money play when there is no Match ID."""
    fields = line.split()
    # the dice are the short numbers at the end; an ID is never that short
    dice_fields = 0
    while dice_fields < len(fields) - 1 and fields[-1 - dice_fields].isdigit() and len(fields[-1 - dice_fields]) <= 2:
        dice_fields += 1
    ids = fields[: len(fields) - dice_fields]
    if dice_fields not in (0, 2) or len(ids) not in (1, 2):
        what = f"one die ({fields[-1]}): a roll is two numbers" if dice_fields == 1 else "fields that do not fit"
        raise HintError(f"{what}; expected 'POSITION_ID [MATCH_ID] [D1 D2]', got {line.strip()!r}")
    dice = (int(fields[-2]), int(fields[-1])) if dice_fields == 2 else None
    return parse_request(ids[0], ids[1] if len(ids) == 2 else None, dice=dice)


def describe_request(request: HintRequest, answer: dict) -> list[str]:
    """The question the text answer answers: the IDs, the score and cube, the dice and who
    was asked at what level, so that a pasted answer says what it is about."""
    state = request.state
    decider = state.to_decide if state.doubled else state.on_roll
    assert decider is not None  # MatchState.__post_init__ fills to_decide from on_roll
    mine = as_player0(state, decider)  # the score and cube as the one deciding sees them
    who = "the player to decide" if state.doubled else "the player on roll"
    if state.match_length:
        game = f"{state.match_length}-point match, score {mine.score[0]}-{mine.score[1]} ({who} first)"
        game += ", Crawford game" if state.crawford else ""
    else:
        game = "money game"
    if mine.cube_owner == CENTRED:
        cube = f"cube {state.cube} centred"
    else:
        cube = f"cube {state.cube} owned by {who if mine.cube_owner == 0 else 'the opponent'}"
    if state.doubled:
        cube += ", doubled: take or drop"
    roll = f"dice {request.dice[0]}-{request.dice[1]}" if request.dice else "before rolling: the cube decision"
    with_dice = replace(state, dice=request.dice) if request.dice else state  # the IDs gnubg would show
    return [
        f"Position ID {position_id(request.board)}   Match ID {match_id(with_dice)}",
        f"{game}, {cube}, {roll}",
        f"asked: {answer['player']} ({describe_level(answer)})",
    ]


DEEPER_LEVELS = {
    TABLE: "table level: cubeful 2-ply, close moves and every cube decision looked at a ply deeper",
    ROLLER: "roller level: cubeful 2-ply, then short cubeful rollouts of close decisions",
}


def describe_level(answer: dict) -> str:
    return DEEPER_LEVELS.get(answer.get("level", ""), f"{answer['ply']}-ply")


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
    level = answer.get("level", "")
    asked = f"the {level} level searches {ply} plies" if level in DEEPER_LEVELS else f"{ply}-ply asked"
    return (
        f"{asked}: {deep} of the {len(moves)} moves listed reached it; each shows the ply it stopped at.\n"
        f"The move filter: {passes}; a pass left with fewer than 2 moves is not run (the best move is clear)."
    )


def deeper_note(answer: dict) -> str:
    """What the table level's deeper look did: the close moves it looked at a ply deeper
    rank above the rest by their deeper figures, as the bot plays them."""
    deeper = sum(move["ply"] > answer["ply"] for move in answer["moves"] if move["ply"] != WON)
    if answer.get("level") != TABLE or not deeper:
        return ""
    return (
        f"The table level looked at the {deeper} close moves a ply deeper ({answer['ply'] + 1}-ply) and plays the best "
        "of them; the others keep their 2-ply figures."
    )


def _ply_label(ply: int) -> str:
    return "won" if ply == WON else f"{ply}-ply"  # a move that ends the game has an exact value, no depth


def format_text(answer: dict, request: HintRequest | None = None) -> str:
    """gnubg's kind of hint text; with the ``request``, led by what was asked."""
    lines = describe_request(request, answer) if request is not None else []
    columns = " ".join(f"{name:>5s}" for name in PROBABILITY_COLUMNS)
    if "moves" in answer:
        lines.append(f"{'':4s} {'ply':5s}  {'move':28s} {'equity':11s}   {columns}")
        for rank, move in enumerate(answer["moves"], 1):
            probs = " ".join(f"{p:5.3f}" for p in move["probs"])
            lines.append(
                f"{rank:3d}. {_ply_label(move['ply']):5s}  {move['move']:28s} Eq.: {move['equity']:+.3f}   {probs}"
            )
        notes = [note for note in (deeper_note(answer), filter_note(answer)) if note]
        return "\n".join(lines + notes)
    probs = " ".join(f"{p:5.3f}" for p in answer["probs"])
    eq = "  ".join(f"{k.replace('_', ' ')}: {v:+.3f}" for k, v in answer["equities"].items())
    level = answer.get("level", "")
    depth = f"{level}-level" if level in DEEPER_LEVELS else f"{answer['ply']}-ply"
    mean = " (the mean of 2-ply and 3-ply)" if level == TABLE and answer["ply"] == 3 else ""
    lines += [
        f"0-ply cubeless probabilities ({columns.strip()}): {probs}",
        f"{depth} cubeful equities{mean}: {eq}",
        f"Proper cube action: {answer['action']}",
    ]
    return "\n".join(lines)
