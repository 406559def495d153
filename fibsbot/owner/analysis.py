"""gnubg-style analysis of a recorded match by our engine.

For every move: the best move at the analysis depth, the played one evaluated at
the same depth, the equity lost; for every roll the luck (0-ply, like gnubg's
default: the best result of this roll against the average over all 36); for every
cube decision (each turn where the roller could have doubled, each double, take
and drop) the proper action from the cubeful equities at the analysis depth
(``engine.cube.cubeful``), and what the action played cost.

Errors are in gnubg's units: equity normalised to the cube in play (EMG in match
play), and their cost in match winning chances (``cost``; points in money play),
converted as gnubg's ``eq2mwc`` does.  Moves are ranked as the bot ranks them, by
cubeful equity at the score and cube (``Agent.choose_move``); the luck of a roll
is read at 0-ply with the score's gammon values (``engine.players.agent.gammon_weights``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

import numpy as np

from engine.cube.met import CubeView, equity_to_mwc
from engine.eval.static import WON as WON_DEPTH
from engine.players.agent import Agent, gammon_weights
from engine.rules.dice import DISTINCT_ROLLS, ROLL_WEIGHTS
from engine.rules.ids import CENTRED, MatchState, match_id, position_id
from engine.rules.notation import format_gnubg
from fibsbot.owner.matread import MatMatch
from fibsbot.owner.replay import Turn, replay_turns
from fibsbot.owner.stats import PlayerStats, luck_mark, skill_mark


@dataclass
class Decision:
    """One analysed decision of ``player``; ``loss`` >= 0 is what the played choice gave up."""

    game: int
    number: int
    player: int
    kind: str  # move, double (to double or not), take (to take or drop)
    position_id: str
    match_id: str
    played: str
    best: str
    loss: float  # EMG (normalised equity)
    cost: float  # match winning chances (points in money play)
    mark: str
    dice: tuple[int, int] | None = None
    unforced: bool = True
    close: bool = True  # cube decisions: close or actual, as gnubg counts them
    luck: float | None = None
    luck_cost: float | None = None
    luck_mark: str = ""
    equities: dict = field(default_factory=dict)


@dataclass
class MatchAnalysis:
    file: str
    players: tuple[str, str]
    length: int
    final_score: tuple[int, int]
    ply: int
    net: str
    decisions: list[Decision]
    stats: tuple[PlayerStats, PlayerStats]

    def as_dict(self) -> dict:
        return {
            "file": self.file,
            "players": list(self.players),
            "length": self.length,
            "final_score": list(self.final_score),
            "ply": self.ply,
            "net": self.net,
            "stats": [s.as_dict() for s in self.stats],
            "decisions": [asdict(d) for d in self.decisions],
        }


def mirrored(state: MatchState, player: int) -> MatchState:
    """The state seen with ``player`` as player 0 (the engine's agent is always player 0)."""
    if player == 0:
        return state
    owner = state.cube_owner if state.cube_owner == CENTRED else 1 - state.cube_owner
    assert state.to_decide is not None  # MatchState.__post_init__ fills it from on_roll
    return replace(
        state, cube_owner=owner, on_roll=1 - state.on_roll, to_decide=1 - state.to_decide, score=state.score[::-1]
    )


def cost_of(loss: float, state: MatchState, player: int) -> float:
    """gnubg's ``eq2mwc(loss) - eq2mwc(0)`` for ``player``; the loss times the cube in money play."""
    if state.is_money:
        return loss * state.cube
    view = CubeView.of(state, player)
    return equity_to_mwc(loss, view) - equity_to_mwc(0.0, view)


class Analyser:
    def __init__(self, agent: Agent, ply: int) -> None:
        self.agent = agent
        self.ply = ply

    # ------------------------------------------------------------------ moves and luck

    def _best0(self, view: np.ndarray, d1: int, d2: int, weights) -> float:
        return self.agent.rank_moves(view, d1, d2, ply=0, weights=weights)[0].equity

    def luck(self, turn: Turn) -> float:
        """gnubg's LuckNormal / LuckFirst at 0-ply for the roll of ``turn``."""
        weights = gammon_weights(mirrored(turn.state, turn.player))
        assert turn.dice is not None  # replay_turns gives every move its roll
        d1, d2 = turn.dice
        actual = self._best0(turn.board, d1, d2, weights)
        if turn.opening and d1 != d2:
            # the opening roll decides who moves: half the outcomes are the opponent's
            theirs = gammon_weights(mirrored(turn.state, 1 - turn.player))
            outcomes = [self._best0(turn.board, int(a), int(b), weights) for a, b in DISTINCT_ROLLS if a != b]
            outcomes += [
                -self._best0(np.ascontiguousarray(turn.board[::-1]), int(a), int(b), theirs)
                for a, b in DISTINCT_ROLLS
                if a != b
            ]
            return actual - sum(outcomes) / len(outcomes)
        mean = sum(
            w * self._best0(turn.board, int(a), int(b), weights) for (a, b), w in zip(DISTINCT_ROLLS, ROLL_WEIGHTS)
        )
        return actual - float(mean)

    def _played_equity(self, ranked, index: int, state: MatchState) -> float:
        """The played move at the depth of the best one (the filters may have dropped it earlier)."""
        best, played = ranked[0], ranked[index]
        if played.ply >= best.ply or best.ply == WON_DEPTH:
            return played.equity
        return self.agent.move_equity(played.board, state, best.ply)

    def move(self, turn: Turn) -> Decision:
        """The played move against the engine's choice, ranked as the bot ranks moves:
        by cubeful equity at the score and cube (``Agent.choose_move``)."""
        state = replace(mirrored(turn.state, turn.player), on_roll=0)
        assert turn.dice is not None and turn.result is not None  # replay_turns sets both for a move
        d1, d2 = turn.dice
        ranked = list(self.agent.choose_move(turn.board, d1, d2, state).ranked)
        index = next(i for i, r in enumerate(ranked) if np.array_equal(r.board, turn.result))
        loss = max(0.0, ranked[0].equity - self._played_equity(ranked, index, state)) if index else 0.0
        luck = self.luck(turn)
        unforced = turn.legal > 1
        return Decision(
            turn.game,
            turn.number,
            turn.player,
            "move",
            position_id(turn.board),
            match_id(turn.state),
            format_gnubg(turn.board, turn.steps) or "(no move)",
            format_gnubg(turn.board, ranked[0].steps) or "(no move)",
            loss,
            cost_of(loss, turn.state, turn.player),
            skill_mark(loss) if unforced else "",
            dice=(d1, d2),
            unforced=unforced,
            close=False,
            luck=luck,
            luck_cost=cost_of(luck, turn.state, turn.player),
            luck_mark=luck_mark(luck),
            equities={"best": ranked[0].equity, "played": ranked[0].equity - loss},
        )

    # ------------------------------------------------------------------ the cube

    def cube(self, doubler_board: np.ndarray, state: MatchState):
        """The doubler's cube decision (``state.on_roll`` doubles, its checkers in row 0),
        cubeful at the agent's depth as the bot decides."""
        decision, _probs, _depth = self.agent.cube_decision(
            doubler_board, replace(state, to_decide=state.on_roll, doubled=False, dice=(0, 0))
        )
        return decision

    def cube_turn(self, turn: Turn, decision) -> Decision:
        eq = decision.equities
        nd, dt, dp = eq["no_double"], eq["double_take"], eq["double_drop"]
        doubled = min(dt, dp)
        optimal = max(nd, doubled) if decision.may_double else nd
        state = turn.state
        if turn.kind in ("take", "drop"):
            take_loss, drop_loss = max(0.0, dt - dp), max(0.0, dp - dt)  # the taker's equities are -DT, -DP
            loss = take_loss if turn.kind == "take" else drop_loss
            played, best, close, kind = turn.kind, "take" if dt <= dp else "drop", True, "take"
            board = turn.board[::-1]
        else:
            loss = max(0.0, optimal - (doubled if turn.kind == "double" else nd))
            played = "double" if turn.kind == "double" else "no double"
            best = decision.action
            close = turn.kind == "double" or optimal - min(dt, 1.0) < 0.16  # gnubg's isCloseCubedecision
            kind, board = "double", turn.board
        return Decision(
            turn.game,
            turn.number,
            turn.player,
            kind,
            position_id(np.ascontiguousarray(board)),
            match_id(replace(state, dice=(0, 0))),
            played,
            best,
            loss,
            cost_of(loss, state, turn.player),
            skill_mark(loss),
            unforced=True,
            close=close,
            equities=dict(eq),
        )

    # ------------------------------------------------------------------ a whole match

    def analyse(self, match: MatMatch) -> MatchAnalysis:
        decisions: list[Decision] = []
        pending = None  # the cube decision of the double awaiting its answer
        for turn in replay_turns(match):
            if turn.kind == "move":
                if turn.cube_available:
                    state = replace(turn.state, dice=(0, 0))
                    decisions.append(
                        self.cube_turn(replace(turn, kind="roll", state=state), self.cube(turn.board, state))
                    )
                decisions.append(self.move(turn))
            elif turn.kind == "double":
                pending = self.cube(turn.board, turn.state)
                decisions.append(self.cube_turn(turn, pending))
            else:
                decision = pending or self.cube(np.ascontiguousarray(turn.board[::-1]), turn.state)
                decisions.append(self.cube_turn(turn, decision))
                pending = None
        first, second = (
            PlayerStats.of(name, [d for d in decisions if d.player == k]) for k, name in enumerate(match.players)
        )
        return MatchAnalysis(
            str(match.path or ""),
            match.players,
            match.length,
            match.final_score,
            self.ply,
            self.agent.name,
            decisions,
            (first, second),
        )
