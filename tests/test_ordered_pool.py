"""The ordered process pool (``framework.processes.ordered_pool``) on its own: results in task
order whatever the sizes and the number of workers, against the work done in this
process; an error of the tasks after the results before it; a worker that dies is an
error, not a hang; no worker outlives the pool."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamer.framework.processes.ordered_pool import IN_FLIGHT, OrderedPool, WorkerError
from tests.support import live_children


@pytest.fixture
def before() -> set[int]:
    return live_children()  # whatever the test run had already started (a forkserver...)


def reverse(data: bytearray) -> list[bytes]:
    """The work: the data reversed, twice (a result in parts)."""
    return [bytes(data[::-1]), bytes(data[::-1])]


def expected(data: bytes) -> bytes:
    return data[::-1] * 2


def in_place(data: bytearray) -> list[memoryview]:
    """Work on the data in place: the result is a view of the task's own buffer."""
    data[:1] = b"!"[: len(data)]
    return [memoryview(data)]


def die(data: bytearray) -> list[bytes]:
    os._exit(1)


def test_results_come_in_order_and_an_error_after_those_before_it(before: set[int]) -> None:
    sizes = (0, 1, 5, 70_000, 3 << 20, 9, 2 << 20, 0)
    tasks = [os.urandom(size) for size in sizes]

    def failing() -> Iterator[bytes]:
        yield from tasks
        raise ValueError("the tasks failed")

    with OrderedPool(3, reverse) as pool:
        results = []
        with pytest.raises(ValueError, match="the tasks failed"):
            for task, result in pool.map(failing()):
                results.append((task, bytes(result)))
        assert results == [(task, expected(task)) for task in tasks]
        assert len(live_children() - before) == 3
    assert live_children() - before == set()


@settings(max_examples=24, deadline=None)
@given(
    jobs=st.integers(0, 3),
    local=st.booleans(),
    tasks=st.lists(st.binary(max_size=300)),
)
def test_any_tasks_give_the_work_done_here_in_order(
    jobs: int, local: bool, tasks: list[bytes]
) -> None:
    """More tasks than the workers hold in flight (``IN_FLIGHT`` each) and fewer; with
    ``local``, this process working too (with no worker, alone)."""
    local = local or jobs == 0
    with OrderedPool(jobs, reverse) as pool:
        results = [(task, bytes(result)) for task, result in pool.map(tasks, local=local)]
    assert results == [(task, expected(task)) for task in tasks]


def test_a_pool_is_used_for_several_maps_and_works_in_place() -> None:
    tasks = [b"xyz", b"", b"q" * 100_000]
    with OrderedPool(2, in_place) as pool:
        for _ in range(2):
            results = [bytes(result) for _, result in pool.map(tasks)]
            assert results == [b"!yz", b"", b"!" + b"q" * 99_999]


def byte_by_byte(data: bytearray) -> list[bytes]:
    """A result in as many parts as the data has bytes (more than ``writev`` takes at
    once), some empty."""
    return [bytes([b]) if i % 3 else b"" for i, b in enumerate(data)] + [bytes(data[::3])]


def test_a_result_in_more_parts_than_one_write_takes_comes_whole() -> None:
    data = bytes(range(256)) * 20
    with OrderedPool(2, byte_by_byte) as pool:
        results = [bytes(result) for _, result in pool.map([data, data[:7]])]
    for result, task in zip(results, (data, data[:7]), strict=True):
        assert result == bytes(b for i, b in enumerate(task) if i % 3) + task[::3]


def test_a_map_left_early_and_a_closed_pool_leave_no_worker(before: set[int]) -> None:
    many = [bytes([n]) * 1000 for n in range(2 * 3 * IN_FLIGHT)]
    with OrderedPool(3, reverse) as pool:
        for task, result in pool.map(many):
            assert bytes(result) == expected(task)
            break
    assert live_children() - before == set()


def test_a_worker_that_dies_is_an_error_not_a_hang(before: set[int]) -> None:
    with OrderedPool(2, die) as pool, pytest.raises(WorkerError) as raised:
        list(pool.map([b"a", b"", b"c"]))
    assert raised.value.exit_status == 1
    assert raised.value.one_line() == (
        "a worker process of --jobs ended before returning its result "
        "(hint: it may have been killed (out of memory?); try a lower --jobs)"
    )
    assert live_children() - before == set()


def test_an_error_while_starting_leaves_no_worker(before: set[int]) -> None:
    class Refused(Exception):
        pass

    started = 0

    def refusing(*args: Any, **kwargs: Any) -> None:
        nonlocal started
        started += 1
        if started == 2:
            raise Refused
        original(*args, **kwargs)

    import multiprocessing.process

    original = multiprocessing.process.BaseProcess.start
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(multiprocessing.process.BaseProcess, "start", refusing)
        with pytest.raises(Refused), OrderedPool(3, reverse):
            pass  # pragma: no cover
    assert started == 2
    assert live_children() - before == set()


# -- local: this process works too ---------------------------------------------------------


def test_with_no_worker_this_process_does_every_task(before: set[int]) -> None:
    tasks = [b"xyz", b"", bytes(range(256)) * 9]
    with OrderedPool(0, reverse) as pool:
        assert live_children() - before == set()
        results = [(task, bytes(result)) for task, result in pool.map(tasks, local=True)]
    assert results == [(task, expected(task)) for task in tasks]


def test_this_process_takes_the_next_task_while_every_worker_has_work() -> None:
    """The worker cannot answer until this process has done a task itself: so the task
    after the ``IN_FLIGHT`` handed to the worker is done here, and nothing hangs."""
    gate_out, gate_in = os.pipe()
    main = os.getpid()

    def gated(data: bytearray) -> list[bytes]:
        if os.getpid() == main:
            os.write(gate_in, b"g" * 64)  # lets the worker answer its tasks
        else:
            os.read(gate_out, 1)
        return [os.getpid().to_bytes(4, "little"), bytes(data)]

    tasks = [bytes([n]) for n in range(2 * IN_FLIGHT)]
    try:
        with OrderedPool(1, gated) as pool:
            worker = pool._workers[0].process.pid
            results = [bytes(result) for _, result in pool.map(tasks, local=True)]
    finally:
        os.close(gate_out)
        os.close(gate_in)
    pids = [int.from_bytes(result[:4], "little") for result in results]
    assert [result[4:] for result in results] == tasks
    assert pids[:IN_FLIGHT] == [worker] * IN_FLIGHT
    assert pids[IN_FLIGHT] == main
    assert set(pids) <= {main, worker}


def test_an_error_of_the_tasks_comes_after_the_results_before_it_with_local_work() -> None:
    tasks = [bytes([n]) * 100 for n in range(3 * IN_FLIGHT)]

    def failing() -> Iterator[bytes]:
        yield from tasks
        raise ValueError("the tasks failed")

    for workers in (0, 1, 2):
        results = []
        with OrderedPool(workers, reverse) as pool, pytest.raises(ValueError, match="failed"):
            for task, result in pool.map(failing(), local=True):
                results.append((task, bytes(result)))
        assert results == [(task, expected(task)) for task in tasks]
