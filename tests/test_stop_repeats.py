"""``stop_repeats``: an answer streamed and stopped at its first repeated record.

``RepeatWatch`` against a brute-force reference (the first record equal to one before it,
by JSON value) over answers fed in pieces down to one character; the transport reading a
server-sent event stream written a byte at a time, closing it at the repeat without
waiting for the rest; and a run, per lane and combined, whose looping answer keeps the
records before the repeat, is not asked again and is counted in the receipt."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer import api
from streamer.extraction.repeats import RepeatWatch
from streamer.extraction.transport import ChatTransport
from tests.extract_support import SESSION, candidates, first_units, write_config
from tests.fake_openai import Reply, Request, fake_server
from tests.test_extract_combined import (
    EMPTY,
    IDS,
    LANES,
    asked_lane,
    is_combined,
    lane,
    part_of,
)

pytestmark = pytest.mark.usefixtures("sleeps")

# small records from a small alphabet, so that repeats are common; strings that look like
# JSON's own punctuation, and a nested array that repeats inside one record
TEXTS = st.sampled_from(["a", "b", 'x"]}', "[{,:", "\\", "é", ""])
RECORDS = st.fixed_dictionaries(
    {"spell": TEXTS, "refs": st.lists(st.sampled_from([[1, 1], [2, 3]]), max_size=3)}
)
GAPS = st.sampled_from(["", " ", "\n  "])


def first_repeat(records: list[Any]) -> int | None:
    for index, record in enumerate(records):
        if record in records[:index]:
            return index
    return None


def written(records: list[dict[str, Any]], gap: str, shuffled: bool) -> tuple[str, list[int]]:
    """``records`` as an answer, members in declaration order or reversed; where each
    record ends."""
    text = '{"records":' + gap + "["
    ends = []
    for index, value in enumerate(records):
        items = list(value.items())[:: -1 if shuffled else 1]
        members = f",{gap}".join(f"{json.dumps(k)}:{gap}{json.dumps(v)}" for k, v in items)
        text += ("," + gap if index else "") + "{" + members + "}"
        ends.append(len(text))
    return text + "]}", ends


def pieces(text: str, cuts: list[int]) -> list[int]:
    """Where each piece of ``text`` cut at ``cuts`` ends."""
    return [*sorted({cut for cut in cuts if 0 < cut < len(text)}), len(text)]


def fed(watch: RepeatWatch, text: str, ends: list[int]) -> int | None:
    """Feeds ``text`` in pieces ending at ``ends``; the end of the piece at which it saw
    the repeat."""
    start = 0
    for end in ends:
        if watch.feed(text[start:end]):
            return end
        start = end
    return None


@given(
    st.lists(RECORDS, max_size=6),
    GAPS,
    st.booleans(),
    st.lists(st.integers(0, 400), max_size=30),
)
def test_the_watch_stops_at_the_first_repeated_record(
    records: list[dict[str, Any]], gap: str, shuffled: bool, cuts: list[int]
) -> None:
    text, record_ends = written(records, gap, shuffled)
    watch = RepeatWatch()
    piece_ends = pieces(text, cuts)
    seen = fed(watch, text, piece_ends)
    repeat = first_repeat(records)
    if repeat is None:
        assert seen is None and not watch.repeated
        with pytest.raises(ValueError):
            watch.closed()
        return
    assert watch.repeated
    assert json.loads(watch.closed()) == {"records": records[:repeat]}
    # seen in the piece that ended the repeated record
    assert seen == min(end for end in piece_ends if end >= record_ends[repeat])


@given(st.lists(RECORDS, min_size=1, max_size=4), st.lists(RECORDS, max_size=5))
def test_in_a_combined_answer_the_members_before_are_kept(
    first: list[dict[str, Any]], second: list[dict[str, Any]]
) -> None:
    text = json.dumps({"spells": {"records": first}, "npcs": {"records": second}})
    watch = RepeatWatch()
    for char in text:
        if watch.feed(char):
            break
    (spells, npcs) = (first_repeat(first), first_repeat(second))
    if spells is not None:
        assert json.loads(watch.closed()) == {"spells": {"records": first[:spells]}}
    elif npcs is not None:
        assert json.loads(watch.closed()) == {
            "spells": {"records": first},
            "npcs": {"records": second[:npcs]},
        }
    else:
        assert not watch.repeated


def test_only_a_records_array_is_watched() -> None:
    watch = RepeatWatch()
    assert not watch.feed('{"other": [{"a": 1}, {"a": 1}], "records": [[1], 2, 2, "x", "x"')
    assert watch.feed(", [1]")
    assert watch.closed() == '{"other": [{"a": 1}, {"a": 1}], "records": [[1], 2, 2, "x", "x"]}'


ANSWER = {"spell": "Vax", "caster": None}


def looping(unit: str, times: int) -> list[dict[str, Any]]:
    record = {**ANSWER, "source_refs": [{"start_unit_id": unit, "end_unit_id": unit}]}
    other = {**record, "spell": "Shield"}
    return [other, *[record] * times]


async def no_wait(seconds: float) -> None:
    """The backoff's sleep, not slept."""


def ask(base_url: str, stop_repeats: bool, max_retries: int = 0) -> Any:
    async def main() -> Any:
        transport = ChatTransport(
            base_url,
            api_key=None,
            timeout_s=10.0,
            max_retries=max_retries,
            concurrency=1,
            sleep=no_wait,
        )
        try:
            return await transport.complete({"messages": []}, stop_repeats=stop_repeats)
        finally:
            await transport.aclose()

    return asyncio.run(main())


def test_the_transport_closes_the_stream_at_the_repeat() -> None:
    content = json.dumps({"records": looping("t1", 3)}, ensure_ascii=False)
    reply = Reply(content=content + " é", stream=True, piece=3, hold=True)
    with fake_server(lambda request: reply) as server:
        completion = ask(server.base_url, stop_repeats=True)
        server.wait_for(lambda fake: fake.closed_by_client == 1)
    assert server.requests[0].body["stream"] is True
    assert server.requests[0].body["stream_options"] == {"include_usage": True}
    assert completion.repeated and completion.finish_reason == "stop"
    assert json.loads(completion.content) == {"records": looping("t1", 1)}
    # no usage came before the stop: the pieces received are the completion tokens
    assert completion.prompt_tokens == 0
    shield, vax = (json.dumps(record) for record in looping("t1", 1))
    repeat_end = len('{"records": [' + ", ".join([shield, vax, vax]))
    assert content.startswith('{"records": [' + ", ".join([shield, vax, vax]))
    assert completion.completion_tokens == -(-repeat_end // 3)  # the piece that ended it


def test_a_stream_without_a_repeat_is_read_whole_with_its_usage() -> None:
    content = json.dumps({"records": looping("t1", 1)}, ensure_ascii=False) + "é"
    reply = Reply(content=content, stream=True, piece=2, timings={"prompt_n": 7})
    with fake_server(lambda request: reply) as server:
        completion = ask(server.base_url, stop_repeats=True)
    assert (completion.content, completion.finish_reason, completion.repeated) == (
        content,
        "stop",
        False,
    )
    assert (completion.prompt_tokens, completion.completion_tokens) == (100, 10)
    assert completion.timings is not None and completion.timings.prompt_evaluated == 7


def test_a_server_that_answers_a_stream_whole_is_read_as_before() -> None:
    content = json.dumps({"records": looping("t1", 2)})
    with fake_server(lambda request: Reply(content=content)) as server:
        completion = ask(server.base_url, stop_repeats=True)
    assert (completion.content, completion.repeated) == (content, False)


def test_without_stop_repeats_nothing_is_streamed() -> None:
    reply = Reply(content=json.dumps({"records": looping("t1", 2)}), stream=True)
    with fake_server(lambda request: reply) as server:
        completion = ask(server.base_url, stop_repeats=False)
    assert "stream" not in server.requests[0].body
    assert not completion.repeated and completion.completion_tokens == 10


def loops(request: Request) -> Reply:
    answer = {"records": looping(request.first_unit, 40)}
    return Reply(content=json.dumps(answer), stream=True, piece=8, hold=True)


def test_a_looping_lane_keeps_its_records_before_the_repeat(tmp_path: Path) -> None:
    with fake_server(loops) as server:
        config = write_config(tmp_path, server.base_url, stop_repeats=True)
        result = api.extract(api.load_config(config), SESSION, tmp_path / "out")
        server.wait_for(lambda fake: fake.closed_by_client == len(first_units()))
    spells = lane(result, "spells")
    chunks = len(first_units())
    assert (spells["status"], spells["requests"], spells["truncated"]) == ("ok", chunks, 0)
    assert spells["stopped_at_repeat"] == chunks
    written = candidates(tmp_path / "out" / "spells.jsonl")
    assert [record["record"]["spell"] for record in written[1:]] == ["Shield", "Vax"] * chunks


def rest_of(request: Request) -> list[str] | None:
    """The lanes a request asks again together, with the same questions (``REST_INTRO``)."""
    last = request.units.rsplit("\n", 1)[-1]
    if not last.startswith("Answer only questions "):
        return None
    return last.removeprefix("Answer only questions ").split(" above")[0].split(", ")


def test_a_combined_answer_stopped_asks_the_lanes_it_never_reached_together(
    tmp_path: Path,
) -> None:
    def script(request: Request) -> Reply:
        if is_combined(request):  # spells loops: npcs and items are never reached
            spells = {"records": looping(request.first_unit, 30)}
            content = json.dumps({"spells": spells, "npcs": EMPTY, "items": EMPTY})
            return Reply(content=content, stream=True, piece=5, hold=True)
        if rest_of(request) is not None:  # npcs answered, items left out: asked alone
            return Reply(content=json.dumps({"npcs": EMPTY}), stream=True)
        return Reply(content=json.dumps(part_of(request, asked_lane(request))), stream=True)

    with fake_server(script) as server:
        config = write_config(
            tmp_path,
            server.base_url,
            lanes=LANES,
            requests="combined",
            max_units=26,
            stop_repeats=True,
        )
        result = api.extract(api.load_config(config), SESSION, tmp_path / "out")
    first, rest, alone = server.requests
    assert (
        is_combined(first) and rest_of(rest) == ["npcs", "items"] and asked_lane(alone) == "items"
    )
    # the same questions, so that a prompt cache still holds them and the chunk's units
    assert rest.body["messages"][0] == first.body["messages"][0]
    assert rest.units.rsplit("\n", 1)[0] == first.units.rsplit("\n", 1)[0]
    assert list(rest.body["response_format"]["json_schema"]["schema"]["properties"]) == [
        "npcs",
        "items",
    ]
    assert rest.body["max_tokens"] == 2 * 1024
    receipts = [lane(result, lane_id) for lane_id in IDS]
    assert [each.get("stopped_at_repeat", 0) for each in receipts] == [1, 0, 0]
    assert [each["combined_requests"] for each in receipts] == [1, 2, 2]
    assert [(each["requests"], each["retries"]) for each in receipts] == [(0, 0), (0, 0), (1, 1)]
    assert [each["status"] for each in receipts] == ["ok"] * 3
    spells = candidates(tmp_path / "out" / "spells.jsonl")
    assert [record["record"]["spell"] for record in spells[1:]] == ["Shield", "Vax"]


def test_an_answer_stopped_is_keyed_apart(tmp_path: Path) -> None:
    def reply(request: Request) -> Reply:
        if request.body.get("stream"):
            return loops(request)
        return Reply(content=json.dumps({"records": looping(request.first_unit, 1)}))

    chunks = len(first_units())
    with fake_server(reply) as server:
        asked = []
        for stop_repeats in (True, True, False, False):
            config = write_config(tmp_path, server.base_url, stop_repeats=stop_repeats)
            before = len(server.requests)
            api.extract(api.load_config(config), SESSION, tmp_path / "out")
            asked.append(len(server.requests) - before)
    # a rerun reuses what the same setting asked; the other setting asks again
    assert asked == [chunks, 0, chunks, 0]


def test_a_stream_dropped_before_its_end_is_retried() -> None:
    content = json.dumps({"records": looping("t1", 1)})
    dropped = Reply(content=content[:20], stream=True, drop_stream=True)
    whole = Reply(content=content, stream=True)
    replies = iter([dropped, whole])
    with fake_server(lambda request: next(replies)) as server:
        completion = ask(server.base_url, stop_repeats=True, max_retries=1)
    assert len(server.requests) == 2 and completion.content == content
