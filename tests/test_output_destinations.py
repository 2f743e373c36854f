"""``--output FILE``: what it does to what is already there (docs/operations.md, "Where
output goes"). A device, a FIFO or a descriptor name is written in place and never
replaced; a link to a regular file is followed; an output that is one of the run's inputs
is refused with exit status 2 and the input left as it was; a long name or a folder that
cannot be searched gets its documented status; a stale temporary file never blocks a run."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from streamer import api
from streamer.framework.errors.types import ConfigurationError
from streamer.output.publication import NAME_MAX, sibling_prefix
from tests.support import REPO, Case, invoke, jsonl_bytes, ref, run_cli, spell, units, write_case

IMPORT = REPO / "fixtures" / "import"
VTT = IMPORT / "bridge.vtt"
EXPECTED = (IMPORT / "expected" / "webvtt.jsonl").read_bytes()


def case(root: Path) -> Case:
    return write_case(root, units(["u1", "u2", "u3"]), {"spells": [spell("s1", ref("u2"))]})


def import_to(output: str, *extra: str) -> list[str]:
    return ["import", "webvtt", str(VTT), "--document-id", "bridge", "--output", output, *extra]


def test_the_expected_import_is_what_the_tests_compare_with(tmp_path: Path) -> None:
    run = invoke(import_to(str(tmp_path / "out.jsonl")))
    assert run.status == 0, run.stderr
    assert (tmp_path / "out.jsonl").read_bytes() == EXPECTED


def null_device(folder: Path) -> Path:
    """A character device to write to: a null device of the test's own where the test may
    make one (as root), else the system's /dev/null."""
    device = folder / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        with open(device, "wb"):
            pass
    except OSError:
        device.unlink(missing_ok=True)
        device = Path("/dev/null")
    if not stat.S_ISCHR(os.stat(device).st_mode):
        pytest.skip(f"{device} is not a character device")
    return device


def test_output_to_a_character_device_writes_through_it_and_keeps_it(tmp_path: Path) -> None:
    device = null_device(tmp_path)
    before = os.stat(device)
    run = invoke(import_to(str(device)))
    assert (run.status, run.stdout, run.stderr) == (0, b"", "")
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino
    assert not [name for name in os.listdir(device.parent) if name.startswith(".null.")]


def test_output_to_dev_stdout_writes_to_standard_output() -> None:
    run = run_cli(import_to("/dev/stdout"))  # the process's descriptor 1
    assert (run.status, run.stdout, run.stderr) == (0, EXPECTED, "")


def test_output_to_dev_stdout_redirected_to_a_file_appends_as_the_shell_does(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"kept\n")
    inode = log.stat().st_ino
    with open(log, "ab") as out:
        completed = subprocess.run(
            [sys.executable, "-m", "streamer", *import_to("/dev/stdout")],
            stdout=out,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
    assert (completed.returncode, completed.stderr) == (0, b"")
    assert log.read_bytes() == b"kept\n" + EXPECTED
    assert log.stat().st_ino == inode


def test_output_to_a_fifo_streams_into_it_and_keeps_it(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    run = invoke(import_to(str(fifo)))
    reader.join(timeout=60)
    assert (run.status, run.stderr) == (0, "")
    assert received == [EXPECTED]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["out.fifo"]


def test_a_link_to_a_regular_file_is_followed_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.jsonl"
    target.write_bytes(b"old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    run = invoke(import_to(str(link)))
    assert (run.status, run.stderr) == (0, "")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == EXPECTED
    assert sorted(os.listdir(tmp_path / "real")) == ["out.jsonl"]
    assert sorted(os.listdir(tmp_path)) == ["link.jsonl", "real"]


def test_a_dangling_link_is_refused_and_kept(tmp_path: Path) -> None:
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "missing.jsonl")
    run = invoke(import_to("link.jsonl"), cwd=tmp_path)
    assert run.status == 2
    assert run.stderr == (
        "streamer: error: output link.jsonl is a symbolic link to nothing; it is never "
        "replaced (hint: create the file it names, or remove the link)\n"
    )
    assert link.is_symlink() and sorted(os.listdir(tmp_path)) == ["link.jsonl"]


@pytest.mark.parametrize("command", ["chunk", "evidence"])
@pytest.mark.parametrize("victim", ["source", "config", "lane", "link to the source"])
def test_an_output_naming_an_input_is_refused_and_the_input_kept(
    tmp_path: Path, command: str, victim: str
) -> None:
    if command == "chunk" and victim == "lane":
        pytest.skip("chunk reads no lanes")
    c = case(tmp_path / "case")
    if victim == "link to the source":
        output = tmp_path / "link.jsonl"
        output.symlink_to(c.source)
    else:
        output = {"source": c.source, "config": c.config, "lane": c.lanes_dir / "spells.json"}[
            victim
        ]
    before = {path: path.read_bytes() for path in [c.source, c.config, c.lanes_dir / "spells.json"]}
    args = c.args("--output", str(output))
    if command == "chunk":
        args = ["chunk", "--config", str(c.config), "--source", str(c.source)]
        args += ["--output", str(output)]
    run = invoke(args)
    role = {
        "source": "--source",
        "link to the source": "--source",
        "config": "--config",
        "lane": "lane spells (spells.json)",
    }[victim]
    assert run.status == 2, run.stderr
    assert run.stderr == (
        f"streamer: error: --output {output} is the same file as {role}; publishing "
        "would destroy it (hint: choose another --output)\n"
    )
    assert {path: path.read_bytes() for path in before} == before


def test_an_import_onto_its_own_input_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "t.vtt"
    source.write_bytes(VTT.read_bytes())
    run = invoke(["import", "webvtt", str(source), "--output", str(source)])
    assert run.status == 2
    assert f"--output {source} is the same file as INPUT" in run.stderr
    assert source.read_bytes() == VTT.read_bytes()


def test_an_import_of_stdin_redirected_from_the_output_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "t.vtt"
    source.write_bytes(VTT.read_bytes())
    with open(source, "rb") as stdin:
        completed = subprocess.run(
            [
                sys.executable,
                "-m",
                "streamer",
                "import",
                "webvtt",
                "-",
                "--document-id",
                "t",
                "--output",
                str(source),
            ],
            stdin=stdin,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
    assert completed.returncode == 2
    assert b"is the same file as INPUT" in completed.stderr
    assert source.read_bytes() == VTT.read_bytes()


def test_a_forced_bundle_over_a_folder_holding_an_input_is_refused(tmp_path: Path) -> None:
    c = case(tmp_path / "case")
    (c.root / "index.json").write_bytes(b"{}")  # it looks like a bundle
    run = invoke(
        [
            "bundle",
            "--config",
            str(c.config),
            "--source",
            str(c.source),
            "--lanes-dir",
            str(c.lanes_dir),
            "--output",
            str(c.root),
            "--force",
        ]
    )
    assert run.status == 2
    assert run.stderr.startswith("streamer: error: --source is inside --output case, which the")
    assert c.source.read_bytes() == jsonl_bytes("doc-1", units(["u1", "u2", "u3"]))


def test_a_250_byte_output_name_is_published(tmp_path: Path) -> None:
    name = "é" * 120 + "x.jsonl"  # 247 bytes: a temporary '.NAME.XXXXXXXX.partial' would not fit
    assert len(name.encode()) <= NAME_MAX < len(f".{name}.12345678.partial".encode())
    run = invoke(import_to(str(tmp_path / name)))
    assert (run.status, run.stderr) == (0, "")
    assert (tmp_path / name).read_bytes() == EXPECTED
    assert os.listdir(tmp_path) == [name]


def test_sibling_prefixes_fit_the_name_limit_and_keep_whole_characters() -> None:
    for length in range(0, 300, 7):
        name = "é" * length
        prefix = sibling_prefix(name)
        assert len(prefix.encode()) + 8 + len(".partial") <= NAME_MAX
        assert prefix.startswith(".") and prefix.endswith(".")
        assert name.startswith(prefix[1:-1])


def test_a_stale_temporary_file_of_the_same_pid_does_not_block_a_run(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    # The names a killed run of the old writer (PID-based) would have left behind.
    for pid in range(1, 200):
        (tmp_path / f".out.jsonl.{pid}.partial").write_bytes(b"stale")
    run = invoke(import_to(str(out)))
    assert (run.status, run.stderr) == (0, "")
    assert out.read_bytes() == EXPECTED
    assert len(os.listdir(tmp_path)) == 200  # the stale ones are not ours to remove


@pytest.mark.parametrize("command", ["import", "bundle"])
def test_an_output_folder_that_is_writable_but_not_searchable_is_a_usage_error(
    tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = case(tmp_path / "case")
    folder = tmp_path / "out"
    folder.mkdir()
    os.chmod(folder, 0o200)  # write, no search
    if os.geteuid() == 0:  # root searches every folder: give os.access a user's answer
        real_access = os.access
        monkeypatch.setattr(
            os,
            "access",
            lambda path, mode, **kw: (
                real_access(path, mode, **kw) and not (Path(path) == folder and mode & os.X_OK)
            ),
        )
    given = folder / ("out.jsonl" if command == "import" else "b")
    expected = (
        f"the folder {folder} of --output {given} is not writable "
        "and searchable (hint: it needs write and execute (search) permission)"
    )
    with pytest.raises(ConfigurationError) as raised:
        if command == "import":
            api.import_transcript("webvtt", VTT, output=folder / "out.jsonl")
        else:
            api.bundle(api.load_config(c.config), c.source, c.lanes_dir, folder / "b")
    assert raised.value.one_line() == expected
    assert raised.value.exit_status == 2
    os.chmod(folder, 0o700)
    assert os.listdir(folder) == []
