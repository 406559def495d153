"""Telnet on the server side, sans-IO: strip IAC sequences, refuse every option.

Clients such as telnetlib3 may negotiate (``IAC WILL TTYPE`` ...).  A server that
never answers leaves such a client waiting for its negotiation timeout, so every
request is answered at once with a refusal (DONT / WONT), except the ECHO option
the server itself offers around password prompts, whose answers are just noted.
Subnegotiations are skipped; ``IAC IAC`` is a literal 0xFF byte.
"""

from __future__ import annotations

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
ECHO = 1

_DATA, _IAC, _OPTION, _SUB, _SUB_IAC = range(5)


def echo_command(on: bool) -> bytes:
    """Server ECHO: ``on=False`` (the server will echo, i.e. nobody does) hides a password."""
    return bytes((IAC, WONT if on else WILL, ECHO))


def escape(data: bytes) -> bytes:
    """Outgoing data with 0xFF doubled, as telnet requires."""
    return data.replace(b"\xff", b"\xff\xff")


class TelnetFilter:
    """Feed received bytes; get back (application data, replies to send)."""

    def __init__(self) -> None:
        self._state = _DATA
        self._command = 0

    def feed(self, data: bytes) -> tuple[bytes, bytes]:
        out = bytearray()
        replies = bytearray()
        for byte in data:
            state = self._state
            if state == _DATA:
                if byte == IAC:
                    self._state = _IAC
                else:
                    out.append(byte)
            elif state == _IAC:
                if byte == IAC:
                    out.append(IAC)
                    self._state = _DATA
                elif byte in (WILL, WONT, DO, DONT):
                    self._command, self._state = byte, _OPTION
                elif byte == SB:
                    self._state = _SUB
                else:  # NOP, GA, AYT ...: nothing to do
                    self._state = _DATA
            elif state == _OPTION:
                replies += self._answer(self._command, byte)
                self._state = _DATA
            elif state == _SUB:
                if byte == IAC:
                    self._state = _SUB_IAC
            else:  # _SUB_IAC
                self._state = _DATA if byte == SE else _SUB
        return bytes(out), bytes(replies)

    @staticmethod
    def _answer(command: int, option: int) -> bytes:
        if command == WILL:
            return bytes((IAC, DONT, option))
        if command == DO and option != ECHO:
            return bytes((IAC, WONT, option))
        return b""  # WONT/DONT acknowledge; DO/DONT ECHO answer our own offer
