"""Logging in (CLIP ``login``, a bare name and password, the guest registration)
and leaving the server (``bye``, a dropped connection, an idle timeout)."""

from __future__ import annotations

from fibsbot.server import messages as msg
from fibsbot.server.accounts import AccountError, check_name
from fibsbot.server.state import ServerState, Session, Stage

GUEST_INTRO = (
    "Welcome to FIBS. You just logged in as guest.",
    "Please register before using this server:",
    "Type 'name username' to choose your name.",
)


class LoginFlow(ServerState):
    def _greet(self, session: Session) -> None:
        self._send(session.id, *self.config.banner)
        self._prompt(session.id, msg.LOGIN_PROMPT)

    def _login_failed(self, session: Session) -> None:
        session.stage, session.name = Stage.LOGIN, None
        self._send(session.id, "")
        self._prompt(session.id, msg.LOGIN_PROMPT)

    def _before_login(self, session: Session, line: str) -> None:
        handlers = {
            Stage.LOGIN: self._login_line,
            Stage.PASSWORD: self._password_line,
            Stage.GUEST_NAME: self._guest_name,
            Stage.GUEST_PASSWORD: self._guest_password,
            Stage.GUEST_CONFIRM: self._guest_confirm,
            Stage.GUEST_DONE: self._guest_done,
        }
        handlers[session.stage](session, line)

    def _login_line(self, session: Session, line: str) -> None:
        words = line.split()
        if len(words) == 5 and words[0] == "login":
            _, client, _clip_version, name, password = words
            if self.accounts.authenticate(name, password) is None:
                self._login_failed(session)
            else:
                self._logged_in(session, name, client)
        elif words == ["guest"]:
            session.stage = Stage.GUEST_NAME
            self._send(session.id, *GUEST_INTRO)
        elif len(words) == 1:  # a person typing: name first, then the password unechoed
            session.stage, session.name = Stage.PASSWORD, words[0]
            self._echo(session.id, False)
            self._prompt(session.id, msg.PASSWORD_PROMPT)
        else:
            self._login_failed(session)

    def _password_line(self, session: Session, line: str) -> None:
        self._echo(session.id, True)
        name = session.name or ""
        if self.accounts.authenticate(name, line.strip()) is None:
            self._login_failed(session)
        else:
            self._send(session.id, "")
            self._logged_in(session, name, None)

    # --- the guest registration ------------------------------------------------------

    def _guest_name(self, session: Session, line: str) -> None:
        words = line.split()
        if words == ["bye"]:
            return self._goodbye(session)
        if len(words) != 2 or words[0] != "name":
            return self._send(session.id, msg.error("Type 'name username' to choose your name."))
        try:
            check_name(words[1])
            if words[1] in self.accounts:
                raise AccountError(f"Please use another name. '{words[1]}' is already used by someone else.")
        except AccountError as exc:
            return self._send(session.id, msg.error(str(exc)))
        session.name, session.stage = words[1], Stage.GUEST_PASSWORD
        self._send(session.id, f"Your name will be {words[1]}")
        self._ask_guest_password(session, "Type in your password.")

    def _ask_guest_password(self, session: Session, text: str) -> None:
        self._send(session.id, text)
        self._echo(session.id, False)
        self._prompt(session.id, msg.PASSWORD_PROMPT)

    def _guest_password(self, session: Session, line: str) -> None:
        session.guest_password, session.stage = line.strip(), Stage.GUEST_CONFIRM
        self._send(session.id, "")
        self._ask_guest_password(session, "Please retype your password.")

    def _guest_confirm(self, session: Session, line: str) -> None:
        self._send(session.id, "")
        first, session.guest_password = session.guest_password, None
        if line.strip() != first:
            session.stage = Stage.GUEST_PASSWORD
            return self._ask_guest_password(
                session, msg.error("The two passwords were not identical. Please give them again.")
            )
        self._echo(session.id, True)
        try:
            self.accounts.create(session.name or "", line.strip())
        except AccountError as exc:
            session.stage = Stage.GUEST_NAME
            return self._send(session.id, msg.error(str(exc)))
        session.stage = Stage.GUEST_DONE
        self._send(session.id, f"You are registered as {session.name}.", "Type 'bye' to finish this session.")

    def _guest_done(self, session: Session, line: str) -> None:
        if line.split() == ["bye"]:
            return self._goodbye(session)
        self._send(session.id, msg.error("Type 'bye' to finish this session."))

    # --- logged in ------------------------------------------------------------------

    def _logged_in(self, session: Session, name: str, client: str | None) -> None:
        account = self.accounts.get(name)
        assert account is not None
        lines: list[str] = []
        previous = self.online.get(name)
        if previous is not None:  # the older connection makes way, as on FIBS
            lines.append(msg.ALREADY_LOGGED_IN)
            self._leave_server(self.sessions[previous], "replaced")
        now = int(self.now)
        session.stage, session.name, session.client, session.login_time = Stage.ONLINE, name, client, now
        self.online[name] = session.id
        lines += [msg.welcome(account, now), msg.own_info(account), "3", *self.config.motd, "4"]
        lines += [msg.stored_message(m.sender, m.time, m.text) for m in account.mail]
        account.mail.clear()
        lines += [self._who_line(other) for other in self.online] + ["6"]
        self._send(session.id, *lines)
        account.last_login, account.last_host = now, session.host
        for other in self._others(name):
            if self.accounts.get(other).toggles["notify"]:  # type: ignore[union-attr]
                self._tell(other, msg.logs_in(name))
            self._tell(other, self._who_line(name))

    def _goodbye(self, session: Session) -> None:
        self._leave_server(session, "bye")

    def _leave_server(self, session: Session, how: str) -> None:
        """Take a session off the server: ``bye``, ``dropped``, ``timed_out`` or ``replaced``."""
        if how == "bye":
            self._send(session.id, msg.GOODBYE)
        elif how == "timed_out":
            self._send(session.id, msg.CONNECTION_TIMED_OUT)
        name = session.name if session.online else None
        self.sessions.pop(session.id, None)
        if how != "dropped":
            self._close(session.id)
        if name is None or self.online.get(name) != session.id:
            return
        self._suspend_match(name, how)
        self._forget_match_ends(name)
        self._drop_invites(name)
        del self.online[name]
        for other in self.online:
            if self.accounts.get(other).toggles["notify"]:  # type: ignore[union-attr]
                self._tell(other, msg.logs_out(name, dropped=how != "bye"))
