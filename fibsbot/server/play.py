"""Invitations, joining, leaving and the in-game commands, with saved matches."""

from __future__ import annotations

from fibsbot.server import messages as msg
from fibsbot.server.config import DEFAULT_TOGGLES
from fibsbot.server.match import Line, MatchError, ServerMatch
from fibsbot.server.state import Invite, ServerState, Session, pair

MAX_MATCH_LENGTH = 99
# what the opponent reads when a player's match is saved, by how they left
SAVED_TEXT = {
    "left": msg.left_game,
    "bye": msg.logs_out_saved,
    "dropped": msg.drops_connection,
    "replaced": msg.drops_connection,
    "timed_out": msg.timed_out_saved,
}


class PlayCommands(ServerState):
    def _toggle(self, name: str, toggle: str) -> bool:
        account = self.accounts.get(name)
        return DEFAULT_TOGGLES[toggle] if account is None else account.toggles[toggle]

    def _deliver(self, match: ServerMatch, lines: list[Line]) -> None:
        if match.is_over and self.config.match_end_delay > 0 and match.announcement:
            lines = [line for line in lines if line not in match.announcement]
            self.held_match_ends.append((self.now + self.config.match_end_delay, match))
        for seat, text in lines:
            self._tell(match.names[seat], text)
        if match.is_over:
            self._finish_match(match)

    def _announce_due(self) -> None:
        due = [(when, match) for when, match in self.held_match_ends if when <= self.now]
        for entry in due:
            self.held_match_ends.remove(entry)
            for seat, text in entry[1].announcement:
                self._tell(entry[1].names[seat], text)

    def _forget_match_ends(self, name: str) -> None:
        self.held_match_ends = [(when, m) for when, m in self.held_match_ends if name not in m.names]

    def _finish_match(self, match: ServerMatch) -> None:
        self.finished.append(match)
        for name in match.names:
            if self.matches.get(name) is match:
                del self.matches[name]
        winner = 0 if match.scores[0] > match.scores[1] else 1
        self.accounts.record_match(match.names[winner], match.names[1 - winner], match.length)
        for name in match.names:
            self._broadcast_who(name)

    # --- invite, join, leave ----------------------------------------------------------------

    def _cmd_invite(self, session: Session, args: list[str], raw: str = "") -> None:
        me = session.name or ""
        if not args:
            return self._send(session.id, msg.error("Invite whom?"))
        target = args[0]
        problem = self._invite_problem(me, target)
        if problem:
            return self._send(session.id, msg.error(problem))
        if len(args) == 1:
            if pair(me, target) not in self.saved:
                return self._send(
                    session.id, msg.error(f"There's no saved match with {target}. Please give a match length.")
                )
            self.invites[me] = Invite(target, None)
            self._tell(target, msg.resume_invitation(me), msg.join_instructions(me))
            return self._send(session.id, msg.invite_sent(target, None))
        length = _match_length(args[1])
        if length is None:
            return self._send(
                session.id, msg.error(f"The match length must be 1 to {MAX_MATCH_LENGTH} or 'unlimited'.")
            )
        self.invites[me] = Invite(target, length)
        self._tell(target, msg.invitation(me, length), msg.join_instructions(me))
        self._send(session.id, msg.invite_sent(target, length))

    def _invite_problem(self, me: str, target: str) -> str | None:
        if target == me:
            return "You can't invite yourself."
        if me in self.matches:
            return "You're already playing. Type 'leave' first."
        if target not in self.online:
            return f"There is no one called {target}."
        if target in self.matches:
            return f"{target} is already playing with someone else."
        if not self.accounts.get(target).toggles["ready"]:  # type: ignore[union-attr]
            return f"{target} is refusing games."
        return None

    def _cmd_join(self, session: Session, args: list[str], raw: str = "") -> None:
        me = session.name or ""
        match = self.matches.get(me)
        if match is not None:
            if args and args[0] != match.opponent_of(me):
                return self._send(session.id, msg.error("You're already playing. Type 'leave' first."))
            return self._game_command(session, "join")
        if not args:
            return self._send(session.id, msg.error("Error: No one to join."))
        inviter = args[0]
        invite = self.invites.get(inviter)
        if invite is None or invite.target != me:
            return self._send(session.id, msg.error(f"{inviter} didn't invite you."))
        if inviter in self.matches or inviter not in self.online:
            del self.invites[inviter]
            return self._send(session.id, msg.error(f"{inviter} is not available any more."))
        del self.invites[inviter]
        self.invites.pop(me, None)
        if invite.length is None:
            saved = self.saved.pop(pair(me, inviter), None)
            if saved is None:
                return self._send(session.id, msg.error(f"There's no saved match with {inviter}."))
            lines = saved.resume(joiner=saved.seat_of(me), lose_crawford=self.config.crawford_lost_on_reload)
            match = saved
        else:
            self.saved.pop(pair(me, inviter), None)  # a new match replaces a saved one
            match = ServerMatch((inviter, me), invite.length, self.dice, self._toggle)
            lines = match.start()
        self.matches[me] = self.matches[inviter] = match
        for name in match.names:
            self._broadcast_who(name)
        self._deliver(match, lines)

    def _cmd_leave(self, session: Session, args: list[str], raw: str = "") -> None:
        if (session.name or "") not in self.matches:
            return self._send(session.id, msg.error("You're not playing, so you can't leave."))
        self._suspend_match(session.name or "", "left")

    def _suspend_match(self, name: str, how: str) -> None:
        match = self.matches.pop(name, None)
        if match is None:
            return
        other = match.opponent_of(name)
        self.matches.pop(other, None)
        match.suspend()
        self.saved[pair(name, other)] = match
        if how == "left" or not self.config.logout_line_only:
            self._tell(other, SAVED_TEXT[how](name))
        if how == "left":
            self._tell(name, msg.YOU_TERMINATED)
        self._broadcast_who(other)
        if how == "left":
            self._broadcast_who(name)

    def _drop_invites(self, name: str) -> None:
        self.invites.pop(name, None)
        for inviter in [i for i, invite in self.invites.items() if invite.target == name]:
            del self.invites[inviter]

    # --- in-game commands ------------------------------------------------------------------

    def _game_command(self, session: Session, action: str, *args: str) -> None:
        """Run ``ServerMatch.<action>(seat, *args)`` for the sender's match."""
        match = self.matches.get(session.name or "")
        if match is None:
            return self._send(session.id, msg.NOT_PLAYING)
        try:
            lines = getattr(match, action)(match.seat_of(session.name or ""), *args)
        except MatchError as exc:
            return self._send(session.id, str(exc))
        self._deliver(match, lines)

    def _cmd_roll(self, session: Session, args: list[str], raw: str = "") -> None:
        self._game_command(session, "roll")

    def _cmd_move(self, session: Session, args: list[str], raw: str = "") -> None:
        self._game_command(session, "move", " ".join(args))

    def _cmd_double(self, session: Session, args: list[str], raw: str = "") -> None:
        self._game_command(session, "double")

    def _cmd_accept(self, session: Session, args: list[str], raw: str = "") -> None:
        self._game_command(session, "accept")

    def _cmd_reject(self, session: Session, args: list[str], raw: str = "") -> None:
        self._game_command(session, "reject")

    def _cmd_resign(self, session: Session, args: list[str], raw: str = "") -> None:
        self._game_command(session, "resign", args[0] if args else "")

    def _cmd_show(self, session: Session, args: list[str], raw: str = "") -> None:
        if [word.lower() for word in args] != ["saved"]:
            return self._send(session.id, msg.error("Only 'show saved' is known here."))
        me, rows = session.name or "", []
        for players, match in self.saved.items():
            if me not in players:
                continue
            other, seat = match.opponent_of(me), match.seat_of(me)
            account = self.accounts.get(other)
            mark = "" if other not in self.online else "**" if account and account.toggles["ready"] else "*"
            rows.append(msg.saved_row(mark, other, match.length, match.scores[seat], match.scores[1 - seat]))
        self._send(session.id, *([msg.SAVED_HEADER, *rows] if rows else [msg.NO_SAVED_GAMES]))

    def _cmd_board(self, session: Session, args: list[str], raw: str = "") -> None:
        match = self.matches.get(session.name or "")
        if match is None:
            return self._send(session.id, msg.NOT_PLAYING)
        self._send(session.id, match.board_for(match.seat_of(session.name or "")))


def _match_length(word: str) -> int | None:
    if word.lower() == "unlimited":
        return 0
    if word.isdigit() and 1 <= int(word) <= MAX_MATCH_LENGTH:
        return int(word)
    return None
