"""``--jobs N`` for the CRD3 import (``importers.parallel_import``): the runs of TURNS
converted by N processes, the bytes and the errors of the serial importer (``--jobs 1``,
the reference here), whatever the cuts; Ctrl-C and a worker's error as with one process."""

from __future__ import annotations

import io
import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamer.api.transcripts import import_transcript
from streamer.framework.errors.types import SourceError
from streamer.importers import crd3, json_items
from streamer.importers.document import write_document
from streamer.importers.formats import ImportOptions
from streamer.importers.parallel_import import write_runs
from tests.bundle_support import CRD3_EPISODES
from tests.run_support import CONFIG
from tests.support import invoke

Outcome = tuple[str, bytes] | tuple[str, str, str | None]


def _import(path: Path, out: Path, jobs: int, unit: str | None = None) -> Outcome:
    """The published document, or the error (message and hint) of importing ``path``."""
    out.unlink(missing_ok=True)
    try:
        import_transcript("crd3", path, document_id="d", output=out, unit=unit, jobs=jobs)
    except SourceError as error:
        assert not out.exists()
        return "error", error.message, error.hint
    return "document", out.read_bytes()


def _no_serial_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """The serial importer refuses to run: what is imported was read by ``--jobs``."""

    def refused(*args: Any) -> Any:
        raise AssertionError("read again by one process")

    monkeypatch.setattr(crd3, "read_crd3", refused)


@pytest.mark.skipif(not CRD3_EPISODES, reason="the shared CRD3 episodes are not here")
@pytest.mark.parametrize("unit", ["turn", "line"])
def test_a_real_episode_imports_the_bytes_of_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unit: str
) -> None:
    episode = CRD3_EPISODES[0]
    one = _import(episode, tmp_path / "one.jsonl", 1, unit)
    monkeypatch.setattr(crd3, "RUN_READ_SIZE", 1 << 14)  # the episode in about 60 runs
    _no_serial_reading(monkeypatch)
    assert _import(episode, tmp_path / "two.jsonl", 2, unit) == one
    assert _import(episode, tmp_path / "three.jsonl", 3, unit) == one
    assert one[0] == "document"
    lines = one[1].splitlines()
    header, first = json.loads(lines[0]), json.loads(lines[1])
    assert header["document_id"] == "d"
    assert first["unit_id"] == ("t00000" if unit == "turn" else "t00000-01")


def _turn(number: int, text: str) -> dict[str, Any]:
    return {"NAMES": ["MATT"], "UTTERANCES": [text], "NUMBER": number}


def _document(turns: list[Any], tail: bytes = b"]}") -> bytes:
    body = b",\n".join(json.dumps(turn, ensure_ascii=False).encode() for turn in turns)
    return b'{"METADATA": {"title": "x"}, "TURNS": [\n' + body + tail


# Each a transcript with its fault deep in it (the 40th turn of 50), in a run of its own.
FAULTS = {
    "a number out of order": (39, {"NAMES": ["LIAM"], "UTTERANCES": ["hi"], "NUMBER": 3}),
    "a name not a string": (39, {"NAMES": [7], "UTTERANCES": ["hi"], "NUMBER": 39}),
    "a member missing": (39, {"NAMES": ["LIAM"], "NUMBER": 39}),
    "not valid UTF-8": (39, _turn(39, "BYTE")),
    "a repeated member": (39, None),
}


def _faulty(fault: str) -> bytes:
    turns: list[Any] = [_turn(n, f"Turn {n}: Fire Bolt, café 💥") for n in range(50)]
    index, turn = FAULTS[fault]
    if turn is not None:
        turns[index] = turn
        if fault == "not valid UTF-8":
            return _document(turns).replace(b"BYTE", b"\xff")
        return _document(turns)
    repeated = b'{"NAMES": ["A"], "UTTERANCES": ["x"], "NUMBER": 39, "NUMBER": 40}'
    text = _document(turns)
    start = text.index(b'{"NAMES": ["MATT"], "UTTERANCES": ["Turn 39:')
    return text[:start] + repeated + text[text.index(b"}", start) + 1 :]


@pytest.mark.parametrize("read_size", [None, 256])
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_an_error_in_a_worker_is_reported_as_by_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, read_size: int | None
) -> None:
    """``None``: TURNS is one run, which the worker converts (the pool hands it the
    first task); 256: runs of a few turns, converted by the worker or this process."""
    transcript = tmp_path / "session.json"
    transcript.write_bytes(_faulty(fault))
    if read_size is not None:
        monkeypatch.setattr(crd3, "RUN_READ_SIZE", read_size)
        monkeypatch.setattr(json_items, "BUFFER_SIZE", read_size)
    written: list[object] = []

    def spied(*args: Any) -> object:
        written.append(write_runs(*args))
        return written[-1]

    monkeypatch.setattr(crd3, "write_runs", spied)
    runs = {}
    for jobs in ("1", "2"):
        runs[jobs] = invoke(
            [
                *("run", "--config", str(CONFIG), str(transcript)),
                *("--output", f"out{jobs}", "--jobs", jobs, "--quiet"),
            ],
            cwd=tmp_path,
        )
    assert runs["1"].status == runs["2"].status == 3
    assert runs["2"].stderr == runs["1"].stderr.replace("out1", "out2")
    assert runs["1"].stderr.startswith(f"streamer: error: crd3 {transcript}: "), runs["1"].stderr
    assert "$.TURNS[" in runs["1"].stderr
    assert written == [None]  # --jobs 2 gave up, and one process read it again
    assert sorted(path.name for path in tmp_path.iterdir()) == ["session.json"]


def test_the_errors_are_located_as_by_one_process(tmp_path: Path) -> None:
    transcript = tmp_path / "session.json"
    transcript.write_bytes(_faulty("a number out of order"))
    outcome = _import(transcript, tmp_path / "out.jsonl", 2)
    assert outcome == (
        "error",
        f"crd3 {transcript}: $.TURNS[39].NUMBER must be greater than the previous turn's",
        "CRD3 numbers its turns in transcript order",
    )


def test_ctrl_c_ends_the_workers_and_publishes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = tmp_path / "session.json"
    transcript.write_bytes(_document([_turn(n, "Fire Bolt " * 20) for n in range(400)]))
    monkeypatch.setattr(crd3, "RUN_READ_SIZE", 1024)
    _no_serial_reading(monkeypatch)

    def progress(done: int, total: int | None) -> None:
        if done > 20_000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_transcript(
            "crd3",
            transcript,
            document_id="d",
            output=tmp_path / "o.jsonl",
            progress=progress,
            jobs=2,
        )
    assert multiprocessing.active_children() == []
    assert sorted(path.name for path in tmp_path.iterdir()) == ["session.json"]


def _import_in_a_daemon(path: Path, out: Path) -> None:
    import_transcript("crd3", path, document_id="d", output=out, jobs=2)


def test_a_daemonic_process_imports_alone(tmp_path: Path) -> None:
    """A Dask worker's process may not start processes: it reads as ``--jobs 1``."""
    transcript = tmp_path / "session.json"
    transcript.write_bytes(_document([_turn(n, "Fire Bolt") for n in range(30)]))
    one = _import(transcript, tmp_path / "one.jsonl", 1)
    daemon = multiprocessing.get_context("fork").Process(
        target=_import_in_a_daemon, args=(transcript, tmp_path / "two.jsonl"), daemon=True
    )
    daemon.start()
    daemon.join()
    assert daemon.exitcode == 0
    assert one == ("document", (tmp_path / "two.jsonl").read_bytes())


# -- every cut, against the serial importer ---------------------------------------------


def _both(data: bytes, read_size: int, unit: str) -> tuple[Outcome, bytes | None]:
    """The serial importer's document of ``data`` (or its error), and what ``--jobs``'s
    reading writes of it (``None``: it gives up), cut from reads of ``read_size`` bytes
    (one process: ``OrderedPool`` without workers, the work of a worker in this one)."""
    options = ImportOptions(unit=unit)
    out = io.BytesIO()
    try:
        units = crd3.read_crd3(io.BytesIO(data), "line" if unit == "line" else "turn")
        write_document("d", units, out)
        serial: Outcome = ("document", out.getvalue())
    except SourceError as error:
        serial = ("error", error.message, error.hint)
    parallel = io.BytesIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(crd3, "RUN_READ_SIZE", read_size)
        patch.setattr(json_items, "BUFFER_SIZE", read_size)  # ijson's, before TURNS
        assert crd3.FORMAT.parallel is not None
        written = crd3.FORMAT.parallel("d", io.BytesIO(data), options, 1, parallel)
    return serial, None if written is None else parallel.getvalue()


_ADVERSARIAL = [
    {"NAMES": ["MATT "], "UTTERANCES": ['}, {"NAMES": [', "café 💥"], "NUMBER": 0},
    {"NAMES": [" ", "LIAM"], "UTTERANCES": ['\\"}]}, {', "x\u00e9"], "NUMBER": 2},
    {"NAMES": [], "UTTERANCES": [], "NUMBER": 7},
    {"NAMES": ["SAM"], "UTTERANCES": ["Fire Bolt", "", " ok "], "NUMBER": 9, "EXTRA": 1},
    {"NAMES": ["TRAVIS"], "UTTERANCES": ["💥💥💥 }, {"], "NUMBER": 10},
]


@pytest.mark.parametrize("unit", ["turn", "line"])
def test_every_read_size_cuts_the_bytes_of_one_process(unit: str) -> None:
    data = json.dumps({"METADATA": {"t": ["}, {"]}, "TURNS": _ADVERSARIAL}).encode()
    data = data.replace(b"\\u00e9", b"\\u00e9")  # an escape the cut must not split
    for read_size in range(1, len(data) + 1):
        serial, parallel = _both(data, read_size, unit)
        assert serial[0] == "document"
        assert parallel == serial[1], read_size


def test_a_turn_nesting_objects_is_read_again_by_one_process(tmp_path: Path) -> None:
    turns = [_turn(n, "x") for n in range(6)]
    turns[3]["EXTRA"] = [{"a": 1}, {"NAMES": 2}]  # "}, {"NAMES"" inside a turn: a wrong cut
    data = json.dumps({"TURNS": turns}).encode()
    given_up = []
    for read_size in range(1, len(data) + 1):
        serial, parallel = _both(data, read_size, "turn")
        assert serial[0] == "document"
        if parallel is None:
            given_up.append(read_size)
        else:
            assert parallel == serial[1]
    assert given_up[:3] == [43, 52, 53]  # the reads whose quick cut falls in the turn
    path = tmp_path / "nested.json"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(crd3, "RUN_READ_SIZE", 43)
        patch.setattr(json_items, "BUFFER_SIZE", 43)
        assert _import(path, tmp_path / "out.jsonl", 2) == serial


_TEXT = st.lists(
    st.sampled_from(["a", " ", "}", "{", '"', "\\", ",", "[", "]", "é", "💥", "\n", "NAMES"]),
    max_size=8,
).map("".join)
_TURN = st.fixed_dictionaries(
    {"NAMES": st.lists(_TEXT, max_size=2), "UTTERANCES": st.lists(_TEXT, max_size=3)},
    optional={"EXTRA": st.integers(0, 3)},
)


@st.composite
def _transcripts(draw: st.DrawFn) -> tuple[bytes, bool]:
    """A CRD3 transcript whose strings hold what the cuts look for (``}, {"NAMES"``,
    quotes, escapes, multi-byte characters), in one of JSON's layouts; maybe with numbers
    out of order, cut short or a byte changed. With whether it is valid as made."""
    turns = draw(st.lists(_TURN, min_size=1, max_size=10))
    numbers = sorted(draw(st.lists(st.integers(0, 30), min_size=len(turns), max_size=len(turns))))
    for turn, number in zip(turns, numbers, strict=True):
        turn["NUMBER"] = number
    indent = draw(st.sampled_from([None, 1]))
    document = {"METADATA": {"a": [1]}, "TURNS": turns}
    data = json.dumps(document, indent=indent, ensure_ascii=draw(st.booleans())).encode()
    valid = len(set(numbers)) == len(numbers)
    fault = draw(st.sampled_from(["none", "none", "cut", "byte"]))
    if fault == "cut":
        data = data[: draw(st.integers(1, len(data) - 1))]
    elif fault == "byte":
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.sampled_from(b'"{}[],:\\\xc3\xff0 '))]) + data[at + 1 :]
    return data, valid and fault == "none"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_transcripts(), st.integers(1, 96), st.sampled_from(["turn", "line"]))
def test_jobs_writes_what_one_process_writes_or_gives_up(
    transcript: tuple[bytes, bool], read_size: int, unit: str
) -> None:
    data, valid = transcript
    serial, parallel = _both(data, read_size, unit)
    if serial[0] == "error":
        assert parallel is None  # read again by one process, which raises its error
    else:
        assert parallel is None or parallel == serial[1]
    if valid:  # what the fast path reads is never read twice
        assert serial[0] == "document" and parallel == serial[1]
