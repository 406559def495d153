"""The bot's matches as ``fibsbot status`` shows them: the one in play, the saved ones, the last one.

A match is in play only while the daemon's process is alive and its state
(``owner/daemon.json``, kept by ``fibsbot.owner.live``) says it plays one: after a
kill, a match saved when its opponent left, or one whose opponent refuses the
invitation to resume it, the journal is unfinished but no match is in play.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from fibsbot.owner.index import MatchSummary
from fibsbot.records.journal import PLAYING, replay


def _in_progress(summaries: list[MatchSummary]) -> MatchSummary | None:
    """The newest unfinished match, unless a match finished after its last action: then the
    daemon has moved on, and it is a saved match waiting for its opponent, not the current one.
    Only for a running daemon that does not say which match it plays (one from before it did)."""
    playing = [s for s in summaries if s.status == PLAYING]
    if not playing:
        return None
    last_finish = max((s.ended for s in summaries if s.finished), default=None)
    newest = playing[-1]
    return newest if last_finish is None or newest.ended >= last_finish else None


def match_in_play(daemon: dict | None, summaries: list[MatchSummary]) -> MatchSummary | None:
    """The match the daemon plays now: none unless its process is alive and it says it is in
    one (a killed daemon, a match saved when its opponent left, or one waiting for them is not)."""
    if daemon is None or not daemon.get("running"):
        return None
    if "match" not in daemon:
        return _in_progress(summaries)
    opponent = (daemon.get("match") or {}).get("opponent")
    playing = [s for s in summaries if s.status == PLAYING and s.opponent == opponent]
    return playing[-1] if opponent and playing else None


def saved_matches(summaries: list[MatchSummary], current: MatchSummary | None, daemon: dict | None) -> list[dict]:
    """Unfinished matches other than the current one, newest first: saved on the server until
    their opponent comes back (a running daemon resumes them then); ``refusing``: the server
    said the opponent is refusing games when the daemon invited them; ``presence``: whether the
    opponent was on the server when the daemon last saw (``fibsbot.owner.presence``), or None."""
    running = bool(daemon and daemon.get("running"))
    refusing = set(daemon.get("refusing") or []) if daemon and running else set()
    presence = (daemon.get("opponents") or {}) if daemon else {}
    saved = [s for s in summaries if s.status == PLAYING and s is not current]
    return [
        {
            "opponent": s.opponent,
            "length": s.length,
            "score": list(s.score),
            "started": s.started,
            "record": s.mat,
            "refusing": s.opponent in refusing,
            "daemon_running": running,
            "presence": presence.get(s.opponent),
        }
        for s in reversed(saved)
    ]


def last_match(summaries: list[MatchSummary]) -> dict | None:
    finished = [s for s in summaries if s.finished]
    if not finished:
        return None
    s = max(finished, key=lambda m: m.ended)
    ended = dt.datetime.fromtimestamp(s.ended).isoformat(timespec="minutes")
    return {"opponent": s.opponent, "length": s.length, "score": list(s.score), "won": s.won, "ended": ended}


def current_match(data_dir: Path, newest: MatchSummary | None) -> dict | None:
    """The match in progress, with the score, cube and game as its journal has them."""
    if newest is None:
        return None
    info = {
        "opponent": newest.opponent,
        "length": newest.length,
        "score": list(newest.score),
        "started": newest.started,
        "record": newest.mat,
        "cube": 1,
        "cube_owner": None,
        "game": newest.games,
    }
    path = Path(data_dir) / "matches" / newest.journal
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        recorder = replay(data["header"], path.with_name(newest.mat), data["actions"]).recorder
    except Exception:  # noqa: BLE001 - a journal being written: the summary's figures stand
        return info
    game = recorder.current_game
    info["score"] = list(recorder.score)
    if game is not None:
        owner = game.cube_owner
        info.update(
            cube=game.cube, cube_owner=None if owner is None else ("us" if owner == 0 else "them"), game=game.number
        )
    return info
