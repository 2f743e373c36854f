"""Every code example of the README and docs/ runs, as a reader would run it.

The ``sh`` and ``python`` blocks of each document run in order, in a sandbox of their own
that holds the files the examples name (``streamer.yaml``, ``session.vtt``, ``lanes/``,
``candidates/``, ``campaign.yaml``, ``run.json.gz``, ``sessions.csv``...: made here from
the committed fixtures, and the lanes by streamer itself), with the repository's
``fixtures/`` and ``docs/`` beside them and ``../shared`` the shared data. Each command
must succeed. A block that cannot run here says why just above it, in the document:
``<!-- docs-example: not run (REASON) -->`` (a network, a cluster, the test suite itself);
an excerpt of a file says which, ``<!-- docs-example: excerpt of PATH -->``, and each of
its lines is in that file (its comments aside, and ``...`` standing for a body).
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from streamer import api
from tests.support import REPO

SHARED = REPO.parent / "shared"
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(
    r"(?:<!-- docs-example: (?:not run \((?P<reason>[^)]+)\)|excerpt of (?P<excerpt>\S+)) -->\n)?"
    r"^```(?P<language>sh|python)\n(?P<code>.*?)^```",
    re.MULTILINE | re.DOTALL,
)
BIN = Path(sys.executable).parent


def blocks(document: Path) -> list[tuple[int, str, str, str | None]]:
    """``(line, language, code, reason not run)`` of each example of ``document`` (an
    excerpt is not run: it is checked against its file)."""
    text = document.read_text(encoding="utf-8")
    return [
        (
            text.count("\n", 0, match.start("code")),
            match["language"],
            match["code"],
            match["reason"] or (match["excerpt"] and f"an excerpt of {match['excerpt']}"),
        )
        for match in BLOCK.finditer(text)
    ]


def excerpts() -> list[tuple[str, Path, str]]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            if match["excerpt"] is not None:
                line = text.count("\n", 0, match.start("code")) + 1
                found.append((f"{document.name}:{line}", REPO / match["excerpt"], match["code"]))
    return found


def make_sandbox(folder: Path) -> None:
    """The files the examples name, consistent with one another."""
    fixtures = REPO / "fixtures"
    folder.mkdir()
    for name in ("out", "build"):  # the folders the examples publish into
        (folder / name).mkdir()
    for name in ("fixtures", "docs", "tests"):  # tests/labelled: the labelled episodes
        (folder / name).symlink_to(REPO / name)
    shutil.copy(fixtures / "batch" / "streamer.yaml", folder / "streamer.yaml")
    for name in ("glossary.yaml", "campaign.yaml"):
        shutil.copy(fixtures / "batch" / "glossary.yaml", folder / name)
    for name in ("session.vtt", "session-12.vtt"):
        shutil.copy(fixtures / "import" / "bridge.vtt", folder / name)
    shutil.copy(fixtures / "import" / "bridge.srt", folder / "session.srt")
    whisperx = (fixtures / "import" / "bridge-whisperx.json").read_bytes()
    (folder / "run.json").write_bytes(whisperx)
    (folder / "run.json.gz").write_bytes(gzip.compress(whisperx, mtime=0))
    (folder / "sessions.csv").write_text(
        "transcript,format,document_id\nsession.vtt,webvtt,session\nrun.json,whisperx,session-12\n",
        encoding="utf-8",
    )
    episode = SHARED / "data" / "crd3" / "episodes" / "C1E001.json"
    if episode.exists():
        (folder / "C1E001.json").symlink_to(episode)
    config = api.load_config(folder / "streamer.yaml")
    # session.jsonl (from session.vtt) and session-12 (from run.json), each with the
    # candidates and the normalized lanes that cite it
    for transcript, format_name, document_id, lanes in [
        ("session.vtt", "webvtt", "session", "lanes"),
        ("run.json", "whisperx", "session-12", "lanes/session-12"),
    ]:
        source = folder / f"{document_id}.jsonl"
        api.import_transcript(
            format_name, str(folder / transcript), document_id=document_id, output=str(source)
        )
        candidates = folder / lanes.replace("lanes", "candidates")
        api.extract(config, str(source), candidates, glossary=folder / "campaign.yaml")
        api.normalize(
            config, str(source), candidates, folder / lanes, glossary=folder / "campaign.yaml"
        )
    shutil.copytree(folder / "lanes", folder / "lanes" / "session", ignore=_folders)
    (folder / "session.jsonl.gz").write_bytes(
        gzip.compress((folder / "session.jsonl").read_bytes(), mtime=0)
    )


def _folders(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if (Path(folder) / name).is_dir()]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("docs") / "sandbox"
    make_sandbox(folder)
    return folder


def run_block(language: str, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = (
        ["bash", "-e", "-u", "-o", "pipefail", "-c", code]
        if language == "sh"
        else [sys.executable, "-c", code]
    )
    return subprocess.run(
        command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_example_of_the_document_runs(document: Path, sandbox: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(sandbox, work, symlinks=True)
    if SHARED.exists():
        (tmp_path / "shared").symlink_to(SHARED)
    for line, language, code, reason in blocks(document):
        if reason is not None:
            continue
        if "../shared/" in code and not SHARED.exists():
            continue  # the shared data is absent: the tests skip what needs it
        result = run_block(language, code, work)
        where = f"{document.relative_to(REPO)}:{line + 1}"
        assert result.returncode == 0, f"{where} ({language}) failed:\n{result.stderr[-2000:]}"


def test_an_example_not_run_says_why_and_they_are_few() -> None:
    not_run = {
        f"{document.name}:{line + 1}": reason
        for document in DOCUMENTS
        for line, _, _, reason in blocks(document)
        if reason is not None and not reason.startswith("an excerpt of")
    }
    assert all(len(reason) > 10 for reason in not_run.values()), not_run
    total = sum(len(blocks(document)) for document in DOCUMENTS)
    assert len(not_run) <= total // 3, not_run


def test_a_failing_example_fails_the_test(tmp_path: Path) -> None:
    """The runner stops at the first failing command, also inside a pipeline."""
    assert run_block("sh", "true\nfalse | cat\ntrue\n", tmp_path).returncode != 0
    assert run_block("python", "raise SystemExit(3)", tmp_path).returncode == 3


@pytest.mark.parametrize(("where", "path", "code"), excerpts(), ids=lambda value: str(value))
def test_every_excerpt_is_in_its_file(where: str, path: Path, code: str) -> None:
    source = {" ".join(line.split()) for line in path.read_text(encoding="utf-8").splitlines()}
    for line in code.splitlines():
        statement = " ".join(line.split("  # ")[0].split())
        if statement.endswith(": ..."):
            statement = statement[:-4]
        if statement:
            assert statement in source, f"{where}: {statement!r} is not in {path.name}"
