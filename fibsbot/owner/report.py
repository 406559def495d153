"""``fibsbot report``: one static HTML page with pictures, from a data directory.

The page (``OUT/index.html`` and its PNGs beside it) opens from disk in any
browser.  Error rates and luck come from kept analyses (``fibsbot analyse``);
the report analyses the newest few finished matches that have none yet.  In our
own records player 0 (the left column) is always the bot.
"""

from __future__ import annotations

import datetime as dt
import html
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from fibsbot.owner.analysis import Analyser, Decision, MatchAnalysis
from fibsbot.owner.analysis_io import load_analyses, save_analysis
from fibsbot.owner.index import MatchIndex
from fibsbot.owner.matread import MatFileError, read_mat
from fibsbot.owner.plots import (
    per_match_plot,
    promotions_plot,
    queue_plot,
    rating_plot,
    require_matplotlib,
    results_plot,
)
from fibsbot.owner.readers import promotions, queue_growth
from fibsbot.owner.rounds import round_figures, round_labelled, round_verdict, round_when
from fibsbot.owner.status import account_records, collect_status, format_status

log = structlog.get_logger("fibsbot.owner")
WORST_OURS, WORST_THEIRS = 15, 10
# the table shows equity lost to three places: a smaller loss would be listed as 0.000
LEAST_LISTED_LOSS = 0.0005


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def progress_to_stderr(text: str) -> None:
    """Progress of a slow step (analysing at 2-ply takes seconds a match), on stderr so that
    stdout keeps the command's one line of result."""
    print(text, file=sys.stderr, flush=True)


@dataclass
class ReportResult:
    page: Path
    images: list[Path] = field(default_factory=list)
    analysed: int = 0
    skipped: list[str] = field(default_factory=list)


def analyse_missing(
    data_dir: Path,
    limit: int,
    ply: int,
    net: str,
    known: dict[str, MatchAnalysis],
    result: ReportResult,
    progress: Callable[[str], None] = progress_to_stderr,
    among: set[str] | None = None,
) -> None:
    """Analyse up to ``limit`` of the newest finished matches (of ``among``, records' names, when
    given) that have no kept analysis, saying which match it is at."""
    if limit <= 0:
        return
    summaries = [s for s in MatchIndex(data_dir).summaries() if among is None or s.mat in among]
    missing = [s for s in summaries if s.finished and s.mat not in known][-limit:]
    if not missing:
        return
    from nets.player import load_agent

    count = plural(len(missing), "match", "matches")
    progress(f"report: analysing {count} not analysed yet, at {ply}-ply by net:{net}")
    start = time.perf_counter()
    analyser = Analyser(load_agent(f"net:{net}", ply=ply), ply)
    for number, summary in enumerate(missing, 1):
        progress(f"analysing {number}/{len(missing)} matches: {summary.mat} ({time.perf_counter() - start:.0f} s)")
        try:
            analysis = analyser.analyse(read_mat(Path(data_dir) / "matches" / summary.mat))
        except (MatFileError, ValueError) as exc:
            result.skipped.append(f"{summary.mat}: {exc}")
            log.warning("report_analysis_skipped", record=summary.mat, reason=str(exc))
            continue
        save_analysis(data_dir, analysis)
        known[summary.mat] = analysis
        result.analysed += 1
    progress(f"report: analysed {plural(result.analysed, 'match', 'matches')} in {time.perf_counter() - start:.0f} s")


def _decision_rows(items: list[tuple[MatchAnalysis, Decision]], match_play_units: bool, analysed: int) -> str:
    rows = []
    for analysis, d in items:
        dice = f"{d.dice[0]}{d.dice[1]}" if d.dice else ""
        cost = f"{100 * d.cost:.2f}%" if analysis.length else f"{d.cost:.3f}"
        cells = [
            Path(analysis.file).stem[:22],
            f"{d.game}.{d.number}",
            analysis.players[d.player],
            d.kind,
            dice,
            d.played,
            d.best,
            f"{d.loss:.3f}",
            cost,
            d.mark,
            f"{d.position_id}:{d.match_id}",
        ]
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    head = [
        "match",
        "game.move",
        "player",
        "decision",
        "roll",
        "played",
        "best",
        "equity lost",
        "MWC lost" if match_play_units else "cost",
        "mark",
        "Position ID:Match ID (paste into gnubg)",
    ]
    return (
        "<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>"
        if rows
        else "<p>No decision here lost equity in the analysed matches.</p>"
        if analysed
        else "<p>No analysed decisions yet: run <code>fibsbot analyse</code> on the matches.</p>"
    )


def _worst(analyses: list[MatchAnalysis], ours: bool, count: int) -> list[tuple[MatchAnalysis, Decision]]:
    found = [(a, d) for a in analyses for d in a.decisions if (d.player == 0) == ours and d.loss >= LEAST_LISTED_LOSS]
    return sorted(found, key=lambda item: (item[1].cost, item[1].loss), reverse=True)[:count]


def _rounds_table(rounds: list[dict]) -> str:
    """Every retrain round, oldest first: when, what it labelled, the gate's figures with
    their standard errors, and its verdict."""
    if not rounds:
        return "<p>No retrain yet: <code>fibsbot retrain</code> (or its timer) writes each round here.</p>"
    head = ["round", "finished", "labelled", "the gate's figures (candidate against incumbent, +/- 1 s.e.)", "verdict"]
    rows = []
    for r in rounds:
        figures = "<br>".join(html.escape(part) for part in round_figures(r)) or "-"
        cells = [
            html.escape(str(r["round"])),
            html.escape(round_when(r)),
            "-" if r.get("failed") else html.escape(round_labelled(r)),
            figures,
            html.escape(round_verdict(r)),
        ]
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    return "<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>"


def build_report(
    data_dir: Path,
    out_dir: Path,
    *,
    analyse: int = 5,
    ply: int = 2,
    net: str = "default",
    progress: Callable[[str], None] = progress_to_stderr,
) -> ReportResult:
    require_matplotlib()  # fail before any work
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = ReportResult(out_dir / "index.html")
    status = collect_status(data_dir)
    records = account_records(data_dir)  # the account in use: another account's matches and rating stay out
    finished = [s for s in records.summaries if s.finished]
    known = load_analyses(data_dir)
    analyse_missing(data_dir, analyse, ply, net, known, result, progress, {s.mat for s in finished})
    order = {s.mat: k for k, s in enumerate(finished)}
    others = {s.mat for s in records.all_summaries} - set(order)
    analyses = sorted(
        (a for a in known.values() if Path(a.file).name not in others),
        key=lambda a: (order.get(Path(a.file).name, len(order)), a.file),
    )

    pictures = [
        (
            "Results over time",
            results_plot(out_dir / "results.png", [s.won for s in finished], [s.score for s in finished]),
        ),
        (
            "Rating on the server" + (f" ({records.account.label})" if records.account else ""),
            rating_plot(out_dir / "rating.png", records.ratings),
        ),
        (
            "Error rate per analysed match",
            per_match_plot(
                out_dir / "errors.png",
                "Error rate per match (overall, mEMG per decision)",
                "mEMG",
                [a.stats[0].overall_rate for a in analyses],
                [a.stats[1].overall_rate for a in analyses],
            ),
        ),
        (
            "Luck per analysed match",
            per_match_plot(
                out_dir / "luck.png",
                "Luck per match (mEMG per roll, 0-ply)",
                "mEMG",
                [a.stats[0].luck_rate for a in analyses],
                [a.stats[1].luck_rate for a in analyses],
            ),
        ),
        ("Training queue", queue_plot(out_dir / "queue.png", queue_growth(data_dir))),
        ("Net promotions", promotions_plot(out_dir / "promotions.png", promotions(data_dir))),
    ]
    result.images = [p for _, p in pictures if p is not None]
    sections = []
    for title, picture in pictures:
        body = (
            f'<img src="{picture.name}" alt="{html.escape(title)}">'
            if picture is not None
            else "<p class=none>Nothing to draw yet.</p>"
        )
        sections.append(f"<section><h2>{html.escape(title)}</h2>{body}</section>")
    match_play = any(a.length for a in analyses)
    depth = sorted({f"{a.ply}-ply" for a in analyses})
    page = _PAGE.format(
        generated=dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        data_dir=html.escape(str(data_dir)),
        status=html.escape(format_status(status)),
        sections="\n".join(sections),
        analysed=plural(len(analyses), "match", "matches"),
        depth=", ".join(depth) or "-",
        ours=_decision_rows(_worst(analyses, True, WORST_OURS), match_play, len(analyses)),
        theirs=_decision_rows(_worst(analyses, False, WORST_THEIRS), match_play, len(analyses)),
        rounds=_rounds_table(status["retrain_rounds"]),
    )
    result.page.write_text(page, encoding="utf-8")
    return result


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>fibsbot report</title>
<style>
body {{ font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }}
pre {{ background: #f4f4f4; padding: 1em; white-space: pre-wrap; }}
img {{ max-width: 100%; border: 1px solid #ddd; }}
table {{ border-collapse: collapse; font-size: 0.8em; }}
td, th {{ border: 1px solid #ccc; padding: 2px 6px; text-align: left; }}
td:last-child {{ font-family: monospace; }}
.none {{ color: #888; }}
</style></head><body>
<h1>fibsbot report</h1>
<p>Generated {generated} from <code>{data_dir}</code>.</p>
<h2>Status</h2>
<pre>{status}</pre>
{sections}
<h2>Retrain rounds</h2>
{rounds}
<h2>Our worst decisions</h2>
<p>{analysed} analysed ({depth}); equity lost is normalised to the cube (EMG), MWC lost the match
winning chances given away.
Paste the Position ID and Match ID into GNU Backgammon (Edit, Paste) to see the position.</p>
{ours}
<h2>The opponents' worst decisions</h2>
{theirs}
</body></html>
"""
