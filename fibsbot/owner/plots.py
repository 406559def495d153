"""The report's pictures: one PNG per question, drawn by matplotlib's Agg backend (no display needed).

Each function takes plain data and a path and returns the file it wrote, or None
when there is nothing to draw.  matplotlib is an optional extra
(``pip install 'fibsbot[report]'``); ``require_matplotlib`` says so in one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


class MissingMatplotlib(RuntimeError):
    pass


def require_matplotlib():
    """pyplot on the Agg backend, or MissingMatplotlib with the way to install it."""
    try:
        import matplotlib
    except ImportError as exc:
        raise MissingMatplotlib("the report needs matplotlib: pip install 'fibsbot[report]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _counted_axis(ax, first: int, last: int) -> None:
    """An x axis that counts (matches, lines): whole numbers from ``first`` to ``last``
    with half a step beside them, so that a single point is not drawn on an axis of
    fractions around it."""
    from matplotlib.ticker import MaxNLocator

    ax.set_xlim(first - 0.5, last + 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))


def _legend_beside(ax) -> None:
    """The legend to the right of the axes, where no point can be: inside them, at the
    upper left, it hid the first point of a run that starts with losses."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="small")


def _marker(points: int) -> str | None:
    return "o" if points < 50 else None  # a few points are seen as points, many as a line


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def results_plot(path: Path, won: Sequence[bool], points: Sequence[tuple[int, int]]) -> Path | None:
    """Running balance of matches won minus lost and of points, match by match, from
    the start (0 matches played), so that even one match draws a line."""
    if not won:
        return None
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(8, 3.2))
    balance, diff, b, d = [0], [0], 0, 0
    for w, (ours, theirs) in zip(won, points):
        b += 1 if w else -1
        d += ours - theirs
        balance.append(b)
        diff.append(d)
    x = range(0, len(won) + 1)
    marker = _marker(len(balance))
    ax.plot(x, balance, label="matches won - lost", color="tab:blue", marker=marker)
    ax.plot(x, diff, label="points won - lost", color="tab:green", marker=marker)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("matches played")
    _counted_axis(ax, 0, len(won))
    ax.set_title(f"Results: {sum(won)} won, {len(won) - sum(won)} lost")
    _legend_beside(ax)
    return _save(fig, path)


def rating_plot(path: Path, lines: Sequence[dict]) -> Path | None:
    """The server's rating (and experience) for our user as it changed."""
    if not lines:
        return None
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(8, 3.2))
    x = range(1, len(lines) + 1)
    ax.plot(x, [r["rating"] for r in lines], color="tab:purple", marker=_marker(len(lines)))
    ax.set_ylabel("rating", color="tab:purple")
    ax.set_xlabel("rating line (as the server reported it)")
    _counted_axis(ax, 1, len(lines))
    other = ax.twinx()
    other.plot(x, [r.get("experience") or 0 for r in lines], color="tab:orange", linestyle="--")
    other.set_ylabel("experience", color="tab:orange")
    ax.set_title(f"Rating {lines[-1]['rating']:.2f}, experience {lines[-1].get('experience')}")
    return _save(fig, path)


def per_match_plot(
    path: Path,
    title: str,
    ylabel: str,
    ours: Sequence[float],
    theirs: Sequence[float],
    names: tuple[str, str] = ("our bot", "opponents"),
) -> Path | None:
    """Two series per analysed match (error rate, luck rate), with their means."""
    if not ours:
        return None
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(8, 3.2))
    x = range(1, len(ours) + 1)
    for values, name, colour in ((ours, names[0], "tab:blue"), (theirs, names[1], "tab:red")):
        mean = sum(values) / len(values)
        ax.plot(x, values, marker="o", markersize=3, color=colour, label=f"{name} (mean {mean:.1f})")
        ax.axhline(mean, color=colour, linewidth=0.8, linestyle=":")
    ax.set_xlabel("analysed match")
    _counted_axis(ax, 1, len(ours))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    _legend_beside(ax)
    return _save(fig, path)


def queue_plot(path: Path, growth: Sequence[tuple[str, int]]) -> Path | None:
    """Positions in the training queue, day by day."""
    if not growth:
        return None
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(8, 3.2))
    total, running = 0, []
    for _, n in growth:
        total += n
        running.append(total)
    days = [day for day, _ in growth]
    ax.bar(days, [n for _, n in growth], color="tab:grey", label="added that day")
    ax.plot(days, running, color="tab:blue", marker="o", label="total")
    ax.set_title(f"Training queue: {total} positions")
    _legend_beside(ax)
    ax.tick_params(axis="x", labelrotation=30)
    return _save(fig, path)


def promotions_plot(path: Path, promotions: Sequence[dict]) -> Path | None:
    """Each promoted net's measured strength against pubeval, with two standard errors."""
    measured = [p for p in promotions if "ppg" in p]
    if not measured:
        return None
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(8, 3.2))
    x = range(1, len(measured) + 1)
    ax.errorbar(
        x,
        [p["ppg"] for p in measured],
        yerr=[2 * p.get("stderr", 0.0) for p in measured],
        fmt="o-",
        color="tab:green",
        capsize=4,
    )
    ax.set_xticks(list(x), [p["version"][:15] for p in measured], rotation=20, fontsize=7)
    ax.set_ylabel("ppg vs pubeval")
    ax.set_title("Net promotions: strength against pubeval (+/- 2 s.e.)")
    return _save(fig, path)
