"""FIBS ratings: how a finished match moves both players' rating and experience.

FIBS's own ``help formula``, for an n-point match between players rated r1 and r2:

- D = |r1 - r2|; the underdog wins with P_upset = 1 / (10^(D*sqrt(n)/2000) + 1);
- P = P_upset when the favourite wins, 1 - P_upset when the underdog wins;
- each player's K = max(1, 5 - experience/100), from their own experience before
  the match, so a new player's rating moves up to five times as fast until 400;
- the winner gains 4*K*sqrt(n)*P, the loser loses 4*K*sqrt(n)*P (their own K);
- experience is the sum of the lengths of the matches a player finished.

Unlimited matches are not rated (the formula needs a length).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FULL_EXPERIENCE = 400  # from here on K is 1


@dataclass(frozen=True)
class RatingChange:
    """What one match did to the winner's and the loser's rating (the loss is positive)."""

    gained: float
    lost: float


def winners_upset_chance(winner_rating: float, loser_rating: float, length: int) -> float:
    """P of the formula: the chance the formula gave the winner of losing this match.

    With the signed difference, one expression covers both cases: a favourite's win
    gets P_upset, an underdog's win 1 - P_upset.
    """
    difference = winner_rating - loser_rating
    return 1.0 / (10.0 ** (difference * math.sqrt(length) / 2000.0) + 1.0)


def experience_factor(experience: int) -> float:
    """K: 5 for a new player, falling by 1 every 100 points of experience, never below 1."""
    return max(1.0, 5.0 - experience / 100.0)


def rating_change(
    winner_rating: float, winner_experience: int, loser_rating: float, loser_experience: int, length: int
) -> RatingChange:
    """The formula's two changes for a finished ``length``-point match."""
    if length < 1:
        return RatingChange(0.0, 0.0)
    stake = 4.0 * math.sqrt(length) * winners_upset_chance(winner_rating, loser_rating, length)
    return RatingChange(stake * experience_factor(winner_experience), stake * experience_factor(loser_experience))
