"""The engine's face to the outside: every decision a player takes in a match.

Boards passed in are seen from the agent's side: row 0 = the agent ("us"), row 1 =
the opponent, each row in its owner's numbering.  Match states (``engine.rules.ids``)
name the agent player 0.  The agent converts to "side on roll" views internally.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from engine.cube.cubeful import CubefulTree, move_equities
from engine.cube.decision import CubeDecision, cube_decision, cube_life, decide, invert_probabilities, may_double
from engine.eval.eval_sets import won_probs as won_probabilities
from engine.eval.evaluator import Evaluator
from engine.eval.static import WON, evaluate_static, probabilities_interpreted, rank_interpreted, rank_static
from engine.players.choices import CubeChoice, DeeperLook, MoveChoice, RankedMove, SelfPlayScratch
from engine.players.table import Budget, cube_equities_for, rerank
from engine.rules.boards import kernel_board
from engine.rules.ids import MatchState
from engine.rules.moves import MAX_RESULTS, MoveBuffers, generate_moves, result_index, steps_to_move
from engine.search.context import cache_stats, clear_cache, make_context
from engine.search.nply import evaluate_at, rank_candidates, root_choose, search_choose

DEFAULT_FILTERS = (12, 0.24, 6, 0.12)  # 1-ply: 12 within 0.24; 2-ply: 6 within 0.12
MONEY_WEIGHTS = (1.0, 1.0, 1.0, 1.0)


class Agent:
    """An evaluator searched to ``ply`` with move filters; one per thread.

    ``search_ready`` (a flag, or a callable asked before each decision until it says
    yes) tells whether the compiled kernels may be used (``fibsbot.warmup`` compiles
    them elsewhere): while it says no, every decision is taken at 0-ply by
    ``engine.eval.static``'s interpreted path, which compiles nothing, and the figures say
    so (``ply`` 0).  A 0-ply decision never needs the search kernels.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        ply: int = 0,
        filters=DEFAULT_FILTERS,
        name: str | None = None,
        prune: bool = True,
        search_ready: bool | Callable[[], bool] = True,
        think: float = 0.0,
        look: DeeperLook | None = None,
        workers: int = 1,
    ):
        if ply not in (0, 1, 2):
            raise ValueError(f"ply must be 0, 1 or 2, got {ply}")
        if think < 0:
            raise ValueError(f"think must be 0 or more seconds, got {think}")
        if workers < 1:
            raise ValueError(f"workers must be 1 or more, got {workers}")
        self.evaluator = evaluator
        self.ply = ply
        # the table level when above 0: its deeper look is bounded by work, and this many seconds
        # into a decision is only the safety cap that stops a look running far too long
        self.think = think
        self.look = look  # a deeper look of its own at close decisions in a match, instead of 3-ply
        self.search_ready = search_ready
        self.name = name or f"net:{evaluator.name}@{ply}"
        self.filters = np.array(filters, dtype=np.float64)
        self.ctx = make_context(evaluator, prune=prune)
        self.workers = workers  # threads of the cubeful lookahead (the table level's deeper looks)
        self._prune = prune
        self._root = MoveBuffers()
        self._buf1 = MoveBuffers()
        self._buf2 = MoveBuffers()
        self._equities = np.zeros(MAX_RESULTS, np.float64)
        self._probs = np.zeros((MAX_RESULTS, 5), np.float32)
        self._plies = np.zeros(MAX_RESULTS, np.int64)
        self._ply_array = np.array([ply], np.int64)
        self._tree: CubefulTree | None = None

    @property
    def tree(self) -> CubefulTree:
        """The cubeful lookahead over this agent's context (built on first use)."""
        if self._tree is None:
            helpers = tuple(make_context(self.evaluator, prune=self._prune) for _ in range(self.workers - 1))
            self._tree = CubefulTree(self.ctx, helpers)
        return self._tree

    def self_play_scratch(self) -> tuple:  # a SelfPlayScratch, spread into a kernel's arguments
        return SelfPlayScratch(
            self.filters,
            np.ones(4),
            MoveBuffers().args(),
            self._buf2.args(),
            self._buf1.args(),
            self._equities,
            self._probs,
            self._plies,
        )

    # --- duels -------------------------------------------------------------------

    @property
    def kernel(self) -> tuple | None:
        """The duel kernel of a plain search; None at the table level, whose deeper
        look runs in Python (``choose`` then plays it)."""
        if self.think > 0:
            return None
        return (
            root_choose if self.ply == 0 else search_choose,
            (
                self.ctx,
                self._ply_array,
                self.filters,
                np.array(MONEY_WEIGHTS),
                self._buf2.args(),
                self._buf1.args(),
                self._equities,
                self._probs,
                self._plies,
            ),
        )

    def choose(self, board, d1, d2, candidates) -> int:
        if self.kernel is None:
            after = self.choose_move(board, d1, d2).board
            return result_index(candidates, after)
        fn, params = self.kernel
        return int(fn(params, board, len(candidates), np.ascontiguousarray(candidates)))

    def clear_cache(self) -> None:
        clear_cache(self.ctx)

    def cache_stats(self) -> dict:
        """The position cache's lookups, hits and hit rate since it was last cleared."""
        return cache_stats(self.ctx)

    def searching(self) -> bool:
        """Whether the compiled kernels may be used now (once yes, always yes)."""
        ready = self.search_ready
        if callable(ready):
            ready = bool(ready())
            if ready:
                self.search_ready = True
        return bool(ready)

    @property
    def depth(self) -> int:
        """The depth the next decision is taken at: ``ply``, or 0 while the kernels are not ready."""
        return self.ply if self.ply == 0 or self.searching() else 0

    # --- evaluation ----------------------------------------------------------------

    def probabilities(self, board: np.ndarray, ply: int | None = None) -> np.ndarray:
        """Five probabilities for the side in row 0, which is about to roll."""
        ply = self.depth if ply is None else ply
        out = np.zeros(5, np.float32)
        board = kernel_board(board)
        if not self.searching():
            probabilities_interpreted(self.ctx, board, out)
            return out.astype(np.float64)
        if ply == 0:
            evaluate_static(self.ctx, board, out)  # the figures of evaluate_at at 0-ply, without its cache
            return out.astype(np.float64)
        evaluate_at(self.ctx, board, ply, self._buf2.args(), self._buf1.args(), out)
        return out.astype(np.float64)

    def rank_moves(
        self, board: np.ndarray, d1: int, d2: int, ply: int | None = None, weights=MONEY_WEIGHTS
    ) -> list[RankedMove]:
        """Every legal move, best first, for the side in row 0 with dice (d1, d2)."""
        ply = self.ply if ply is None else ply
        board = kernel_board(board)
        n = generate_moves(board, d1, d2, *self._root.args())
        if not self.searching():
            return self._ranked_static(n, weights)
        boards = self._root.boards
        rank_candidates(
            self.ctx,
            boards,
            n,
            ply,
            self.filters,
            np.asarray(weights, np.float64),
            self._buf2.args(),
            self._buf1.args(),
            self._equities,
            self._probs,
            self._plies,
        )
        return self._ranked(n, np.minimum(self._plies[:n], ply))

    def _ranked_static(self, n: int, weights) -> list[RankedMove]:
        """The root buffers' ``n`` results ranked at 0-ply without the search kernels
        (interpreted, compiling nothing, until ``search_ready``)."""
        rank = rank_static if self.searching() else rank_interpreted
        rank(self.ctx, self._root.boards, n, np.asarray(weights, np.float64), self._equities, self._probs, self._plies)
        return self._ranked(n, np.minimum(self._plies[:n], 0))  # 0, or PRUNED (last)

    def _ranked(self, n: int, plies: np.ndarray) -> list[RankedMove]:
        """The root buffers' ``n`` results with their figures, each at depth ``plies[i]``: a
        winning move first, then deepest first, then by equity (a shallow figure never
        outranks a deeper one)."""
        won = self._plies[:n] == WON
        order = sorted(range(n), key=lambda i: (not won[i], -plies[i], -self._equities[i]))
        return [
            RankedMove(
                steps_to_move(self._root.steps[i]),
                self._root.boards[i].copy(),
                float(self._equities[i]),
                tuple(float(p) for p in self._probs[i]),
                int(plies[i]),
            )
            for i in order
        ]

    # --- decisions -------------------------------------------------------------------

    def choose_move(self, board, d1: int, d2: int, state: MatchState | None = None) -> MoveChoice:
        """The move to play; ``MoveChoice.ply`` is the depth that decided it.  With a
        ``state`` (us, player 0, on roll) the moves are ranked by cubeful equity at
        the score and cube (``engine.players.table``), else by cubeless money equity."""
        budget = Budget.starting(self.think)
        weights = gammon_weights(state)
        if self.depth == 0:
            board = kernel_board(board)
            ranked = self._ranked_static(generate_moves(board, d1, d2, *self._root.args()), weights)
            if state is not None and self.searching():
                ranked = rerank(self.tree, ranked, replace(state, on_roll=0), None)
            best = ranked[0]
            return MoveChoice(
                best.steps, best.board, best.equity, best.probs, 0, best.steps, best.equity, tuple(ranked)
            )
        ranked = self.rank_moves(board, d1, d2, weights=weights)
        if state is not None and self.look is not None:
            ours = replace(state, on_roll=0)
            ranked = rerank(self.tree, ranked, ours, None)
            if ranked[0].ply != WON:
                top = [move for move in ranked if move.ply == ranked[0].ply]
                ranked = self.look.rank_moves(self, top, ours) + ranked[len(top) :]
        elif state is not None or self.think > 0:
            ranked = rerank(self.tree, ranked, state and replace(state, on_roll=0), budget)
        best = ranked[0]
        # the root buffers still hold this roll's results: the static choice among them
        i = rank_candidates(
            self.ctx,
            self._root.boards,
            len(ranked),
            0,
            self.filters,
            np.asarray(weights, np.float64),
            self._buf2.args(),
            self._buf1.args(),
            self._equities,
            self._probs,
            self._plies,
        )
        ply0_steps, ply0_equity = steps_to_move(self._root.steps[i]), float(self._equities[i])
        return MoveChoice(
            best.steps, best.board, best.equity, best.probs, best.ply, ply0_steps, ply0_equity, tuple(ranked)
        )

    def double_decision(self, board, state: MatchState) -> CubeChoice:
        """We (player 0, row 0) are on roll before rolling: double or roll?"""
        state = replace(state, on_roll=0, to_decide=0)
        if not may_double(state):
            return CubeChoice("no double", double=False)
        return self._cube_choice(board, state)

    def take_decision(self, board, state: MatchState) -> CubeChoice:
        """The opponent (player 1) doubled us: take or drop?"""
        return self._cube_choice(board[::-1], replace(state, on_roll=1, to_decide=1, doubled=False))

    def cube_decision(self, board, state: MatchState) -> tuple[CubeDecision, np.ndarray, int]:
        """The cube decision of ``state.on_roll``, whose checkers are row 0 of ``board``
        (before any double): cubeful at the agent's depth, with its 0-ply
        probabilities and the depth of the equities."""
        board = kernel_board(board)
        if not self.searching():
            probs = self.probabilities(board)
            return cube_decision(probs, state, cube_life=cube_life(board)), probs, 0
        probs = self.probabilities(board, 0)
        if self.look is not None:
            equities, depth = cube_equities_for(self.tree, board, probs, state, self.depth)
            equities = self.look.cube_equities(self, board, state, equities)
        else:
            equities, depth = cube_equities_for(self.tree, board, probs, state, self.depth, deeper=self.think > 0)
        return decide(equities, state, can_win_gammon=float(probs[1]) > 0.0, cube_life=cube_life(board)), probs, depth

    def move_equity(self, after: np.ndarray, state: MatchState, ply: int) -> float:
        """The mover's cubeful equity of one post-move board (mover, ``state.on_roll``,
        in row 0), ``ply`` deep, as ``choose_move`` ranks moves at a score."""
        after = kernel_board(after)
        if after[0].sum() == 0:  # the mover has borne off: the game is over, its result exact
            mover = np.zeros(5, np.float32)
            won_probabilities(after, mover)
        else:
            mover = invert_probabilities(self.probabilities(after[::-1], 0))
        return float(move_equities(self.tree, after[None], mover[None], state, ply)[0])

    def _cube_choice(self, board, state: MatchState) -> CubeChoice:
        """The cube decision of ``state.on_roll``, whose checkers are row 0 of ``board``."""
        dec, probs, depth = self.cube_decision(board, state)
        return CubeChoice(
            dec.action,
            double=dec.double,
            take=dec.take,
            equities=dict(dec.equities),
            probs=tuple(float(p) for p in probs),
            ply=depth,
        )

    def resignation_offer(self, board, state: MatchState, we_are_on_roll: bool) -> int:
        from engine.cube.resign import resignation_to_offer

        view, probs = self._our_probs(board, we_are_on_roll)
        return int(
            resignation_to_offer(
                view, probs, replace(state, on_roll=0 if we_are_on_roll else 1), on_roll=we_are_on_roll
            )
        )

    def accept_resignation(self, board, state: MatchState, offered_level: int, we_are_on_roll: bool) -> bool:
        from engine.cube.resign import accept_resignation

        view, probs = self._our_probs(board, we_are_on_roll)
        return bool(
            accept_resignation(
                view,
                probs,
                replace(state, on_roll=0 if we_are_on_roll else 1),
                offered_level,
                on_roll=we_are_on_roll,
                play_on=self._play_on(board, state, we_are_on_roll),
            )
        )

    def _play_on(self, board, state: MatchState, we_are_on_roll: bool) -> float | None:
        """Our cubeful equity of playing on at the agent's depth, after the proper cube
        action of the side on roll (None until the search kernels are ready)."""
        if not self.searching():
            return None
        board = kernel_board(board)
        if we_are_on_roll:
            choice = self._cube_choice(board, replace(state, on_roll=0, to_decide=0, doubled=False))
        else:
            choice = self._cube_choice(board[::-1], replace(state, on_roll=1, to_decide=1, doubled=False))
        eq = choice.equities
        best = min(eq["double_take"], eq["double_drop"]) if choice.double else eq["no_double"]
        return best if we_are_on_roll else -best

    def _our_probs(self, board, we_are_on_roll: bool) -> tuple[np.ndarray, np.ndarray]:
        """Our board view and our probabilities, whoever is on roll."""
        board = kernel_board(board)
        if we_are_on_roll:
            return board, self.probabilities(board)
        return board, invert_probabilities(self.probabilities(board[::-1]))


def gammon_weights(state: MatchState | None) -> tuple[float, float, float, float]:
    """Values of (gammon win, backgammon win, gammon loss, backgammon loss) for the
    move choice: money ones, or the match's gammon values when the score makes
    gammons worth more or less than a single game."""
    if state is None or state.is_money:
        return MONEY_WEIGHTS  # the Jacoby rule only matters until the cube turns
    from engine.cube.met import CubeView, gammon_values

    win_gammon, lose_gammon, win_bg, lose_bg = gammon_values(CubeView.of(state, 0))
    return (win_gammon, win_bg, lose_gammon, lose_bg)
