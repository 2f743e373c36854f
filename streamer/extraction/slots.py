"""How many requests a run keeps in flight: at most ``concurrency``, lowered for the rest of
the run when the server shows it serves fewer at once.

A server with fewer parallel slots than requests in flight queues the rest: llama-cpp-python
answers one request at a time, Ollama up to ``OLLAMA_NUM_PARALLEL``, and neither says so
(llama.cpp's ``GET /props`` does: ``server_facts``). A queued request hears nothing until the
requests ahead of it are answered, and with long answers (a combined request's is every
lane's) it times out there (``timeout_s`` bounds each wait for the server). Worse,
llama-cpp-python (``interrupt_requests``, on by default) ends a streamed answer with
``[DONE]`` and no finish reason as soon as another request waits: each request in flight
cuts the one being answered off, which is asked again and cuts the next one off. Measured
with no configuration but ``--model-url`` (the default 4 in flight, answers streamed):
no chunk of C1E002 t00600-t00899 was answered in eight minutes, 42 answers cut off. So a
request that times out, or whose answer is cut off, while others of the run are in flight
lowers the limit to half of them (at least 1): four in flight become two, then one. It
never rises again within the run: a server that queued once queues again.
"""

from __future__ import annotations

import asyncio
from collections import deque
from types import TracebackType

__all__ = ["InFlight"]


class InFlight:
    """An async context manager: entering waits until fewer than ``limit`` are in flight.
    First come, first in: a request never overtakes one already waiting (a chunk's lanes
    are asked in turn, so that the server's prompt cache still holds its units)."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        self.configured = limit
        self.limit = limit
        self.busy = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    async def __aenter__(self) -> None:
        if self.busy < self.limit and not self._waiting:
            self.busy += 1
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            await turn  # _let_in counts it in before it resolves the turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # let in, then cancelled: leave
                self.busy -= 1
                self._let_in()
            else:
                self._waiting.remove(turn)
            raise

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.busy -= 1
        self._let_in()

    def _let_in(self) -> None:
        while self._waiting and self.busy < self.limit:
            turn = self._waiting.popleft()
            if not turn.done():
                self.busy += 1
                turn.set_result(None)

    def crowded(self) -> None:
        """A request in flight (not yet exited) timed out, or the server cut its answer off
        for another request: with others in flight beside it, the server serves fewer at
        once than are in flight."""
        if self.busy > 1:
            self.limit = max(1, min(self.limit, self.busy // 2))

    @property
    def lowered(self) -> bool:
        return self.limit < self.configured

    def _check(self) -> None:
        assert 1 <= self.limit <= self.configured
        assert self.busy >= 0
        assert not self._waiting or self.busy >= self.limit  # else they would be let in
