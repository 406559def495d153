"""Learning curves: a training CSV drawn as a PNG."""

from __future__ import annotations

import csv
from pathlib import Path


def plot_progress(csv_path: str | Path, png_path: str | Path | None = None) -> Path:
    """Draw ppg against pubeval (with its error bar) over games played."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # plotting is an optional extra
        raise RuntimeError("plotting needs matplotlib: pip install 'fibsbot[plot]'") from exc
    csv_path = Path(csv_path)
    png_path = Path(png_path) if png_path else csv_path.with_suffix(".png")
    games, ppg, err = [], [], []
    with open(csv_path, newline="") as fh:
        for row in csv.DictReader(fh):
            games.append(int(row["games"]))
            ppg.append(float(row["ppg_vs_pubeval"]))
            err.append(float(row["stderr"]))
    if not games:
        raise RuntimeError(f"{csv_path} has no benchmark rows yet")
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.errorbar(games, ppg, yerr=[2 * e for e in err], marker="o", ms=3, capsize=2, label="net vs pubeval")
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("self-play games")
    ax.set_ylabel("points per game vs pubeval (±2 s.e.)")
    ax.set_title(f"Learning curve: {csv_path.parent.name}")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(png_path)
    plt.close(fig)
    return png_path
