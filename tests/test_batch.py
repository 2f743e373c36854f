"""``streamer batch``: a manifest checked before anything runs; sessions isolated on a
local pool and on a real Dask cluster, each bundle byte-identical to a sequential
``run``; the bad session reported in batch.jsonl; a rerun skips the finished ones."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer import api
from streamer.api.batch_summary import SUMMARY_FILE
from streamer.api.batches import BatchProgress
from streamer.api.runs import report_path_of, work_folder_of
from streamer.framework.errors.types import ConfigurationError
from tests.run_support import CONFIG, IMPORT, tree
from tests.support import REPO, invoke

BATCH = REPO / "fixtures" / "batch"
CAMPAIGN = BATCH / "campaign.csv"
WITH_CORRUPT = BATCH / "with-corrupt.jsonl"
GOOD = {
    "bridge-webvtt": ("bridge.vtt", "webvtt"),
    "bridge-crd3": ("bridge-crd3.json", "crd3"),
    "bridge-text": ("bridge.txt", "text"),
}
CORRUPT_ERROR = f"webvtt {BATCH / 'corrupt.vtt'}: line 3 (cue 1): the cue ends before it starts"


def quiet(_: str) -> None:
    pass


def summary(folder: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (folder / SUMMARY_FILE).read_bytes().splitlines()]


def sequential(root: Path) -> dict[str, dict[str, bytes]]:
    """What ``run`` publishes for each good session, one after the other."""
    out: dict[str, dict[str, bytes]] = {}
    root.mkdir()
    for document_id, (name, format_name) in GOOD.items():
        output = root / document_id
        result = api.run(
            CONFIG, IMPORT / name, format_name, output, document_id=document_id, warn=quiet
        )
        out[document_id] = tree(output)
        if result.report is not None:
            out[document_id]["<report>"] = result.report.read_bytes()
    return out


def published(folder: Path) -> dict[str, dict[str, bytes]]:
    out: dict[str, dict[str, bytes]] = {}
    for document_id in GOOD:
        out[document_id] = tree(folder / document_id)
        report = report_path_of(folder / document_id)
        if report.exists():
            out[document_id]["<report>"] = report.read_bytes()
    return out


def check_first_batch(folder: Path, result: api.BatchResult, reference: Any) -> None:
    assert result.exit_status == 4
    assert result.receipt() == {
        "status": "failed",
        "sessions": 4,
        "ok": 3,
        "skipped": 0,
        "failed": 1,
        "summary": "batch.jsonl",
    }
    lines = summary(folder)
    assert [(line["row"], line["document_id"], line["status"]) for line in lines] == [
        (1, "bridge-webvtt", "ok"),
        (2, "corrupt", "failed"),
        (3, "bridge-crd3", "ok"),
        (4, "bridge-text", "ok"),
    ]
    bad = lines[1]
    assert (bad["exit_status"], bad["error"], bad["receipt"]) == (3, CORRUPT_ERROR, None)
    assert bad["transcript"] == "corrupt.vtt"
    for line in (lines[0], lines[2], lines[3]):
        assert (line["exit_status"], line["error"]) == (0, None)
        assert line["receipt"]["document_id"] == line["document_id"]
        assert line["receipt"]["files"] == sorted(tree(folder / line["document_id"]))
    assert published(folder) == reference
    assert not (folder / "corrupt").exists()
    assert not report_path_of(folder / "corrupt").exists()
    # the campaign page, beside the session reports: each session in manifest order, the
    # failed one without a link
    page = (folder / "index.html").read_text(encoding="utf-8")
    rows = re.findall(
        r'<tr data-session="([^"]+)"><td class="number">\d+</td><td>(<a href="[^"]+">)?', page
    )
    assert rows == [
        ("bridge-webvtt", '<a href="bridge-webvtt.html">'),
        ("corrupt", ""),
        ("bridge-crd3", '<a href="bridge-crd3.html">'),
        ("bridge-text", '<a href="bridge-text.html">'),
    ]


def check_rerun(folder: Path, result: api.BatchResult) -> None:
    assert result.receipt()["skipped"] == 3
    assert result.receipt()["failed"] == 1
    lines = summary(folder)
    assert [line["status"] for line in lines] == ["skipped", "failed", "skipped", "skipped"]
    assert lines[1]["error"] == CORRUPT_ERROR


def stamps(folder: Path) -> dict[str, int]:
    """The inode and modification time of every file a finished session published or
    recorded: a skipped session touches none of them."""
    out = {}
    for document_id in GOOD:
        for path in [
            *(folder / document_id).rglob("*"),
            *(work_folder_of(folder / document_id) / "stages").iterdir(),
        ]:
            info = path.stat()
            out[str(path)] = info.st_ino * 10**20 + info.st_mtime_ns
    return out


def test_a_batch_on_a_local_pool(tmp_path: Path) -> None:
    reference = sequential(tmp_path / "sequential")
    folder = tmp_path / "out"
    result = api.batch(CONFIG, WITH_CORRUPT, folder, workers=2)
    check_first_batch(folder, result, reference)
    before = stamps(folder)
    check_rerun(folder, api.batch(CONFIG, WITH_CORRUPT, folder, workers=2))
    assert stamps(folder) == before


def test_a_batch_on_a_dask_cluster(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    reference = sequential(tmp_path / "sequential")
    folder = tmp_path / "out"
    with distributed.LocalCluster(
        processes=True,
        n_workers=2,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        result = api.batch(CONFIG, WITH_CORRUPT, folder, scheduler=address)
        check_first_batch(folder, result, reference)
        before = stamps(folder)
        check_rerun(folder, api.batch(CONFIG, WITH_CORRUPT, folder, scheduler=address))
        assert stamps(folder) == before


def test_the_command_prints_one_receipt_and_exits_4_when_a_session_failed(
    tmp_path: Path,
) -> None:
    args = ["batch", "--config", str(CONFIG), str(WITH_CORRUPT)]
    result = invoke([*args, "--output-dir", str(tmp_path / "out"), "--workers", "1"])
    assert result.status == 4
    assert orjson.loads(result.stdout) == {
        "status": "failed",
        "sessions": 4,
        "ok": 3,
        "skipped": 0,
        "failed": 1,
        "summary": "batch.jsonl",
    }
    assert result.stderr == (f"streamer: error: session corrupt (row 2) failed: {CORRUPT_ERROR}\n")
    campaign = invoke(
        ["batch", "--config", str(CONFIG), str(CAMPAIGN), "--output-dir", str(tmp_path / "c")]
    )
    assert campaign.status == 0, campaign.stderr
    assert orjson.loads(campaign.stdout)["ok"] == 5
    assert campaign.stderr == ""  # warnings go to each session's work folder
    for line in summary(tmp_path / "c"):
        log = tmp_path / "c" / f"{line['document_id']}.work" / "warnings.log"
        assert len(log.read_text().splitlines()) == line["warnings"]


def test_a_changed_transcript_or_glossary_runs_its_sessions_again(tmp_path: Path) -> None:
    shutil.copytree(BATCH, tmp_path / "batch")
    shutil.copytree(IMPORT, tmp_path / "import")
    manifest = tmp_path / "batch" / "campaign.csv"
    config = tmp_path / "batch" / "streamer.yaml"
    folder = tmp_path / "out"
    first = api.batch(config, manifest, folder, workers=2)
    assert first.receipt()["ok"] == 5
    text = tmp_path / "import" / "bridge.txt"
    text.write_bytes(text.read_bytes().replace(b"goblin", b"kobold"))
    second = api.batch(config, manifest, folder, workers=2)
    assert [line.status for line in second.lines] == ["skipped", "skipped", "ok"] + ["skipped"] * 2
    glossary = tmp_path / "batch" / "glossary.yaml"
    with open(glossary, "a", encoding="utf-8") as out:
        out.write("# the glossary configures every session\n")
    third = api.batch(config, manifest, folder, workers=2)
    assert [line.status for line in third.lines] == ["ok"] * 5
    assert second.lines[2].receipt is not None
    assert second.lines[2].receipt["semantic_digest"] != first.lines[2].receipt["semantic_digest"]  # type: ignore[index]


def manifest_error(tmp_path: Path, name: str, content: str, monkeypatch: pytest.MonkeyPatch) -> str:
    manifest = tmp_path / name
    manifest.write_text(content)
    (tmp_path / "s.vtt").write_bytes((IMPORT / "bridge.vtt").read_bytes())
    monkeypatch.chdir(tmp_path)  # the manifest named as a user names it
    with pytest.raises(ConfigurationError) as raised:
        api.batch(CONFIG, name, tmp_path / "out", workers=1)
    assert not (tmp_path / "out").exists()  # nothing ran, nothing was created
    return raised.value.one_line()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "m.csv",
            "transcript,format,speaker\n",
            'manifest m.csv row 1: unknown column "speaker" (hint: columns: transcript, '
            "format, document_id, unit, speaker_prefix, speaker_carry, dedupe_rolling)",
        ),
        (
            "m.csv",
            "format\nwebvtt\n",
            "manifest m.csv row 1: the header has no transcript column (hint: the first row "
            "names the columns: transcript[,format]...)",
        ),
        (
            "m.csv",
            "transcript,format\ns.vtt,webvtt\n\ns.vtt,vvt\n",
            'manifest m.csv row 4: unknown import format "vvt" (hint: import formats: crd3, '
            "srt, text, webvtt, whisperx)",
        ),
        (
            "m.csv",
            "transcript,format,document_id\ns.vtt,webvtt,a\ns.vtt,webvtt,a\n",
            'manifest m.csv row 3: document ID "a" is also row 2\'s (hint: each session '
            "needs its own document_id)",
        ),
        (
            "m.csv",
            "transcript,format\ns.vtt,webvtt,extra\n",
            "manifest m.csv row 2: 3 fields, the header names 2",
        ),
        (
            "m.jsonl",
            '{"transcript": "s.vtt", "format": "webvtt", "document_id": "../up"}\n',
            'manifest m.jsonl row 1: document ID "../up" cannot name a result folder (hint: '
            "letters, digits, '.', '_' and '-', not starting with '.' nor ending with .work, "
            ".html, .jsonl; give a document_id)",
        ),
        (
            "m.jsonl",
            '{"transcript": "s.vtt", "format": "webvtt"}\n["s.vtt"]\n',
            "manifest m.jsonl row 2: not a JSON object",
        ),
        (
            "m.jsonl",
            '{"transcript": "s.vtt", "format": 3}\n',
            "manifest m.jsonl row 1: $.format must be a non-empty string",
        ),
        (
            "m.jsonl",
            "\n\n",
            "manifest m.jsonl lists no session (hint: one row a session: "
            "transcript[,format][,document_id]...)",
        ),
    ],
)
def test_a_bad_manifest_row_fails_before_anything_runs(
    tmp_path: Path, name: str, content: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert manifest_error(tmp_path, name, content, monkeypatch) == message


def test_a_bad_manifest_exits_2_from_the_command(tmp_path: Path) -> None:
    manifest = tmp_path / "m.csv"
    manifest.write_text("transcript,format\nmissing.vtt,vvt\n")
    result = invoke(["batch", "--config", str(CONFIG), "m.csv", "--output-dir", "o"], cwd=tmp_path)
    assert result.status == 2
    assert result.stdout == b""
    assert result.stderr.startswith("streamer: error: manifest m.csv row 2: unknown import")
    assert not (tmp_path / "o").exists()


def test_workers_and_scheduler_exclude_each_other(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as raised:
        api.batch(CONFIG, CAMPAIGN, tmp_path / "o", workers=2, scheduler="tcp://127.0.0.1:1")
    assert raised.value.message == "give either --workers or --scheduler, not both"
    with pytest.raises(ConfigurationError) as raised:
        api.batch(CONFIG, CAMPAIGN, tmp_path / "o", workers=0)
    assert raised.value.message == "--workers must be at least 1"
    assert not (tmp_path / "o").exists()


def test_without_distributed_scheduler_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ConfigurationError) as raised:
        api.batch(CONFIG, CAMPAIGN, tmp_path / "o", scheduler="tcp://127.0.0.1:8786")
    assert raised.value.one_line() == (
        "--scheduler needs Dask distributed, which is not installed (hint: pip install "
        "'streamer[dask]', or use --workers N for a local pool)"
    )
    assert not (tmp_path / "o").exists()


def test_the_product_never_imports_distributed_itself() -> None:
    code = "import sys, streamer.cli.main; print('distributed' in sys.modules)"
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, check=True, cwd=REPO
    )
    assert completed.stdout == b"False\n"


def test_an_unreachable_scheduler_fails_before_anything_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")
    from streamer.api import batch_executors

    monkeypatch.setattr(batch_executors, "CONNECT_TIMEOUT", "1s")
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(ConfigurationError) as raised:
        api.batch(CONFIG, CAMPAIGN, tmp_path / "o", scheduler=f"tcp://127.0.0.1:{port}")
    assert raised.value.one_line() == (
        f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port} (hint: start it with "
        "'dask scheduler', then 'dask worker ADDRESS' on each machine)"
    )
    assert not (tmp_path / "o").exists()


def test_progress_reports_done_failed_and_running(tmp_path: Path) -> None:
    states: list[BatchProgress] = []
    api.batch(CONFIG, WITH_CORRUPT, tmp_path / "o", workers=1, progress=states.append)
    assert states[0] == BatchProgress(done=0, failed=0, running=0, total=4)
    assert states[-1] == BatchProgress(done=3, failed=1, running=0, total=4)
    finished = [(state.done, state.failed) for state in states]
    assert finished == sorted(finished)  # never goes back
    assert max(state.running for state in states) == 1  # one worker
    states.clear()
    api.batch(CONFIG, WITH_CORRUPT, tmp_path / "o", workers=1, progress=states.append)
    assert states[0] == BatchProgress(done=3, failed=0, running=0, total=4)  # skipped ones
    assert states[-1] == BatchProgress(done=3, failed=1, running=0, total=4)


def test_a_configuration_error_fails_the_batch_before_any_session(tmp_path: Path) -> None:
    for name in ("streamer.yaml", "glossary.yaml"):
        shutil.copy(BATCH / name, tmp_path / name)
    config = tmp_path / "streamer.yaml"
    config.write_text(config.read_text().replace(", engine: rules}", "}"))
    with pytest.raises(ConfigurationError) as raised:
        api.batch(config, CAMPAIGN, tmp_path / "o", workers=1)
    assert raised.value.message.startswith("$.pipeline.extraction.base_url is required")
    assert not (tmp_path / "o").exists()


def test_without_a_configuration_each_session_is_what_run_gives_without_one(
    tmp_path: Path,
) -> None:
    """No --config: the sessions run with ``streamer run``'s default configuration (the
    built-in rules), byte for byte, a rerun skips them, and --model-url beside --config
    is refused as run refuses it."""
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"transcript,document_id\n{IMPORT / 'bridge.vtt'},bridge\n")
    alone = invoke(["run", str(IMPORT / "bridge.vtt"), "--output", str(tmp_path / "bridge")])
    assert alone.status == 0, alone.stderr
    first = invoke(["batch", str(manifest), "--output-dir", str(tmp_path / "out")])
    assert first.status == 0, first.stderr
    assert orjson.loads(first.stdout)["ok"] == 1
    assert tree(tmp_path / "out" / "bridge") == tree(tmp_path / "bridge")
    assert (tmp_path / "out" / "bridge.html").read_bytes() == (
        tmp_path / "bridge.html"
    ).read_bytes()
    again = invoke(["batch", str(manifest), "--output-dir", str(tmp_path / "out")])
    assert orjson.loads(again.stdout)["skipped"] == 1
    server = ["--model-url", "http://127.0.0.1:9/v1", "--model", "m"]
    output = ["--output-dir", str(tmp_path / "o")]
    both = invoke(["batch", "--config", str(CONFIG), str(manifest), *output, *server])
    assert both.status == 2
    assert both.stderr == (
        "streamer: error: --model-url applies only without --config "
        "(hint: the configuration names its server in pipeline.extraction)\n"
    )
    assert not (tmp_path / "o").exists()


def test_a_row_whose_transcript_cannot_be_read_fails_that_session_alone(tmp_path: Path) -> None:
    shutil.copy(REPO / "fixtures" / "quickstart" / "session.vtt", tmp_path / "s.vtt")
    (tmp_path / "empty.vtt").write_bytes(b"")
    (tmp_path / "m.csv").write_text("transcript\nempty.vtt\nnope.vtt\ns.vtt\n", encoding="utf-8")
    run = invoke(["batch", "m.csv", "--output-dir", "out", "--workers", "1"], cwd=tmp_path)
    assert run.status == 4
    assert orjson.loads(run.stdout)["ok"] == 1
    assert run.stderr == (
        "streamer: error: session empty (row 2) failed: transcript empty.vtt is empty (0 bytes) "
        "(hint: check the file)\n"
        "streamer: error: session nope (row 3) failed: transcript nope.vtt does not exist or "
        "is not a file (hint: relative paths are relative to the manifest's folder)\n"
    )
    lines = {line["document_id"]: line for line in summary(tmp_path / "out")}
    assert [(lines[name]["status"], lines[name]["exit_status"]) for name in sorted(lines)] == [
        ("failed", 3),
        ("failed", 2),
        ("ok", 0),
    ]
