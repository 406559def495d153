"""The match driver under test: parser + driver + fake agent, fed server text."""

from __future__ import annotations

from fibsbot.protocol.match.driver import MatchDriver
from fibsbot.protocol.match.outputs import Send, Wait, consult
from fibsbot.protocol.parser import ClipParser
from tests.fake_agent import FakeAgent
from tests.fibs_samples import MID_X_DOWN, with_fields

START = (
    "** You are now playing a 5 point match with bob\r\n"
    "Starting a new game with bob.\r\nYou rolled 6, bob rolled 2\r\nIt's your turn to move.   \r\n"
)


class Bot:
    """Parser + driver + fake agent, answering decisions at once."""

    def __init__(self, agent: FakeAgent | None = None, **options) -> None:
        self.parser = ClipParser()
        self.driver = MatchDriver(**options)
        self.agent = agent or FakeAgent()
        self.waits: list[Wait] = []  # timers not fired yet
        self.requests: list = []

    def feed(self, text: str, *, answer: bool = True) -> list[str]:
        """Feed server text as one read of the client's; return the lines sent (decisions
        answered by the agent)."""
        sent: list[str] = []
        self.driver.begin_read()
        for event in self.parser.feed(text):
            sent += self._run(self.driver.handle(event), answer)
        return sent + self._run(self.driver.end_read(), answer)

    def _run(self, outputs, answer: bool) -> list[str]:
        sent = []
        for output in outputs:
            if isinstance(output, Send):
                sent.append(output.text)
            elif isinstance(output, Wait):
                self.waits.append(output)
            else:
                self.requests.append(output)
                if answer:
                    sent += [c.text for c in self.driver.decided(output, consult(self.agent, output))]
        return sent

    def fire(self, purpose: str) -> list[str]:
        """Expire every pending timer of ``purpose``; return what was sent."""
        fired = [w for w in self.waits if w.timer.purpose == purpose]
        self.waits = [w for w in self.waits if w.timer.purpose != purpose]
        return [c.text for w in fired for c in self.driver.timer_expired(w.timer)]


def fields(line: str, **changes) -> str:
    return with_fields(line, **changes)


ROLL_OR_DOUBLE = fields(MID_X_DOWN, f33=0, f34=0, f37=1, f38=1, f39=1)  # cube centred, no dice
