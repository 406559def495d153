"""Commands outside the game: toggles and settings, who, chat, mail, away/back."""

from __future__ import annotations

import time as _time

from fibsbot.protocol.notices import TOGGLE_TEXTS
from fibsbot.server import messages as msg
from fibsbot.server.accounts import StoredMail
from fibsbot.server.state import ServerState, Session

SETTINGS = ("boardstyle", "linelength", "pagelength", "redoubles", "sortwho", "timezone")


class LobbyCommands(ServerState):
    def _cmd_toggle(self, session: Session, args: list[str], raw: str = "") -> None:
        account = self._account(session)
        if not args:
            rows = [f"{name:<12}{'YES' if value else 'NO'}" for name, value in account.toggles.items()]
            return self._send(session.id, "The current settings are:", *rows)
        name = args[0].lower()
        if name not in TOGGLE_TEXTS:
            return self._send(session.id, msg.error(f"Don't know how to toggle {args[0]}"))
        account.toggles[name] = not account.toggles[name]
        on_text, off_text = TOGGLE_TEXTS[name]
        self._send(session.id, msg.error(on_text if account.toggles[name] else off_text))
        if name == "ready":
            self._broadcast_who(account.name)

    def _cmd_set(self, session: Session, args: list[str], raw: str = "") -> None:
        account = self._account(session)
        if not args:
            return self._send(
                session.id, "Settings of variables:", f"boardstyle: {account.boardstyle}", "timezone: UTC"
            )
        name = args[0].lower()
        if name not in SETTINGS or len(args) < 2:
            return self._send(session.id, msg.error("Invalid argument. Type 'help set'."))
        if name == "boardstyle":
            if args[1] not in ("1", "2", "3"):
                return self._send(session.id, msg.error("Valid arguments are the numbers 1 to 3."))
            account.boardstyle = int(args[1])  # boards are always sent in style 3
        self._send(session.id, f"Value of '{name}' set to {args[1]}.")

    def _cmd_rawwho(self, session: Session, args: list[str], raw: str = "") -> None:
        names = [name for name in self.online if not args or name in args]
        self._send(session.id, *(self._who_line(name) for name in names), "6")

    def _cmd_time(self, session: Session, args: list[str], raw: str = "") -> None:
        # what bots send to keep an idle connection alive; FIBS answers with its clock
        self._send(session.id, _time.strftime("%A, %B %d %H:%M:%S UTC", _time.gmtime()))

    def _cmd_away(self, session: Session, args: list[str], raw: str = "") -> None:
        account = self._account(session)
        account.away, account.away_message = True, " ".join(args)
        self._send(session.id, "You're away. Please type 'back'")
        self._broadcast_who(account.name)

    def _cmd_back(self, session: Session, args: list[str], raw: str = "") -> None:
        account = self._account(session)
        if not account.away:
            return self._send(session.id, msg.error("You're not away."))
        account.away, account.away_message = False, ""
        self._send(session.id, "Welcome back.")
        self._broadcast_who(account.name)

    # --- chat ----------------------------------------------------------------------------

    def _cmd_tell(self, session: Session, args: list[str], raw: str = "") -> None:
        if not args:
            return self._send(session.id, msg.error("Tell whom?"))
        target, text = args[0], _rest_after(raw, 2)
        if target not in self.online:
            return self._send(session.id, msg.error(f"There is no one called {target}."))
        self._tell(target, msg.says(12, session.name or "", text))
        self._tell_echo(session.id, msg.says(16, target, text))

    def _cmd_say(self, session: Session, args: list[str], raw: str = "") -> None:
        match = self.matches.get(session.name or "")
        if match is None:
            return self._send(session.id, msg.error("You're not playing, so you can't say something."))
        opponent, text = match.opponent_of(session.name or ""), _rest_after(raw, 1)
        self._tell(opponent, msg.says(12, session.name or "", text))
        self._tell_echo(session.id, msg.says(16, opponent, text))

    def _cmd_kibitz(self, session: Session, args: list[str], raw: str = "") -> None:
        match, text = self.matches.get(session.name or ""), _rest_after(raw, 1)
        if match is not None:
            self._tell(match.opponent_of(session.name or ""), msg.says(15, session.name or "", text))
        self._send(session.id, msg.you_said(19, text))

    def _cmd_whisper(self, session: Session, args: list[str], raw: str = "") -> None:
        self._send(session.id, msg.you_said(18, _rest_after(raw, 1)))  # nobody watches here

    def _cmd_shout(self, session: Session, args: list[str], raw: str = "") -> None:
        text = _rest_after(raw, 1)
        for other in self._others(session.name or ""):
            if not self.accounts.get(other).toggles["silent"]:  # type: ignore[union-attr]
                self._tell(other, msg.says(13, session.name or "", text))
        self._send(session.id, msg.you_said(17, text))

    def _cmd_message(self, session: Session, args: list[str], raw: str = "") -> None:
        if not args:
            return self._send(session.id, msg.error("Send a message to whom?"))
        target, text = args[0], _rest_after(raw, 2)
        account = self.accounts.get(target)
        if account is None:
            return self._send(session.id, msg.error(f"There is no one called {target}."))
        if target in self.online:
            self._tell(target, msg.stored_message(session.name or "", int(self.now), text))
            return self._send(session.id, f"10 {target}")
        account.mail.append(StoredMail(sender=session.name or "", time=int(self.now), text=text))
        self._send(session.id, f"11 {target}")


def _rest_after(raw: str, words: int) -> str:
    """The text after the first ``words`` words of a command line, spacing kept."""
    rest = raw.strip()
    for _ in range(words):
        parts = rest.split(maxsplit=1)
        rest = parts[1] if len(parts) == 2 else ""
    return rest
