"""The requests a run keeps in flight (``streamer/extraction/slots.py``): at most
``concurrency``, lowered for the rest of the run when a request timed out while others were
in flight, because the server queued it behind them."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer.extraction.slots import InFlight
from streamer.extraction.transport import ChatTransport, RequestFailed
from tests.extract_support import candidates, write_config
from tests.fake_openai import Reply, Request, always, fake_server
from tests.test_extract_combined import CHUNKS, IDS, LANES, answers, extract


async def _no_wait(seconds: float) -> None:
    return None


@given(
    st.integers(min_value=1, max_value=8),
    st.lists(st.sampled_from(["enter", "exit", "timeout"]), max_size=40),
)
def test_the_limit_is_half_the_busy_at_each_timeout_never_rising(
    limit: int, steps: list[str]
) -> None:
    """Against a reference written here: the limit only comes down, to half of those in
    flight at a timeout when more than one is, never below 1; nobody enters past it."""

    async def play() -> None:
        slots = InFlight(limit)
        expected, busy = limit, 0
        for step in steps:
            if step == "enter" and busy < expected:
                await slots.__aenter__()
                busy += 1
            elif step == "exit" and busy > 0:
                await slots.__aexit__(None, None, None)
                busy -= 1
            elif step == "timeout" and busy > 0:
                slots.crowded()
                if busy > 1:
                    expected = max(1, min(expected, busy // 2))
            slots._check()
            assert (slots.limit, slots.busy, slots.lowered) == (expected, busy, expected < limit)

    asyncio.run(play())


def test_an_entry_waits_for_the_lowered_limit() -> None:
    async def play() -> list[str]:
        slots, order = InFlight(4), list[str]()
        for _ in range(4):
            await slots.__aenter__()
        slots.crowded()  # four in flight: two from now on
        assert slots.limit == 2

        async def fifth() -> None:
            async with slots:
                order.append("fifth entered")

        waiting = asyncio.create_task(fifth())
        for left in (3, 2):
            await slots.__aexit__(None, None, None)
            await asyncio.sleep(0)  # the waiting task runs, if it may
            order.append(f"{left} in flight")
        await slots.__aexit__(None, None, None)
        await waiting
        slots._check()
        return order

    # still three, then two in flight: it waits; one in flight, under two: it enters
    assert asyncio.run(play()) == ["3 in flight", "2 in flight", "fifth entered"]


def test_first_come_first_in_and_a_cancelled_wait_gives_its_turn_up() -> None:
    async def play() -> list[str]:
        slots, order = InFlight(1), list[str]()
        await slots.__aenter__()  # A in flight

        async def enter(name: str) -> None:
            await slots.__aenter__()
            order.append(name)

        waiting_b = asyncio.create_task(enter("B"))
        waiting_c = asyncio.create_task(enter("C"))
        await asyncio.sleep(0)  # both wait
        waiting_b.cancel()
        await asyncio.gather(waiting_b, return_exceptions=True)
        await slots.__aexit__(None, None, None)  # A leaves and at once asks again
        again = asyncio.create_task(enter("A again"))
        await waiting_c
        slots._check()
        await slots.__aexit__(None, None, None)
        await again
        await slots.__aexit__(None, None, None)
        slots._check()
        assert slots.busy == 0
        return order

    assert asyncio.run(play()) == ["C", "A again"]


def test_a_lone_timeout_leaves_the_limit() -> None:
    slots = InFlight(3)
    asyncio.run(slots.__aenter__())
    slots.crowded()
    assert (slots.limit, slots.lowered) == (3, False)
    with pytest.raises(ValueError, match="limit must be >= 1"):
        InFlight(0)


def two_at_once(
    base_url: str, *, timeout_s: float, stop_repeats: bool
) -> tuple[list[object], ChatTransport]:
    """Two requests sent at once by a transport of two in flight (one retry each, no
    backoff wait): what each came to (a completion or an error), and the transport."""
    transport = ChatTransport(
        base_url, api_key=None, timeout_s=timeout_s, max_retries=1, concurrency=2, sleep=_no_wait
    )
    assert transport.in_flight_limit == 2

    async def two() -> list[object]:
        try:
            body = {"model": "m", "messages": []}
            asked = [transport.complete(body, stop_repeats=stop_repeats) for _ in range(2)]
            return list(await asyncio.gather(*asked, return_exceptions=True))
        finally:
            await transport.aclose()

    return asyncio.run(two()), transport


def test_requests_a_server_never_answers_lower_the_transport_to_one() -> None:
    """Two requests in flight, neither answered within ``timeout_s``: the server is taken
    to queue them, and their retries go one at a time."""
    with fake_server(always(Reply(hang=True))) as server:
        failed, transport = two_at_once(server.base_url, timeout_s=0.3, stop_repeats=False)
        assert len(server.requests) == 4
    assert [type(each) for each in failed] == [RequestFailed, RequestFailed]
    assert transport.in_flight_limit == 1


def test_answers_cut_off_for_another_request_lower_the_transport_to_one() -> None:
    """llama-cpp-python ends a streamed answer with ``[DONE]`` and no finish reason when
    another request waits: both answers in flight are cut off, so the server serves one
    at a time; each is asked again, alone, and answered whole."""
    arrivals = itertools.count()
    whole = '{"records": []}'

    def script(request: Request) -> Reply:
        cut = next(arrivals) < 2
        return Reply(stream=True, piece=4, cut_off=cut, content='{"records": [' if cut else whole)

    with fake_server(script) as server:
        answered, transport = two_at_once(server.base_url, timeout_s=5, stop_repeats=True)
        assert len(server.requests) == 4
    assert [getattr(each, "content", each) for each in answered] == [whole, whole]
    assert transport.in_flight_limit == 1


def test_a_run_whose_server_queued_says_so_and_loses_nothing(tmp_path: Path) -> None:
    """After the first answer (nothing else is asked before the server accepted one),
    two combined requests in flight are never answered (queued, as far as the run can
    tell): both time out, the run keeps one request in flight from then on, every chunk
    is answered, and every model lane's receipt says to what the run lowered itself."""
    arrivals = itertools.count()

    def script(request: Request) -> Reply:
        return Reply(hang=True) if next(arrivals) in (1, 2) else answers(request)

    with fake_server(script) as server:
        config = write_config(
            tmp_path,
            server.base_url,
            lanes=LANES,
            concurrency=2,
            timeout_s=0.3,
        )
        result = extract(config, tmp_path / "out")
        assert len(server.requests) == 2 + CHUNKS
    assert result.receipt()["status"] == "ok"
    assert [
        (each["lane_id"], each["combined_requests"], each["in_flight_lowered_to"])
        for each in result.lanes
    ] == [(lane_id, CHUNKS + 2, 1) for lane_id in IDS]
    assert len(candidates(tmp_path / "out" / "spells.jsonl")) == 1 + CHUNKS


def test_a_run_whose_server_kept_up_says_nothing_of_it(tmp_path: Path) -> None:
    with fake_server(answers) as server:
        config = write_config(tmp_path, server.base_url, lanes=LANES, concurrency=2)
        result = extract(config, tmp_path / "out")
    assert all("in_flight_lowered_to" not in each for each in result.lanes)
