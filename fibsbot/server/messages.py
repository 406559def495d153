"""Every text the server sends, in FIBS's exact wording (REFERENCE.md section 1).

Functions return one line without its line end.  ``tests/test_server_messages.py``
feeds each of them to ``fibsbot.protocol.parser.ClipParser`` and checks the event it becomes.
"""

from __future__ import annotations

from fibsbot.server.accounts import Account

LOGIN_PROMPT = "login: "
PASSWORD_PROMPT = "password: "
ALREADY_LOGGED_IN = "** Warning: You are already logged in."
CONNECTION_TIMED_OUT = "Connection timed out."
GOODBYE = "Thanks for playing. Goodbye."
YOUR_TURN_TO_MOVE = "It's your turn to move."
PLEASE_ROLL_OR_DOUBLE = "It's your turn. Please roll or double"
YOU_CANT_MOVE = "You can't move."
RESIGN_REJECTED_BY_YOU = "You reject. The game continues."
JOIN_NEXT_GAME = "Type 'join' if you want to play the next game, type 'leave' if you don't."
YOU_TERMINATED = "** You terminated the game. The game was saved."
NOT_PLAYING = "** You're not playing."


def _points(points: int) -> str:
    return f"{points} point" if points == 1 else f"{points} points"


def _length(length: int) -> str:
    """'a 3 point' / 'an unlimited' (0 = unlimited)."""
    return "an unlimited" if length == 0 else f"a {length} point"


def _flag(value: bool) -> str:
    return "1" if value else "0"


# --- CLIP numbered lines -----------------------------------------------------------


def welcome(account: Account, now: int) -> str:
    return f"1 {account.name} {account.last_login or now} {account.last_host}"


def own_info(account: Account) -> str:
    t = account.toggles
    fields: list[str | bool] = [
        account.name,
        t["allowpip"],
        t["autoboard"],
        t["autodouble"],
        t["automove"],
        account.away,
        t["bell"],
        t["crawford"],
        t["double"],
        str(account.experience),
        t["greedy"],
        t["moreboards"],
        t["moves"],
        t["notify"],
        f"{account.rating:.2f}",
        t["ratings"],
        t["ready"],
        "none",
        t["report"],
        t["silent"],
        "UTC",
    ]
    return "2 " + " ".join(_flag(f) if isinstance(f, bool) else f for f in fields)


def who_info(account: Account, *, opponent: str | None, idle: int, login: int, host: str, client: str | None) -> str:
    return (
        f"5 {account.name} {opponent or '-'} - {_flag(account.toggles['ready'])} "
        f"{_flag(account.away)} {account.rating:.2f} {account.experience} {max(idle, 0)} "
        f"{login} {host} {client or '-'} -"
    )


def logs_in(name: str) -> str:
    return f"7 {name} {name} logs in."


def logs_out(name: str, dropped: bool) -> str:
    return f"8 {name} {name} {'drops connection' if dropped else 'logs out'}."


def stored_message(sender: str, time: int, text: str) -> str:
    return f"9 {sender} {time} {text}"


def says(code: int, name: str, text: str) -> str:
    """CLIP 12-16: ``code name text``."""
    return f"{code} {name} {text}"


def you_said(code: int, text: str) -> str:
    """CLIP 17-19: ``code text``."""
    return f"{code} {text}"


# --- invitations and match start ---------------------------------------------------


def invitation(inviter: str, length: int) -> str:
    return f"{inviter} wants to play {_length(length)} match with you."


def resume_invitation(inviter: str) -> str:
    return f"{inviter} wants to resume a saved match with you."


def join_instructions(inviter: str) -> str:
    return f"Type 'join {inviter}' to accept."


def invite_sent(target: str, length: int | None) -> str:
    if length is None:
        return f"** You invited {target} to resume a saved match."
    return f"** You invited {target} to {_length(length)} match."


def now_playing(opponent: str, length: int) -> str:
    return f"** You are now playing {_length(length)} match with {opponent}"


def has_joined(joiner: str, length: int) -> str:
    return f"** Player {joiner} has joined you for {_length(length)} match."


def resumed_by_you(opponent: str) -> str:
    return f"You are now playing with {opponent}. Your running match was loaded."


def resumed_by_them(joiner: str) -> str:
    return f"{joiner} has joined you. Your running match was loaded."


def resume_details(turn: str, length: int, points: list[tuple[str, int]]) -> list[str]:
    lines = [f"turn: {turn}", "unlimited match" if length == 0 else f"match length: {length}"]
    return lines + [f"points for user {name}: {score}" for name, score in points]


def new_game(opponent: str) -> str:
    return f"Starting a new game with {opponent}."


def opening_roll(own_die: int, opponent: str, their_die: int) -> str:
    return f"You rolled {own_die}, {opponent} rolled {their_die}"


def makes_first_move(player: str) -> str:
    return f"{player} makes the first move."


# --- turns ---------------------------------------------------------------------------


def you_roll(d1: int, d2: int) -> str:
    return f"You roll {d1} and {d2}."


def rolls(player: str, d1: int, d2: int) -> str:
    return f"{player} rolls {d1} and {d2}."


def please_move(pieces: int) -> str:
    return f"Please move {pieces} pieces."  # FIBS's literal plural, "1 pieces" included


def only_possible_move(move_text: str) -> str:
    return f"The only possible move is {move_text} ."


def cant_move(player: str) -> str:
    return f"{player} can't move."


def moves(player: str, move_text: str) -> str:
    return f"{player} moves {move_text} ."


# --- cube and resignations -------------------------------------------------------------


def you_double(opponent: str) -> str:
    return f"You double. Please wait for {opponent} to accept or reject."


def doubles(player: str) -> str:
    return f"{player} doubles. Type 'accept' or 'reject'."


def you_accept_double(cube: int) -> str:
    return f"You accept the double.  The cube shows {cube}."


def accepts_double(player: str, cube: int) -> str:
    return f"{player} accepts the double. The cube shows {cube}."


def you_give_up(winner: str, points: int) -> str:
    return f"You give up. {winner} wins {_points(points)}."


def gives_up(player: str, points: int) -> str:
    return f"{player} gives up. You win {_points(points)}."


def you_resign(opponent: str, points: int) -> str:
    return f"You want to resign. {opponent} will win {_points(points)}."


def wants_to_resign(player: str, points: int) -> str:
    return f"{player} wants to resign. You will win {_points(points)}. Type 'accept' or 'reject'."


def you_accept_resign(points: int) -> str:
    return f"You accept and win {_points(points)}."


def accepts_resign(player: str, points: int) -> str:
    return f"{player} accepts and wins {_points(points)}."


def rejects_resign(player: str) -> str:
    return f"{player} rejects. The game continues."


# --- game and match end ----------------------------------------------------------------


def you_win_game(points: int) -> str:
    return f"You win the game and get {_points(points)}. Congratulations!"


def wins_game(player: str, points: int) -> str:
    return f"{player} wins the game and gets {_points(points)}. Sorry."


def score_line(length: int, own: tuple[str, int], other: tuple[str, int]) -> str:
    kind = "unlimited" if length == 0 else f"{length} point"
    return f"score in {kind} match: {own[0]}-{own[1]} {other[0]}-{other[1]}"


def wait_for_join(opponent: str) -> str:
    """The answer to ``join`` between games while the opponent has not joined: a notice, not a refusal."""
    return f"** Please wait for {opponent} to join too."


def you_win_match(length: int, own: int, other: int) -> str:
    return f"You win the {length} point match {own}-{other} ."


def wins_match(player: str, length: int, winner_score: int, loser_score: int) -> str:
    return f"{player} wins the {length} point match {winner_score}-{loser_score} ."


# --- saved matches and the connection ---------------------------------------------------


def left_game(player: str) -> str:
    return f"** Player {player} has left the game. The game was saved."


def drops_connection(player: str) -> str:
    return f"{player} drops connection. The game was saved."


def logs_out_saved(player: str) -> str:
    return f"{player} logs out. The game was saved."


def timed_out_saved(player: str) -> str:
    return f"Connection with {player} timed out. The game was saved."


SAVED_HEADER = "  opponent          matchlength   score (your points first)"
NO_SAVED_GAMES = "no saved games."


def saved_row(mark: str, opponent: str, length: int, own: int, other: int) -> str:
    """A ``show saved`` row: ``*`` the opponent is logged in, ``**`` and ready too.

    As FIBS writes it, the mark fills two characters right-aligned, so that the name always
    starts in the third: ``  bob``, `` *bob``, ``**bob``."""
    kind = "unlimited" if length == 0 else str(length)
    return f"{mark:>2}{opponent:<24}{kind:<17}{own} - {other:2d}"


def error(text: str) -> str:
    return f"** {text}"
