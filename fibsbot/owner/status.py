"""``fibsbot status``: the bot at a glance, from its data directory alone."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from fibsbot.owner.accounts import Account, current_account, other_accounts, unnamed_rating_lines
from fibsbot.owner.connection import connection_text
from fibsbot.owner.disk import disk_line, disk_usage
from fibsbot.owner.index import MatchIndex, MatchSummary
from fibsbot.owner.matches_view import current_match, last_match, match_in_play, saved_matches
from fibsbot.owner.presence import waiting_text
from fibsbot.owner.readers import daemon_state, net_in_use, queue_counts, ratings, retrains
from fibsbot.owner.rounds import completed_retrains, earlier_figures, format_retrain_rounds, retrain_rounds
from fibsbot.records.journal import PLAYING, SUFFIX
from fibsbot.version import version_text

RATING_TREND_LINES = 20  # the trend compares the latest rating with the one this many changes back
SAVED_SHOWN = 5  # saved matches listed by name; the rest are counted


def totals(summaries: list[MatchSummary]) -> dict:
    """Finished matches and points, overall and by match length."""
    by_length: dict[int | str, dict] = defaultdict(
        lambda: {"matches": 0, "won": 0, "lost": 0, "points_won": 0, "points_lost": 0}
    )
    for s in summaries:
        if not s.finished:
            continue
        for key in ("all", s.length):
            row = by_length[key]
            row["matches"] += 1
            row["won" if s.won else "lost"] += 1
            row["points_won"] += s.score[0]
            row["points_lost"] += s.score[1]
    overall = by_length.pop("all", {"matches": 0, "won": 0, "lost": 0, "points_won": 0, "points_lost": 0})
    return {**overall, "by_length": {str(k): v for k, v in sorted(by_length.items())}}


def rating_trend(lines: list[dict]) -> dict | None:
    if not lines:
        return None
    last = lines[-1]
    back = lines[max(0, len(lines) - 1 - RATING_TREND_LINES)]
    return {
        "rating": last["rating"],
        "experience": last.get("experience"),
        "time": last["time"],
        "change": round(last["rating"] - back["rating"], 2),
        "since": back["time"],
        "experience_gained": (last.get("experience") or 0) - (back.get("experience") or 0),
    }


@dataclass
class AccountRecords:
    """The account in use and its records; ``everyone``'s records for the others."""

    account: Account | None
    daemon: dict | None
    summaries: list[MatchSummary]
    ratings: list[dict]
    all_summaries: list[MatchSummary]
    all_ratings: list[dict]


def account_records(data_dir: Path) -> AccountRecords:
    daemon = daemon_state(data_dir)
    summaries, rows = MatchIndex(data_dir).summaries(), ratings(data_dir)
    account = current_account(daemon, rows, summaries)
    if account is None:
        return AccountRecords(None, daemon, summaries, [], summaries, rows)
    mine = [s for s in summaries if account.holds_match(s)]
    return AccountRecords(account, daemon, mine, [r for r in rows if account.holds_rating(r)], summaries, rows)


def collect_status(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    records = account_records(data_dir)
    summaries, daemon = records.summaries, records.daemon
    history = retrains(data_dir)
    done = completed_retrains(history)  # a failed retrain is listed among the rounds, not as the last one
    playing = match_in_play(daemon, summaries)
    return {
        "version": version_text(),
        "data_dir": str(data_dir),
        "daemon": daemon,
        "account": None if records.account is None else records.account.as_dict(),
        "current_match": current_match(data_dir, playing),
        "saved_matches": saved_matches(summaries, playing, daemon),
        "last_match": last_match(summaries),
        "totals": totals(summaries),
        "unfinished": sum(s.status == PLAYING for s in summaries),
        "rating": rating_trend(records.ratings),
        "other_accounts": other_accounts(records.account, records.all_ratings, records.all_summaries),
        "unnamed_rating_lines": unnamed_rating_lines(records.all_ratings),
        "net": net_in_use(data_dir),
        "queue": (lambda q: None if q is None else {"labelled": q.labelled, "waiting": q.waiting})(
            queue_counts(data_dir)
        ),
        "last_retrain": _retrain_figures(done[-1]) if done else None,
        "disk": disk_usage(data_dir, daemon),
        "retrain_rounds": retrain_rounds(history),
    }


def _retrain_figures(report: dict) -> dict:
    # reports before the real-life gate measured both nets on the shipped benchmark and against pubeval;
    # since then "candidate" is where a refused candidate is kept (a path), not figures
    inc, cand = earlier_figures(report, "incumbent"), earlier_figures(report, "candidate")
    real = report.get("real_life_choices") or report.get("real_life_benchmark") or {}
    duel = report.get("head_to_head") or {}
    return {
        "finished": report.get("finished"),
        "promoted": bool(report.get("promoted")),
        "version": report.get("version"),
        "labeller": report.get("labeller"),
        "positions": report.get("training_positions"),
        "real_life_before": real.get("incumbent_error"),
        "real_life_after": real.get("candidate_error"),
        "real_life_stderr": real.get("stderr"),
        "real_life_positions": real.get("positions"),
        "real_life_differing": real.get("differing"),
        "ppg_vs_incumbent": duel.get("ppg"),
        "ppg_vs_incumbent_stderr": duel.get("stderr"),
        "error_before": inc.get("error"),
        "error_after": cand.get("error"),
        "ppg_before": inc.get("ppg"),
        "ppg_after": cand.get("ppg"),
        "reason": report.get("reason"),
    }


def is_empty(data_dir: Path) -> bool:
    """Nothing the bot writes is there yet."""
    data_dir = Path(data_dir)
    matches = data_dir / "matches"
    has_matches = matches.is_dir() and any(p.name.endswith(SUFFIX) for p in matches.iterdir())
    return not (
        has_matches
        or (data_dir / "queue.sqlite").exists()
        or (data_dir / "owner").exists()
        or (data_dir / "nets").exists()
    )


def _duration(seconds: int) -> str:
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    return (f"{days}d " if days else "") + f"{hours}h {rest // 60:02d}m"


def _number(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _real_life_name(r: dict) -> str:
    if r.get("real_life_differing") is not None:
        return f"real-life choices ({r['real_life_positions']} decisions, {r['real_life_differing']} differ)"
    return f"real-life benchmark ({r['real_life_positions']} decisions)"


def _figures(net: dict) -> str:
    parts = []
    if "ppg" in net:
        parts.append(
            f"{net['ppg']:+.3f}" + (f" +/- {net['stderr']:.3f}" if "stderr" in net else "") + " ppg vs pubeval"
        )
    if "benchmark_error" in net:
        parts.append(f"benchmark error {net['benchmark_error']:.2f}")
    if "real_life_error" in net:
        name = (
            f"real-life choices ({net['real_life_differing']} of {net.get('real_life_positions', '?')} differ)"
            if "real_life_differing" in net
            else f"real-life benchmark v{net.get('real_life_version', '?')}"
        )
        parts.append(
            f"{name} error {net['real_life_error']:.2f} "
            f"({net.get('real_life_gain', 0):+.2f} +/- {net.get('real_life_stderr', 0):.2f} vs the net it replaced)"
        )
    if "ppg_vs_incumbent" in net:
        parts.append(f"{net['ppg_vs_incumbent']:+.3f} +/- {net.get('ppg_vs_incumbent_stderr', 0):.3f} ppg head to head")
    return ", ".join(parts) or "no measured figures"


def _waiting(match: dict) -> str:
    """Why a saved match waits: for its opponent (logged in or not, who may be refusing games), for a
    daemon to run, or both (``fibsbot.owner.presence``)."""
    return waiting_text(
        match["opponent"],
        match.get("presence"),
        daemon_running=match.get("daemon_running", True),
        refusing=bool(match.get("refusing")),
    )


def _other(account: dict) -> str:
    rating = "" if account.get("rating") is None else f", rating {account['rating']:.2f}"
    return f"{account['label']}: {account['matches']} finished match{'es' if account['matches'] != 1 else ''}{rating}"


def format_status(status: dict) -> str:
    lines = [status.get("version") or version_text(), f"data directory: {status['data_dir']}"]
    daemon = status["daemon"]
    if daemon is None:
        lines.append("daemon: no record of a daemon run here (fibsbot run writes one)")
    elif daemon["running"]:
        lines.append(
            f"daemon: running, pid {daemon['pid']}, up {_duration(daemon.get('uptime_s', 0))}, "
            f"{daemon.get('user')} on {daemon.get('server')}:{daemon.get('port')}, {daemon.get('agent')}"
            + (f"; {connection_text(daemon['connection'])}" if daemon.get("connection") else "")
        )
    else:
        lines.append(
            f"daemon: not running (last started {daemon.get('started')}, "
            f"stopped {daemon.get('stopped') or 'without a clean stop'})"
        )
    account = status.get("account")
    if account:
        where = f" on {account['server']}" if account.get("server") else ""
        lines.append(f"account: {account['user']}{where} (the matches and rating below are this account's)")
    match = status["current_match"]
    if match:
        owner = f", owned by {match['cube_owner']}" if match["cube_owner"] else ""
        lines.append(
            f"current match: vs {match['opponent']}, {match['length']}-point, score "
            f"{match['score'][0]}-{match['score'][1]}, game {match['game']}, cube {match['cube']}{owner}"
        )
    elif status.get("last_match"):
        last = status["last_match"]
        lines.append(
            f"last match: {'won' if last['won'] else 'lost'} {last['score'][0]}-{last['score'][1]} against "
            f"{last['opponent']}, {last['length']}-point, finished {last['ended']}"
        )
    saved = status.get("saved_matches") or []
    for match in saved[:SAVED_SHOWN]:
        lines.append(
            f"saved match: vs {match['opponent']}, {match['length']}-point, score "
            f"{match['score'][0]}-{match['score'][1]}: {_waiting(match)}"
        )
    if len(saved) > SAVED_SHOWN:
        more = len(saved) - SAVED_SHOWN
        lines.append(f"  and {more} more saved match{'es' if more != 1 else ''}")
    t = status["totals"]
    lines.append(
        f"matches: {t['matches']} finished, won {t['won']}, lost {t['lost']}; "
        f"points {t['points_won']} won, {t['points_lost']} lost"
        + (f"; {status['unfinished']} unfinished" if status["unfinished"] else "")
    )
    for length, row in t["by_length"].items():
        name = "unlimited" if length == "0" else f"{length}-point"
        matches = f"{row['matches']} match" + ("es" if row["matches"] != 1 else "")
        lines.append(
            f"  {name:>10}: {matches}, won {row['won']}, lost {row['lost']}, "
            f"points {row['points_won']}-{row['points_lost']}"
        )
    rating = status["rating"]
    lines.append(
        "rating: none seen yet"
        if rating is None
        else f"rating: {rating['rating']:.2f}, experience {rating['experience']} "
        f"({rating['change']:+.2f} and {rating['experience_gained']} experience since {rating['since']})"
    )
    others = status.get("other_accounts") or []
    if others:
        lines.append("other accounts here, kept out of the figures above: " + "; ".join(map(_other, others)))
    if status.get("unnamed_rating_lines"):
        n = status["unnamed_rating_lines"]
        lines.append(
            f"  and {n} rating line{'s' if n != 1 else ''} from before lines named their account (in no account's "
            "figures)"
        )
    net = status["net"]
    when = f", promoted {net['promoted']}" if net.get("promoted") else ""
    lines.append(f"net: {net['source']} {net['version']}{when}: {_figures(net)}")
    queue = status["queue"]
    lines.append(
        "queue: none yet"
        if queue is None
        else f"queue: {queue['labelled'] + queue['waiting']} positions, {queue['waiting']} waiting, "
        f"{queue['labelled']} labelled"
    )
    if status.get("disk"):
        lines.append(disk_line(status["disk"]))
    r = status["last_retrain"]
    if r is None:
        lines.append("last retrain: never")
    else:
        if r["real_life_before"] is not None:
            measured = (
                f"labels by {r['labeller']}, {_real_life_name(r)} error "
                f"{r['real_life_before']:.2f} -> {r['real_life_after']:.2f} +/- {_number(r['real_life_stderr'], '.2f')}"
                + (
                    f", head to head {r['ppg_vs_incumbent']:+.3f} "
                    f"+/- {_number(r['ppg_vs_incumbent_stderr'], '.3f')} ppg"
                    if r["ppg_vs_incumbent"] is not None
                    else ""
                )
            )
        elif r["error_before"] is not None:
            measured = (
                f"benchmark error {_number(r['error_before'], '.2f')} -> {_number(r['error_after'], '.2f')}, "
                f"ppg vs pubeval {_number(r['ppg_before'], '+.3f')} -> {_number(r['ppg_after'], '+.3f')}"
            )
        else:  # nothing measured (nothing new to learn from): why
            measured = r["reason"] or "nothing measured"
        lines.append(
            f"last retrain: {r['finished'] or 'time unknown'}, {r['positions']} positions, {measured}, "
            + (f"promoted as {r['version']}" if r["promoted"] else "not promoted")
        )
    lines.extend(format_retrain_rounds(status.get("retrain_rounds") or []))
    return "\n".join(lines)
