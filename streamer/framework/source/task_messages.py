"""The messages of ``--jobs`` (``source.parallel``), MessagePack encoded once with
msgspec on one side of a pipe and decoded once on the other: a task of a regular file
(``FileTask``: the range of bytes whose lines it parses; a task of a pipe is its lines
themselves) and the result of any task (``TaskResult``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import msgspec

_encoder = msgspec.msgpack.Encoder()


class FileTask(msgspec.Struct, array_like=True, frozen=True):
    """A task of a regular file: the lines that start in ``[start, end)`` (byte offsets),
    or, when ``last``, every line from ``start`` to the end of the file."""

    start: int
    end: int
    last: bool


class TaskResult(msgspec.Struct, array_like=True):
    """The result of a task that parsed (a task that failed is ``None``: it is parsed
    again by the main process, which raises in its place).

    ``canonical`` comes last so that, decoded, it is a view of the message's last bytes
    (``canonical_lines``): the main process hashes the lines and decodes the units it
    publishes from them in place."""

    lines: int  # the task's lines
    blank: int  # its first blank line (1: the task's first; 0: none)
    units: int  # its units
    ids: msgspec.Raw  # their unit IDs (a MessagePack list), decoded when first read
    hits: list[tuple[int, str]] | None  # where the wanted IDs are (``find_hits``; None: none)
    mark_lines: list[int]  # where some lines start (``LineMarks``): line indexes
    mark_offsets: list[int]  # and byte offsets in ``canonical``
    canonical: memoryview  # the units' canonical lines, each ending with a newline


def encode_ids(ids: list[str]) -> msgspec.Raw:
    """The unit IDs of a ``TaskResult``."""
    return msgspec.Raw(_encoder.encode(ids))


def encode_task(task: FileTask) -> bytes:
    return _encoder.encode(task)


_task_decoder = msgspec.msgpack.Decoder(FileTask)


def decode_task(message: bytes | bytearray) -> FileTask:
    return _task_decoder.decode(message)


def encode_result(result: TaskResult | None) -> bytearray:
    """The message of ``result``, written into a new buffer (taken as it is by the pool)."""
    message = bytearray()
    _encoder.encode_into(result, message)
    return message


_result_decoder = msgspec.msgpack.Decoder(TaskResult | None)


def decode_result(message: bytes | bytearray) -> TaskResult | None:
    """The result of a task (``None``: it failed); its canonical lines are not copied."""
    return _result_decoder.decode(message)


def canonical_lines(result: TaskResult) -> tuple[bytes | bytearray, int]:
    """The message a decoded ``result`` was read from and where its canonical lines
    start in it: the last field, they are the message's last bytes."""
    message = result.canonical.obj
    if not isinstance(message, bytes | bytearray):  # pragma: no cover - decoded from one
        raise TypeError("a task's result is decoded from bytes")
    return message, len(message) - len(result.canonical)


class UnitIds(Sequence[str]):
    """The unit IDs of a task, decoded when first read (``evidence`` reads them only
    where it publishes; a chunk map reads them all)."""

    _decoder = msgspec.msgpack.Decoder(list[str])

    def __init__(self, encoded: msgspec.Raw, count: int) -> None:
        self._encoded: msgspec.Raw | None = encoded
        self._count = count
        self._ids: list[str] = []

    def _decoded(self) -> list[str]:
        if self._encoded is not None:
            self._ids = self._decoder.decode(self._encoded)
            self._encoded = None
        return self._ids

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        return self._decoded()[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())
