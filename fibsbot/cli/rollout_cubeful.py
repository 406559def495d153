"""The cubeful half of `fibsbot rollout`: a cube decision, a position or a roll's
candidate moves rolled out with the cube in play, at the score or for money."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from engine.cube.met import CubeView
from engine.rules.ids import CENTRED, MatchState
from fibsbot.cli.registry import UserError


def _describe(state: MatchState) -> str:
    if state.is_money:
        rules = [name for name, on in (("Jacoby", state.jacoby), ("beavers", state.beavers)) if on]
        game = "money play" + (f" ({', '.join(rules)})" if rules else " (no Jacoby, no beavers)")
    else:
        me, them = state.score[state.on_roll], state.score[1 - state.on_roll]
        game = f"{state.match_length}-point match, {me}-{them} for the side on roll"
        if state.crawford:
            game += ", Crawford game"
        elif state.match_length - 1 in state.score:
            game += ", post-Crawford"
    if state.cube_owner == CENTRED:
        cube = f"cube {state.cube} centred"
    else:
        cube = f"cube {state.cube} {'on roll' if state.cube_owner == state.on_roll else 'the other side'}'s"
    return f"{game}, {cube}"


def _state(args: argparse.Namespace, request) -> MatchState:
    state = request.state
    if state.is_money:
        # FIBS plays money without Jacoby or beavers; gnubg's Match ID default is Jacoby on
        state = replace(state, jacoby=bool(args.jacoby), beavers=bool(args.beavers))
    elif args.jacoby or args.beavers:
        raise UserError("--jacoby and --beavers are money rules; this Match ID is a match")
    try:
        CubeView.of(state)
    except ValueError as exc:
        raise UserError(f"this Match ID describes no game to roll out: {exc}") from exc
    return state


def run_cubeful(args: argparse.Namespace, request, agent, prune: int) -> int:
    from engine.cube.cubeful import view_may_double
    from engine.rollout.cubeful import (
        CubefulSettings,
        rollout_cube_decision,
        rollout_cubeful_moves,
        rollout_cubeful_position,
    )
    from engine.rules.notation import format_gnubg

    state = _state(args, request)
    settings = CubefulSettings(
        spec=f"net:{args.net}",
        seed=args.seed,
        workers=args.workers,
        ray_address=args.ray_address,
        varredn=args.varredn,
        max_turns=args.max_turns,
        prune=prune,
    )
    unit = "points per cube" if state.is_money else "EMG"
    header = f"Cubeful rollout, {_describe(state)}; {args.games} games, seed {args.seed}"
    if request.dice is not None:
        d1, d2 = request.dice
        rows = rollout_cubeful_moves(
            request.board, state, d1, d2, args.games, settings, candidates=args.candidates, agent=agent
        )
        for row in rows:
            row["move"] = format_gnubg(request.board, row.pop("steps")) or "(no legal move)"
        if args.json:
            print(json.dumps({"games": args.games, "seed": args.seed, "unit": unit, "moves": rows}))
            return 0
        print(f"{header}: the best {len(rows)} moves of {d1}{d2} ({unit})")
        print_moves(rows)
        return 0
    if not view_may_double(CubeView.of(state)):
        result = rollout_cubeful_position(request.board, state, args.games, settings, agent=agent).as_dict()
        result.update(may_double=False, unit=unit)
        if args.json:
            print(json.dumps(result))
            return 0
        print(f"{header}: the side on roll may not double")
        print(f"  equity {result['equity']:+.4f} +/- {result['equity_stderr']:.4f} ({unit})")
        return 0
    answer = rollout_cube_decision(request.board, state, args.games, settings, agent=agent)
    answer.update(may_double=True, unit=unit)
    if args.json:
        print(json.dumps(answer))
        return 0
    equities, errors = answer["equities"], answer["stderr"]
    print(f"{header}: the cube decision ({unit})")
    print(f"  no double     {equities['no_double']:+.4f} +/- {errors['no_double']:.4f}")
    print(f"  double, take  {equities['double_take']:+.4f} +/- {errors['double_take']:.4f}")
    print(f"  double, drop  {equities['double_drop']:+.4f}")
    print(
        f"  double/take minus no double {equities['double_take'] - equities['no_double']:+.4f} "
        f"+/- {errors['double_take_minus_no_double']:.4f} (the same dice)"
    )
    print(f"Proper cube action: {answer['action']}")
    return 0


def print_moves(rows: list[dict]) -> None:
    """Rolled-out moves, best first, with their differences to the best on the same dice."""
    print(f"    {'move':28s} {'equity':>8s} {'+/-':>7s}   {'vs best':>8s} {'+/-':>7s}")
    for rank, row in enumerate(rows, 1):
        print(
            f"{rank:2d}. {row['move']:28s} {row['equity']:+8.4f} {row['equity_stderr']:7.4f}   "
            f"{row['diff']:+8.4f} {row['diff_stderr']:7.4f}"
        )
