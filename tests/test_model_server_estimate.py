"""``streamer run --estimate`` against the real model server (``tests/model_server.py``):
its tokenizer (llama-cpp-python's ``/extras/tokenize``) counts every prompt, and the probe
asks the chunk's first two lanes for real. Skipped, as tests/test_model_server.py is,
without the server (a failure under CI)."""

from __future__ import annotations

from pathlib import Path

from streamer import api
from streamer.api.estimate import estimate
from tests.model_server import Recorder
from tests.test_model_server import LANES, crd3_slice, server, write_config

__all__ = ["crd3_slice", "server"]  # the real server's fixtures, shared


def test_the_estimate_counts_with_the_servers_tokenizer(
    server: Recorder, crd3_slice: Path, tmp_path: Path
) -> None:
    config = api.load_config(write_config(tmp_path, server.base_url, "json_object_schema"))
    server.take()
    found = estimate(config, crd3_slice, None)
    exchanges = server.take()
    counts = [len(e.answer["tokens"]) for e in exchanges if "input" in e.body and e.answer]
    chats = [e for e in exchanges if "messages" in e.body]
    assert (found.chunks, found.requests, found.counted_by) == (1, len(LANES), "server")
    assert found.prompt_tokens == sum(counts) and len(counts) == len(LANES)
    assert len(chats) == len(found.probe_seconds) == 2
    for chat, count in zip(chats, counts[:2], strict=True):
        # the server's usage adds the chat template's few tokens a message to the text
        assert 0 < chat.usage["prompt_tokens"] - count < 32
