"""``--jobs N``: the source's blocks parsed by N worker processes publish the bytes of
``--jobs 1`` and fail with its messages and exit statuses, on both forms, from a file and
from standard input, with buffers that split blocks everywhere (mid character too); the
workers never outlive the run (an error, Ctrl-C, SIGTERM, a closed pipe, a worker thread).
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamer import api
from streamer.framework.errors.types import StreamerError
from streamer.framework.processes import ordered_pool
from streamer.framework.source import parallel
from streamer.framework.source.reader import SourceDocumentReader
from tests.bundle_support import bundle_files
from tests.support import (
    REPO,
    Case,
    digest_of,
    live_children,
    peak_rss_of,
    ref,
    run_cli,
    spell,
    stopped,
    unit,
    write_case,
)

TEXTS = ["Roll — 🎲 «now»", 'He says: {"unit_id": "zz"}]} \\ and', "Ünïcödé ✓ \u2028", "", "ok"]


def doc_units(count: int) -> list[dict[str, Any]]:
    out = []
    for i in range(count):
        text = TEXTS[i % len(TEXTS)] * (1 + i % 3)
        if i % 4 == 0:
            out.append(unit(f"u{i}", text, speaker="MATT", start_ms=i, end_ms=i + 3))
        elif i % 4 == 1:
            out.append({**unit(f"u{i}", text), "source_ref": ref(f"u{i}")})
        elif i % 4 == 2:
            out.append({**unit(f"u{i}", text, kind="narration"), "metadata": {}})
        else:
            out.append(unit(f"u{i}", text, speaker="LAURA"))
    return out


UNITS = doc_units(60)
LANES = {"spells": [spell("s1", ref("u3"), ref("u10", "u12")), spell("s2", ref("u41"))]}


BEFORE = live_children()  # whatever the test run had already started (a forkserver...)


@pytest.fixture(autouse=True)
def _children_before() -> None:
    global BEFORE
    BEFORE = live_children()


def children() -> set[int]:
    """The child processes started since the test began (and still there)."""
    return live_children() - BEFORE


def evidence_of(case: Case, jobs: int, buffer_size: int, source: Any = None) -> bytes:
    out = io.BytesIO()
    api.evidence(
        api.load_config(case.config),
        case.source if source is None else source,
        case.lanes_dir,
        output=out,
        jobs=jobs,
        buffer_size=buffer_size,
    )
    return out.getvalue()


def outcome(action: Callable[..., Any], *args: Any) -> Any:
    """What ``action(*args)`` returned, or the class, exit status and message of its error."""
    try:
        return action(*args)
    except StreamerError as error:
        return type(error).__name__, error.exit_status, error.one_line()


@pytest.mark.parametrize("form", ["jsonl", "json"])
@pytest.mark.parametrize("buffer_size", [1, 5, 97, 4096, 1 << 20])
def test_evidence_is_byte_identical_for_every_jobs(
    tmp_path: Path, form: str, buffer_size: int
) -> None:
    case = write_case(tmp_path, UNITS, LANES, form=form)
    expected = evidence_of(case, 1, buffer_size)
    assert expected.count(b'"unit_id"') >= 10  # something is published
    for jobs in (2, 3):
        assert evidence_of(case, jobs, buffer_size) == expected
        stream = io.BytesIO(case.source.read_bytes())  # a stream, not a path
        assert evidence_of(case, jobs, buffer_size, source=stream) == expected
    assert children() == set()


@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_the_reader_yields_the_same_units_and_identity(form: str, tmp_path: Path) -> None:
    case = write_case(tmp_path, UNITS, LANES, form=form)
    data = case.source.read_bytes()
    results = []
    for jobs in (1, 2, 3):
        reader = SourceDocumentReader(io.BytesIO(data), buffer_size=13, jobs=jobs)
        batches = list(reader.batches())
        units = [msgspec.json.encode(u) for b in batches for u in b.units]
        ids = [unit_id for b in batches for unit_id in b.ids]
        results.append((units, ids, reader.identity))
    assert results[1] == results[0] == results[2]
    assert results[0][2].semantic_digest == digest_of(UNITS)


@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_bundle_is_byte_identical_for_every_jobs(tmp_path: Path, form: str) -> None:
    case = write_case(tmp_path / "case", UNITS, LANES, form=form)
    config = api.load_config(case.config)
    folders = []
    for jobs, buffer_size in [(1, 7), (2, 7), (3, 7), (2, 1 << 20)]:
        folder = tmp_path / f"bundle-{jobs}-{buffer_size}"
        api.bundle(config, case.source, case.lanes_dir, folder, jobs=jobs, buffer_size=buffer_size)
        folders.append(bundle_files(folder))
    assert "evidence-context.json" in {Path(name).name for name in folders[0]}
    assert all(files == folders[0] for files in folders)


@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_standard_input_gives_the_same_bytes(tmp_path: Path, form: str) -> None:
    case = write_case(tmp_path / "case", UNITS, LANES, form=form)
    data = case.source.read_bytes()
    runs = [run_cli([*case.args("--jobs", str(jobs), source="-")], stdin=data) for jobs in (1, 2)]
    assert [run.status for run in runs] == [0, 0], runs[1].stderr
    assert runs[1].stdout == runs[0].stdout
    assert runs[0].stdout == evidence_of(case, 1, 1 << 20)
    bundles = []
    for jobs in (1, 3):
        folder = tmp_path / f"b{jobs}"
        args = ["bundle", *case.args("--output", str(folder), "--jobs", str(jobs), source="-")[1:]]
        run = run_cli(args, stdin=data)
        assert run.status == 0, run.stderr
        bundles.append(bundle_files(folder))
    assert bundles[1] == bundles[0]


def test_progress_reaches_the_end_of_the_file_with_workers(tmp_path: Path) -> None:
    """From a file the workers read the lines themselves: the progress line still
    grows to the file's size, and the bytes are those of ``--jobs 1``."""
    from streamer.framework.source import parallel

    case = write_case(tmp_path, UNITS, LANES)
    size = case.source.stat().st_size
    outputs, reports = [], []
    for jobs in (1, 2):
        seen: list[tuple[int, int | None]] = []

        def progress(done: int, total: int | None, seen: list[Any] = seen) -> None:
            seen.append((done, total))

        out = io.BytesIO()
        with mock.patch.object(parallel, "TASK_SIZE", 300):
            api.evidence(
                api.load_config(case.config),
                case.source,
                case.lanes_dir,
                output=out,
                jobs=jobs,
                buffer_size=200,
                progress=progress,
            )
        outputs.append(out.getvalue())
        reports.append(seen)
    assert outputs[1] == outputs[0]
    for seen in reports:
        assert seen[-1] == (size, size)
        assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert len(reports[1]) >= size // 300  # a report a task (and the head's)


@pytest.mark.parametrize("jobs", ["0", "65", "-1", "two"])
def test_jobs_out_of_range_is_a_usage_error_with_a_hint(tmp_path: Path, jobs: str) -> None:
    case = write_case(tmp_path, UNITS, LANES)
    run = run_cli(case.args("--jobs", jobs, "--output", str(tmp_path / "out.json")))
    assert run.status == 2
    assert not (tmp_path / "out.json").exists()
    if jobs in ("0", "65", "-1"):
        assert run.stderr == (
            "streamer: error: --jobs must be a whole number from 1 to 64 (hint: 1 (the "
            "default) parses in the main process alone; raise it to the cores you have)\n"
        )


# -- errors: the first in document order, the message and status of --jobs 1 ---------------


def raw_items(items: list[dict[str, Any]]) -> list[bytes]:
    return [orjson.dumps(item) for item in items]


def jsonl_document(items: list[bytes], digest: str) -> bytes:
    header = orjson.dumps({"document_id": "doc-1", "semantic_digest": digest})
    return b"\n".join([header, *items]) + b"\n"


def json_document(items: list[bytes], digest: str) -> bytes:
    head = b'{"document_id":"doc-1","semantic_digest":"' + digest.encode() + b'","units":[\n'
    return head + b",\n".join(items) + b"\n]}"


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def plant(kind: str, position: int) -> tuple[list[bytes], str]:
    """The items of ``UNITS`` with one error of ``kind`` planted at ``position``, and the
    digest to declare."""
    items = raw_items(UNITS)
    digest = digest_of(UNITS)
    at = items[position]
    if kind == "bad unit":
        items[position] = orjson.dumps({**UNITS[position], "text": 5})
    elif kind == "duplicate member":
        items[position] = at[:-1] + b',"kind":"again"}'
    elif kind == "digest mismatch":
        digest = "sha256:" + "0" * 64
    elif kind == "start after end":
        items[position] = orjson.dumps(unit(f"u{position}", "x", start_ms=9, end_ms=2))
    elif kind == "duplicate referenced ID":
        items[position] = orjson.dumps(unit("u3", "again"))
    elif kind == "nesting too deep":
        items[position] = at[:-1] + b',"metadata":{"speaker":' + deep(40) + b"}}"
    elif kind == "invalid JSON":
        items[position] = at[:-3]
    elif kind == "not UTF-8":
        items[position] = at.replace(b'"text":"', b'"text":"\xff', 1)
    elif kind == "two errors":  # the first one wins
        items[position] = orjson.dumps({**UNITS[position], "kind": ""})
        items[-1] = items[-1][:-2]
    elif kind == "foreign self-reference":
        items[position] = orjson.dumps({**UNITS[position], "source_ref": ref("u0")})
    return items, digest


ERRORS = [
    "bad unit",
    "duplicate member",
    "digest mismatch",
    "start after end",
    "duplicate referenced ID",
    "nesting too deep",
    "invalid JSON",
    "not UTF-8",
    "two errors",
    "foreign self-reference",
]


class _Pool(ordered_pool.OrderedPool):
    """The pool of ``--jobs`` with every task done by one side: ``here`` (no worker: this
    process parses them all) or ``workers`` (this process parses none)."""

    side = "here"
    made = 0  # pools made since the fixture set this side

    def __init__(self, jobs: int, work: ordered_pool.Work) -> None:
        super().__init__(0 if self.side == "here" else jobs, work)
        _Pool.made += 1

    def map(
        self, tasks: Iterable[ordered_pool.Task], local: bool = False
    ) -> Iterator[tuple[ordered_pool.Task, bytearray]]:
        return super().map(tasks, local=self.side == "here")


@pytest.fixture(params=["mixed", "here", "workers"])
def parsers(request: pytest.FixtureRequest) -> Iterator[str]:
    """Who parses the tasks of ``--jobs``: the workers and this process as they go
    (``mixed``), or every task one side, so that each side's errors are checked."""
    _Pool.made = 0
    if request.param == "mixed":
        yield request.param
        return
    side = type("Side", (_Pool,), {"side": request.param})
    with mock.patch.object(parallel, "OrderedPool", side):
        yield request.param


@pytest.mark.parametrize("form", ["jsonl", "json"])
@pytest.mark.parametrize("kind", ERRORS)
def test_errors_are_those_of_one_job(tmp_path: Path, form: str, kind: str, parsers: str) -> None:
    case = write_case(tmp_path, UNITS, LANES, form=form)
    seen = set()
    for position in (4, 29, 59 if kind != "two errors" else 40):
        items, digest = plant(kind, position)
        document = (jsonl_document if form == "jsonl" else json_document)(items, digest)
        case.source.write_bytes(document)
        for buffer_size in (5, 300, 1 << 20):
            expected = outcome(evidence_of, case, 1, buffer_size)
            assert isinstance(expected, tuple), f"{kind} at {position} is not an error"
            seen.add(expected[2])
            for jobs in (2, 3):
                assert outcome(evidence_of, case, jobs, buffer_size) == expected
    if kind != "digest mismatch":
        assert len(seen) >= 2, f"{kind}: the messages should name the place"
    assert children() == set()
    assert (_Pool.made > 0) == (parsers != "mixed" and form == "jsonl")  # the side was used


@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_structural_errors_are_those_of_one_job(tmp_path: Path, form: str) -> None:
    """Errors found while the blocks are cut (a blank line before a unit, the end inside
    ``units``, a bad member after it): raised after every block before them."""
    case = write_case(tmp_path, UNITS, LANES, form=form)
    items = raw_items(UNITS)
    digest = digest_of(UNITS)
    documents = []
    if form == "jsonl":
        good = jsonl_document(items, digest)
        documents.append(good.replace(b"\n", b"\n\n", 30).replace(b"\n\n", b"\n", 29))
        documents.append(good + b"\n\n\n" + items[0] + b"\n")
        documents.append(good[: len(good) // 2])
        documents.append(good.replace(items[20], items[20][:-1] + b',"x":1}') + b"\n\n" + b"{")
    else:
        good = json_document(items, digest)
        documents.append(good[: len(good) // 2])
        documents.append(good[:-1] + b',"document_id":"x"}')
        documents.append(good[:-1] + b',"extra":' + deep(40) + b"}")
        documents.append(good[:-1] + b',"extra":[1]}')
        documents.append(good + b"x")
        bad = good.replace(items[20], orjson.dumps({**UNITS[20], "text": 5}))
        documents.append(bad[:-1] + b',"extra":' + deep(40) + b"}")
    for document in documents:
        case.source.write_bytes(document)
        for buffer_size in (3, 64, 1 << 20):
            expected = outcome(evidence_of, case, 1, buffer_size)
            assert isinstance(expected, tuple)
            for jobs in (2, 3):
                assert outcome(evidence_of, case, jobs, buffer_size) == expected
    assert children() == set()


@pytest.mark.parametrize("task_size", [1, 97])
def test_errors_are_those_of_one_job_whichever_task_they_fall_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task_size: int, parsers: str
) -> None:
    """From a file, the workers read ranges of it: a task that fails is read again from
    the block of ``--jobs 1`` that holds its first line, which may begin in the task
    before; every error and structural error, in many small tasks."""
    from streamer.framework.source import parallel

    monkeypatch.setattr(parallel, "TASK_SIZE", task_size)
    monkeypatch.setattr(parallel, "PART_SIZE", 50)
    case = write_case(tmp_path, UNITS, LANES)
    items, digest = raw_items(UNITS), digest_of(UNITS)
    good = jsonl_document(items, digest)
    documents = [jsonl_document(*plant(kind, 29)) for kind in ERRORS]
    documents.append(good.replace(b"\n", b"\n\n", 30).replace(b"\n\n", b"\n", 29))
    documents.append(good + b"\n\n\n" + items[0] + b"\n")
    documents.append(good[: len(good) // 2])
    for document in documents:
        case.source.write_bytes(document)
        for buffer_size in (5, 300):
            expected = outcome(evidence_of, case, 1, buffer_size)
            assert isinstance(expected, tuple)
            assert outcome(evidence_of, case, 2, buffer_size) == expected
    assert children() == set()
    assert (_Pool.made > 0) == (parsers != "mixed")


def test_a_task_read_again_is_read_in_the_blocks_of_one_job_after_the_head(
    tmp_path: Path,
) -> None:
    """The first reads of ``--jobs 1`` stop where the head's reader stopped reading
    ahead, so its first block may be short; which of two errors in a row is named
    depends on where the blocks end, and a task read again must be read in the same
    blocks (buffers of a few lines: the head's read-ahead ends in the first one)."""
    case = write_case(tmp_path, UNITS, LANES)
    for position in (0, 2):
        items = raw_items(UNITS)
        items[position] = orjson.dumps({**UNITS[position], "text": 5})  # of the wrong type
        items[position + 1] = items[position + 1][:-3]  # then a line that is not JSON
        case.source.write_bytes(jsonl_document(items, digest_of(UNITS)))
        for buffer_size in range(100, 400, 9):
            expected = outcome(evidence_of, case, 1, buffer_size)
            with mock.patch.object(parallel, "TASK_SIZE", 40):
                assert outcome(evidence_of, case, 2, buffer_size) == expected, buffer_size


def test_the_command_line_error_and_status_are_those_of_one_job(tmp_path: Path) -> None:
    case = write_case(tmp_path, UNITS, LANES)
    items, digest = plant("start after end", 33)
    case.source.write_bytes(jsonl_document(items, digest))
    runs = [run_cli(case.args("--jobs", str(jobs), "--output", "-")) for jobs in (1, 2)]
    assert runs[0].status == 3
    assert runs[0].stderr == "streamer: error: line 35.metadata: start_ms is after end_ms\n"
    assert (runs[1].status, runs[1].stdout, runs[1].stderr) == (3, b"", runs[0].stderr)


# -- a property: random small documents, random buffers -------------------------------------

TEXT = st.text(alphabet=st.sampled_from('aé🎲"\\{}[],:\n\u2028 '), max_size=12)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(0, 25))
    items = []
    for i in range(n):
        item: dict[str, Any] = {"unit_id": f"u{i}", "kind": "utterance", "text": draw(TEXT)}
        metadata = draw(st.sampled_from([None, {}, {"speaker": "A"}, {"start_ms": 1}]))
        if metadata is not None:
            item["metadata"] = metadata
        if draw(st.booleans()):
            item["source_ref"] = ref(f"u{i}")
        items.append(item)
    refs = []
    for _ in range(draw(st.integers(0, 3)) if n else 0):
        a = draw(st.integers(0, n - 1))
        refs.append(ref(f"u{a}", f"u{draw(st.integers(a, n - 1))}"))
    return {
        "units": items,
        "refs": refs,
        "form": draw(st.sampled_from(["json", "jsonl"])),
        "buffer_size": draw(st.integers(1, 300)),
        "jobs": draw(st.sampled_from([2, 3])),
        "window": draw(st.integers(0, 4)),
        "spoil": draw(st.sampled_from([None, "cut", "digest", "blank", "bad"])),
        "task_size": draw(st.sampled_from([1, 40, 300, 1 << 19])),
        "part_size": draw(st.integers(1, 400)),
    }


@settings(max_examples=60, deadline=None)
@given(documents())
def test_any_jobs_matches_one_job(document: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        lanes = {"spells": [spell("s1", *document["refs"])]} if document["refs"] else {}
        case = write_case(
            Path(folder),
            document["units"],
            lanes,
            configured=["spells"],
            allowlist=["spells"],
            window=document["window"],
            form=document["form"],
        )
        data = case.source.read_bytes()
        if document["spoil"] == "cut":
            case.source.write_bytes(data[: len(data) * 2 // 3])
        elif document["spoil"] == "digest":
            case.source.write_bytes(data.replace(case.digest.encode(), b"sha256:" + b"a" * 64))
        elif document["spoil"] in ("blank", "bad"):  # a blank line, or a line no unit
            lines = data.split(b"\n")
            at = len(lines) * 2 // 3
            lines[at:at] = [b"" if document["spoil"] == "blank" else b"[]"]
            case.source.write_bytes(b"\n".join(lines))
        size = document["buffer_size"]
        expected = outcome(evidence_of, case, 1, size)
        # the workers are forked: they see the tasks' and parts' sizes patched
        with (
            mock.patch.object(parallel, "TASK_SIZE", document["task_size"]),
            mock.patch.object(parallel, "PART_SIZE", document["part_size"]),
        ):
            assert outcome(evidence_of, case, document["jobs"], size) == expected


# -- no worker outlives the run ----------------------------------------------


def test_a_pass_left_early_ends_its_workers(tmp_path: Path) -> None:
    case = write_case(tmp_path, UNITS, LANES)
    with api.source_batches(case.source, jobs=3, buffer_size=50) as (batches, _):
        next(iter(batches))
        assert len(children()) == 2  # this process is the third
    assert children() == set()


def test_the_api_works_from_a_worker_thread(tmp_path: Path) -> None:
    case = write_case(tmp_path, UNITS, LANES)
    expected = evidence_of(case, 1, 100)
    got: list[Any] = []
    thread = threading.Thread(target=lambda: got.append(outcome(evidence_of, case, 2, 100)))
    thread.start()
    thread.join()
    assert got == [expected]
    assert children() == set()


def process_children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(child) for child in (task / "children").read_text().split()}
    return found


def state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]


def blocked_with_workers(process: subprocess.Popen[bytes], jobs: int) -> set[int]:
    """Poll until the process has its workers and sleeps reading its stdin; the workers."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, "the process ended before it was signalled"
        workers = process_children(process.pid)
        if len(workers) == jobs and state(process.pid) == "S":
            return workers
        time.sleep(0.01)
    raise AssertionError("the workers never started")


def gone(pid: int) -> bool:
    try:
        return state(pid) in ("Z", "X")  # reaped or about to be: not running
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize(
    ("signum", "status", "group"),
    [
        (signal.SIGINT, 130, True),  # Ctrl-C reaches the whole process group
        (signal.SIGTERM, 143, False),
        (signal.SIGTERM, 143, True),
        (signal.SIGHUP, 129, True),
    ],
)
def test_a_signal_ends_the_run_quietly_and_its_workers(
    tmp_path: Path, signum: int, status: int, group: bool
) -> None:
    case = write_case(tmp_path, doc_units(3000), LANES)
    data = case.source.read_bytes()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamer", *case.args("--jobs", "3", source="-")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        start_new_session=True,
    )
    assert process.stdin is not None
    process.stdin.write(data[: len(data) // 2])
    process.stdin.flush()
    workers = blocked_with_workers(process, 2)  # --jobs 3: this process and two workers
    if group:
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    stdout, stderr = process.communicate()
    assert (process.returncode, stdout, stderr) == (status, b"", stopped(status))
    assert all(gone(worker) for worker in workers)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_closed_output_pipe_ends_quietly_with_no_worker_left(tmp_path: Path) -> None:
    case = write_case(tmp_path, doc_units(3000), {"spells": [spell("s1", ref("u1", "u2900"))]})
    reader, writer = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamer", *case.args("--jobs", "2", "--output", "-")],
        stdin=subprocess.DEVNULL,
        stdout=writer,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        assert pipe.read(1) == b"{"  # the document is being written: then the pipe closes
        assert process_children(process.pid) == set()  # the pass, and its workers, ended
    _, stderr = process.communicate()
    assert (process.returncode, stderr) == (141, b"")


# -- memory: bounded with workers too ------------------------------------------------------


def test_peak_memory_with_jobs_stays_bounded(tmp_path: Path) -> None:
    from benchmarks.generate import generate

    dataset = generate(tmp_path / "data", 50_000_000, forms=("jsonl",))
    peaks, outputs = {}, {}
    for jobs in (1, 2):
        output = tmp_path / f"evidence-{jobs}.json"
        report = tmp_path / f"rusage-{jobs}.json"
        command = [sys.executable, "-m", "streamer", "evidence", "--config", str(dataset.config)]
        command += ["--source", str(dataset.source("jsonl")), "--lanes-dir"]
        command += [str(dataset.lanes_dir), "--output", str(output), "--jobs", str(jobs)]
        peaks[jobs], outputs[jobs] = peak_rss_of(command, report), output.read_bytes()
    assert outputs[2] == outputs[1]
    mib = 1 << 20
    # the largest process of the run (the main one: each worker holds a block or two)
    assert peaks[2] <= peaks[1] + 12 * mib, f"{peaks[1] / mib:.1f} -> {peaks[2] / mib:.1f} MiB"
    assert peaks[2] <= 96 * mib


@pytest.mark.parametrize(("task_size", "part_size"), [(1, 1), (300, 50), (2000, 700)])
def test_tasks_and_parts_of_any_size_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task_size: int, part_size: int
) -> None:
    """The blocks joined into tasks, and a task parsed in parts, by any sizes (the workers
    are forked: they see the patched sizes)."""
    from streamer.framework.source import parallel

    monkeypatch.setattr(parallel, "TASK_SIZE", task_size)
    monkeypatch.setattr(parallel, "PART_SIZE", part_size)
    case = write_case(tmp_path, UNITS, LANES)
    for buffer_size in (7, 100, 1 << 20):
        assert evidence_of(case, 2, buffer_size) == evidence_of(case, 1, buffer_size)
    for kind, position in [("start after end", 30), ("invalid JSON", 12), ("two errors", 40)]:
        items, digest = plant(kind, position)
        case.source.write_bytes(jsonl_document(items, digest))
        for buffer_size in (7, 100, 1 << 20):
            expected = outcome(evidence_of, case, 1, buffer_size)
            assert isinstance(expected, tuple)
            assert outcome(evidence_of, case, 3, buffer_size) == expected
