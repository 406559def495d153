"""Checks that an engine part agrees with GNU Backgammon or holds what it promises (pruning, determinism,
reconnecting), and the benchmark table."""
