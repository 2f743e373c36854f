"""What the model server says of itself, asked once before a run's first request.

llama.cpp's ``llama-server`` answers ``GET /props`` (beside ``/v1``) with its parallel
slots (``total_slots``; older builds ``default_generation_settings.n_parallel``). Where it
answers, the run sends llama.cpp's ``cache_prompt: true`` with every request (the slot
keeps the chunk's evaluated prefix for the chunk's next lane; recent builds do so by
default, older ones did not), and ``concurrency: auto`` asks as many requests at once as
it has slots. Ollama, vLLM, llama-cpp-python and OpenAI have no such endpoint (a 404, or
any other answer that is not llama.cpp's): nothing extra is sent, and ``auto`` falls back
to the default concurrency. The question is asked with a short timeout and never fails
the run: a server that cannot be reached fails on the run's first request, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

PROPS_TIMEOUT_S = 5.0
LLAMA_CPP = "llama.cpp"


@dataclass(frozen=True)
class ServerFacts:
    """``software`` is ``"llama.cpp"`` where ``/props`` answered as llama-server, else
    ``None``; ``slots`` its parallel slots, where it said."""

    software: str | None = None
    slots: int | None = None

    @property
    def extra_body(self) -> dict[str, Any]:
        """What every request sends beside the Chat Completions fields."""
        return {"cache_prompt": True} if self.software == LLAMA_CPP else {}

    def concurrency(self, auto: bool, configured: int) -> int:
        """The requests in flight at once: the server's slots under ``auto`` where it
        reports them, else ``configured``."""
        return self.slots if auto and self.slots else configured


def server_root(base_url: str) -> str:
    """The server's root: ``base_url`` without its ``/v1``."""
    root = base_url.rstrip("/")
    return root.removesuffix("/v1")


def read_props(body: bytes) -> ServerFacts:
    """The facts of a ``/props`` answer (``ServerFacts()`` when it is not llama.cpp's)."""
    try:
        props = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return ServerFacts()
    if not isinstance(props, dict) or not (
        "total_slots" in props or "default_generation_settings" in props
    ):
        return ServerFacts()
    slots = props.get("total_slots")
    settings = props.get("default_generation_settings")
    if slots is None and isinstance(settings, dict):
        slots = settings.get("n_parallel")
    valid = type(slots) is int and slots >= 1
    return ServerFacts(LLAMA_CPP, slots if valid else None)


def discover(base_url: str, api_key: str | None) -> ServerFacts:
    """Ask the server at ``base_url`` (the ``/v1`` root) what it is; any failure is
    ``ServerFacts()``."""
    import httpx

    headers = {} if not api_key else {"Authorization": f"Bearer {api_key}"}
    try:
        response = httpx.get(
            server_root(base_url) + "/props",
            headers=headers,
            timeout=PROPS_TIMEOUT_S,
            follow_redirects=False,
            trust_env=False,
        )
    except httpx.HTTPError:
        return ServerFacts()
    if response.status_code != 200:
        return ServerFacts()
    return read_props(response.content)
