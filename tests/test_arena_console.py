"""`fibsbot arena` shows its bot's console lines, as the daemon does."""

from __future__ import annotations

import io

from fibsbot.arena.play import BOT, run_arena
from fibsbot.console import Console


async def test_the_arena_console_tells_each_match_and_the_rating_moves(tmp_path):
    out = io.StringIO()
    console = Console(BOT, out, timestamps=False, colours=False)
    result = await run_arena(length=1, matches=2, ply=0, data_dir=tmp_path, seed=3, warmup=False, console=console)
    assert result.matches == 2 and result.stuck == 0
    said = [line.split("] ", 1)[1] for line in out.getvalue().splitlines()]
    assert said[:4] == [
        said[0],  # connecting to the arena's port
        "logged in as fibsbot",
        "rating 1500.00, experience 0",
        "invitation from sparring to a 1-point match: accepted",
    ] and said[0].startswith("connecting to 127.0.0.1:")
    assert said.count("match start: a 1-point match with sparring (we joined their invitation)") == 2
    ends = [line for line in said if line.startswith(("match won", "match lost"))]
    assert len(ends) == 2 and result.won == sum(line.startswith("match won") for line in ends)
    ratings = [line for line in said if line.startswith("rating ")]
    assert len(ratings) == 3 and ratings[-1].endswith("experience 2")  # FIBS's formula moved it twice
    assert said[-1] == "logged out (fibsbot)"
