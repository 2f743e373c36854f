"""``structured_output``: which ``response_format`` a run sends, found once per run.

``auto`` (the default) tries the modes of ``requests.MODES`` in order: OpenAI's
``json_schema``; llama-cpp-python's ``{"type": "json_object", "schema": ...}``; plain
``json_object``; none at all. A mode is refused when the server answers a lane's first
request in it (before the server accepted any request of that lane) with a 400, 404, 415
or 422, or with a 500 answered again at once to the same request
(``transport.FormatRefused``); the next mode is then tried. Until the server accepts a
first request, the run asks for nothing else (the probe: ``ModelAsker`` waits on it), so
that the mode is found once, not once per lane; every lane then starts from it. A lane
may still go further down on its own (a server that cannot take one kind's schema). An
explicit mode is never changed: its refusal fails the chunk with a hint naming ``auto``.
"""

from __future__ import annotations

import asyncio

from streamer.extraction.requests import MODES

AUTO = "auto"


class Negotiation:
    """The run's mode: ``modes`` is what may be tried, ``index`` the first one a lane
    tries. ``settled`` once the run's first request (the probe) has ended."""

    def __init__(self, configured: str) -> None:
        """The first request is asked alone whatever the mode: a server that refuses an
        explicit mode costs one refused request, not one per request in flight."""
        self.configured = configured
        self.modes: tuple[str, ...] = MODES if configured == AUTO else (configured,)
        self.index = 0
        self._settled = asyncio.Event()

    @property
    def settled(self) -> bool:
        return self._settled.is_set()

    def settle(self) -> None:
        self._settled.set()

    async def wait(self) -> None:
        """Until the probe (the run's first request) has ended."""
        await self._settled.wait()

    def next_index(self, index: int) -> int | None:
        """The mode after ``index``, or ``None`` when there is none left to try."""
        return index + 1 if index + 1 < len(self.modes) else None

    def refused_hint(self, mode: str) -> str:
        if self.configured == AUTO:
            return "the server took none of the structured-output modes"
        return f"this server does not take structured_output: {mode}: try structured_output: auto"
