"""A whole 3-point match over TCP between two scripted telnetlib3 clients.

The script: game 1 has a double and a take, then the taker resigns (2-0 with the
cube); game 2 is the Crawford game (never a "roll or double" prompt), the leader's
connection drops in the middle and the match is resumed; the leader then resigns;
after that every first chance to double is taken and every double dropped until
the match ends.  Moves are the first legal move the engine lists.
"""

from __future__ import annotations

import asyncio

from fibsbot.protocol.parser import (
    Board,
    DoubleAccepted,
    DoubleRejected,
    Event,
    GameSaved,
    Invitation,
    MatchEnd,
    MatchResumed,
    NewGame,
    PleaseRollOrDouble,
    ResignAccepted,
    ResignOffered,
)
from fibsbot.server.testing import ClipTestClient, first_legal_move, run_local_server
from tests.server_harness import Player, pending_action

NAMES = ("alice", "bob")


class Seat:
    def __init__(self, name: str, client: ClipTestClient) -> None:
        self.name, self.client, self.player = name, client, Player(name=name, session=0)

    async def drain(self, wait: float = 0.01) -> None:
        while True:
            try:
                event = await self.client.next_event(wait)
            except TimeoutError:
                return
            self.player.note([event])

    async def until(self, kind: type, count: int | None = None, timeout: float = 5.0):
        """Read until the player has ``count`` events of ``kind`` (default: one more)."""
        target = len(self.player.of(kind)) + 1 if count is None else count
        while len(self.player.of(kind)) < target:
            self.player.note([await self.client.next_event(timeout)])
        return self.player.of(kind)[-1]

    async def do(self, command: str, then: type = Board) -> None:
        self.client.send(command)
        await self.until(then)


class Script:
    def __init__(self, host: str, port: int, seats: dict[str, Seat]) -> None:
        self.host, self.port, self.seats = host, port, seats
        self.doubled_in_game = 0
        self.crawford_moves = 0
        self.dropped = False

    def game(self) -> int:
        return len(self.seats["alice"].player.of(NewGame))

    def other(self, name: str) -> Seat:
        return self.seats[NAMES[1 - NAMES.index(name)]]

    async def step(self, seat: Seat, action: str) -> None:
        board, game = seat.player.board, self.game()
        if action == "answer_resign":
            seat.player.resign_offer = None
            return await seat.do("accept")
        if action == "join":
            seat.player.join_prompt = False
            return await seat.do("join", then=Event)
        if action == "answer_double":
            return await seat.do("accept" if game == 1 else "reject")
        if action == "roll_or_double":
            assert not board.is_crawford_game, "prompted in the Crawford game"
            if self.doubled_in_game < game:
                self.doubled_in_game = game
                return await seat.do("double")
            return await seat.do("roll")
        # action == "move"
        leader = board.player_score == 2
        if game == 1 and board.cube == 2 and board.player_may_double:  # the taker gives up
            return await self.resign(seat)
        if board.is_crawford_game:
            self.crawford_moves += 1
            if leader and self.crawford_moves >= 6 and not self.dropped:
                return await self.drop_and_resume(seat)
            if leader and self.crawford_moves >= 10:
                return await self.resign(seat)
        await seat.do(first_legal_move(board))

    async def resign(self, seat: Seat) -> None:
        await seat.do("resign n", then=ResignOffered)
        await self.other(seat.name).until(ResignOffered)

    async def drop_and_resume(self, seat: Seat) -> None:
        self.dropped = True
        other = self.other(seat.name)
        seat.client.close()
        assert await other.until(GameSaved) == GameSaved(player=seat.name, reason="dropped")
        seat.client = await ClipTestClient.connect(self.host, self.port)
        assert await seat.client.login(seat.name, "pw")
        seat.client.send(f"invite {other.name}")
        assert (await other.until(Invitation)).resume
        other.client.send(f"join {seat.name}")
        resumed = await seat.until(MatchResumed)
        assert resumed.length == 3 and resumed.points[seat.name] == 2
        await other.until(MatchResumed)
        await seat.until(Board)


async def test_a_scripted_three_point_match_over_tcp():
    async with run_local_server(seed=2024) as (host, port, core):
        seats = {}
        for name in NAMES:
            seats[name] = Seat(name, await ClipTestClient.connect(host, port))
            assert await seats[name].client.login(name, "pw")
        seats["alice"].client.send("invite bob 3")
        await seats["bob"].until(Invitation)
        await seats["bob"].do("join alice")
        script = Script(host, port, seats)
        for _ in range(2000):
            if all(seat.player.of(MatchEnd) for seat in seats.values()):
                break
            for seat in seats.values():
                await seat.drain()
            actions = [(seat, a) for seat in seats.values() if (a := pending_action(seat.player))]
            actions.sort(key=lambda pair: pair[1] != "answer_resign")
            if actions:
                await script.step(*actions[0])
            else:
                await asyncio.sleep(0.01)
        alice, bob = seats["alice"].player, seats["bob"].player
        end = alice.of(MatchEnd)[-1]
        assert bob.of(MatchEnd)[-1].scores == end.scores and end.scores[0] == 3
        assert end.we_won != bob.of(MatchEnd)[-1].we_won

        # game 1: a double, a take and a resignation worth the cube
        assert alice.of(DoubleAccepted) and bob.of(DoubleAccepted)
        first_resign = (alice.of(ResignAccepted) + bob.of(ResignAccepted))[0]
        assert first_resign.points == 2
        # game 2: the Crawford game, no prompts to double, a drop and a resume
        assert script.dropped and script.crawford_moves >= 10
        assert alice.of(GameSaved) or bob.of(GameSaved)
        for player in (alice, bob):  # the Crawford game: flags as FIBS shows them, no prompt
            starts = [i for i, e in enumerate(player.events) if isinstance(e, NewGame)]
            crawford = player.events[starts[1] : starts[2]]
            assert not any(isinstance(e, PleaseRollOrDouble) for e in crawford)
            boards = [e.board for e in crawford if isinstance(e, Board) and e.board.turn != 0]
            assert boards and all(b.is_crawford_game and b.player_may_double for b in boards)
            assert all(e.board.post_crawford for e in player.events[starts[2] :] if isinstance(e, Board))
        # later games: doubles dropped
        assert alice.of(DoubleRejected) or bob.of(DoubleRejected)
        assert not alice.unknown()[1:] and not bob.unknown()[1:]
        for seat in seats.values():
            seat.client.close()
