"""A second, independent judge of cube decisions: Open Sage's cubeful 3-ply.

``check_cube_vs_gnubg.py --referee`` hands it the rows it compared with GNU
Backgammon: for each position the referee gives its cubeful "no double", "double,
take" and "double, pass" equities (``bgsage.BgBotAnalyzer(eval_level="3ply",
cubeful=True).cube_action(..., away1=, away2=)``), and every decider (ours and
gnubg's) is charged what its double and take answers give up by those equities, as
gnubg's benchmarks charge cube errors: the double error is the referee's best value
minus the value of the decider's double/no double (the taker answering properly),
the take error is the difference of take and pass when the answer is the wrong one.
Errors are in thousandths of an equity (money) or of an EMG (match) a decision.
Open Sage counts plies as XG does: its 3-ply is gnubg's 2-ply.
"""

from __future__ import annotations

from engine.cube.decision import DOUBLE_DROP, DOUBLE_TAKE
from engine.rules.ids import parse_xgid

REFEREE = "bgsage@3 (cubeful)"


def referee_equities(rows: list[dict], threads: int = 1) -> list[tuple[float, float, float]]:
    """(no double, double/take, double/pass) of the referee for each row's position."""
    import bgsage

    from nets.train.labellers import sage_board

    analyzer = bgsage.BgBotAnalyzer(eval_level="3ply", cubeful=True, parallel_threads=threads)
    out = []
    for row in rows:
        board, state = parse_xgid(row["xgid"])
        owner = (
            "centered"
            if state.cube_owner not in (0, 1)
            else ("player" if state.cube_owner == state.on_roll else "opponent")
        )
        me, them = state.on_roll, 1 - state.on_roll
        away = (
            (state.match_length - state.score[me], state.match_length - state.score[them])
            if state.match_length
            else (0, 0)
        )
        result = analyzer.cube_action(
            sage_board(board),
            state.cube,
            owner,
            away1=away[0],
            away2=away[1],
            is_crawford=bool(state.crawford),
            jacoby=bool(state.jacoby),
            beaver=False,
        )
        out.append((float(result.equity_nd), float(result.equity_dt), float(result.equity_dp)))
    return out


def cube_error(equities: tuple[float, float, float], double: bool, take: bool | None) -> float:
    """What a double/no double and a take/pass answer give up by the referee's equities."""
    nd, dt, dp = equities
    best = max(nd, min(dt, dp))
    chosen = min(dt, dp) if double else nd
    proper_take = dt <= dp
    take_error = 0.0 if take is None or take == proper_take else abs(dp - dt)
    return (best - chosen) + take_error


def judge(rows: list[dict], threads: int = 1) -> dict:
    """Agreement with the referee and mean cube error, per decider, overall and in
    match play alone."""
    equities = referee_equities(rows, threads)
    tallies: dict[str, dict[str, list[float]]] = {}
    for row, eq in zip(rows, equities):
        nd, dt, dp = eq
        ref_double, ref_take = dt >= nd and dp >= nd, dt <= dp
        row["referee"] = {"no_double": round(nd, 4), "double_take": round(dt, 4), "double_pass": round(dp, 4)}
        deciders = {"gnubg": row["gnubg"]} | row["ours"]
        for name, decision in deciders.items():
            if name == "gnubg-shown":
                continue
            double = decision["action"] in (DOUBLE_TAKE, DOUBLE_DROP)
            take = decision["take"]
            error = cube_error(eq, double, take)
            agree = double == ref_double and (take is None or take == ref_take)
            for scope in ("all", "match") if not row["scenario"].startswith("money") else ("all",):
                tally = tallies.setdefault(name, {}).setdefault(scope, [0.0, 0.0, 0])
                tally[0] += error
                tally[1] += agree
                tally[2] += 1
    return {
        "referee": REFEREE,
        "deciders": {
            name: {
                scope: {
                    "positions": n,
                    "agreement": round(100.0 * agree / n, 1),
                    "error_x1000": round(1000 * err / n, 2),
                }
                for scope, (err, agree, n) in scopes.items()
            }
            for name, scopes in tallies.items()
        },
    }


def print_judgement(judgement: dict) -> None:
    print(f"judged by {judgement['referee']}: agreement and cube error (x1000 a decision)")
    for name, scopes in judgement["deciders"].items():
        print(
            f"  {name:22s} "
            + "   ".join(
                f"{scope}: {s['agreement']}% agree, error {s['error_x1000']} ({s['positions']})"
                for scope, s in scopes.items()
            )
        )
