"""Bring a match journal in line with the server's board after an interruption.

When a match is resumed (or the bot comes back after a crash), the journal may be
off by what was in flight at the moment of the interruption:

* our own last action was journaled before it was sent (write-ahead) and the
  server never got it: it is taken back;
* the lines the server sent and the bot never handled: the opponent's turn (a
  roll and its move, a double, a take of our double), dances of either side that
  the server passed on by itself, and the end of the game (the final move and the
  result, when the board says the game is over).  ``records.inference`` finds them
  between the journal's position and the board's;
* a game that ended (the opponent's drop of our double, the last bear-off) and the
  next one begun unseen: its opening is inferred the same way;
* while we may not double the server rolls for us, so a dance of ours passes the
  turn back and the opponent may move twice: searched only when one move fits nothing.
  A history in which the opponent moved while the server rolled for us and we sit on the
  bar is not kept: the board does not say how many turns passed (a dance of ours and one
  more move of the opponent fit as well), so the moves of that stretch are unknown.

A candidate is accepted when replaying it gives the server's position, cube,
score, pending double and the player the server waits for.  Histories that differ
only in a roll the bot never saw (a dance, or two rolls leading to the same board)
tell the same course of play: the game is kept with one roll that fits, and says so
(``records.unseen_rolls``).  When histories with different positions fit, the game
cannot be reconstructed; when none fits, it cannot be followed (or, while the server
rolls for us, more turns passed than the search follows, each after a dance of ours
whose roll was never shown).  Either way the game in progress is left out of the
``.mat`` (``leave_out``, with the reason) rather than written wrongly; the games after
it are recorded from their start.

``conclude`` completes the journal of a match the server no longer lists after a
login: it ended while we were away (``inference.match_endings``).
"""

from __future__ import annotations

from fibsbot.protocol.board import FibsBoard
from fibsbot.records.inference import Inference, awaited, match_endings, server_rolls_for_us
from fibsbot.records.journal import Action, MatchJournal
from fibsbot.records.unseen_rolls import course, with_guessed_rolls

# the reasons a game cannot be reconstructed: the information never reached the bot
AMBIGUOUS = "more than one history fits"
UNSEEN_START = "the bot never saw the game's beginning"
UNSEEN_DANCES = "the server rolled for the bot while it was away: dances it never saw"
UNRECOVERABLE = (AMBIGUOUS, UNSEEN_START, UNSEEN_DANCES)


def reconcile(journal: MatchJournal, board: FibsBoard) -> tuple[list[Action], str]:
    """The actions that agree with ``board``, and a word on what changed.

    Ambiguity counts as failure: if candidates with different positions fit, the game
    in progress is left out rather than guessed.  A roll that was never seen, where
    every roll that fits gives the same position, is recorded with a ``roll_guessed``.
    """
    actions = journal.actions
    if board.turn == 0 and not journal.game_in_progress:
        return actions, "in_step"
    inference = Inference(journal, board)
    fitting = _fitting(journal, inference, moves=1)
    unattended = server_rolls_for_us(journal.state)
    if not fitting and unattended:  # a second move of the opponent, after a dance of ours
        fitting = _fitting(journal, inference, moves=2)
    distinct = {course(journal, candidate) for candidate in fitting}
    if len(distinct) == 1 and unattended and _more_turns_may_have_passed(actions, fitting[0], board):
        distinct = set()  # a history with more turns fits as well: how many passed is unknowable
        fitting = []
    if len(distinct) == 1:
        chosen = with_guessed_rolls(journal, fitting[0])
        note = "in_step" if chosen == actions else "inferred"
        return _with_pending_roll(chosen, board, inference), note
    if fitting:
        reason = AMBIGUOUS
    else:  # more turns than the search follows: each one after a dance of ours that was never shown
        reason = UNSEEN_DANCES if unattended else "no journal state fits the server's board"
    if journal.game_in_progress:
        return actions + [["leave_out", reason]], "left_out"
    return actions, "unseen_game"


def _more_turns_may_have_passed(journaled: list[Action], candidate: list[Action], board: FibsBoard) -> bool:
    """Whether a history with more turns than the one found fits the board as well.

    While the server rolls for us, a roll of ours that dances hands the opponent another
    turn at once, and the board tells nothing of how many such turns passed.  So when the
    opponent moved in what the bot missed and we sit on the bar on the server's board (we
    were there after that move, so a dance of ours could have followed it), one move of the
    opponent may stand for several with dances of ours between: those moves are unknown.
    """
    added = candidate[_common(journaled, candidate) :]
    opponent_moved = any(action[0] == "move" and action[1] == 1 for action in added)
    on_the_bar = int(board.position_from_our_view().board[0][24]) > 0
    return opponent_moved and on_the_bar


def _common(a: list[Action], b: list[Action]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _fitting(journal: MatchJournal, inference: Inference, moves: int) -> list[list[Action]]:
    """The distinct histories that fit, stopping at the second course of play (one more changes nothing)."""
    fitting: list[list[Action]] = []
    courses: set[tuple] = set()
    for candidate in inference.chains(moves):
        if inference.fits(candidate) and candidate not in fitting:
            fitting.append(candidate)
            courses.add(course(journal, candidate))
            if len(courses) > 1:
                break  # ambiguous already: no need to find every history
    return fitting


def _with_pending_roll(actions: list[Action], board: FibsBoard, inference: Inference) -> list[Action]:
    """Keep the dice the board shows for the side that must move (their roll line may be lost)."""
    state = inference.replay(actions)
    waiting = awaited(board)
    dice = board.our_dice if waiting == 0 else board.their_dice
    if state is None or dice is None or waiting is None or state.dice.get(waiting) == dice:
        return actions
    if state.awaited != waiting:
        return actions
    return actions + [["roll", waiting, *dice]]


def conclude(journal: MatchJournal) -> tuple[list[Action], str]:
    """The server no longer has the match: it ended while we were away (or the game is left out).

    Returns the actions and ``"ended"`` when one history ends the match, ``"left_out"``
    with a ``leave_out`` action when none or several do, ``"in_step"`` when the journal
    already holds the end.
    """
    actions = journal.actions
    if journal.recorder.is_over or not journal.game_in_progress:
        return actions, "in_step"
    endings = match_endings(journal)
    distinct = {course(journal, candidate) for candidate in endings}
    if len(distinct) == 1:
        return with_guessed_rolls(journal, endings[0]), "ended"
    reason = AMBIGUOUS if endings else "no end of the match fits the journal"
    return actions + [["leave_out", reason]], "left_out"
