"""The progress line: drawn on a terminal only, throttled, erased at the end, off with
--quiet, and never on standard output."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest

from streamer.cli.progress import TerminalProgress, human
from tests.run_support import in_folder
from tests.support import invoke, ref, shown_on_a_terminal, spell, units, write_case


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_are_throttled_and_erased() -> None:
    out, clock = io.StringIO(), Clock()
    display = TerminalProgress(out, clock, interval=0.25)
    display(1_500_000, 3_000_000_000)  # drawn at once
    clock.now += 0.1
    display(2_000_000, 3_000_000_000)  # too soon: skipped
    clock.now += 0.2
    display(1_234_567_890, 3_000_000_000)
    display.close()
    assert out.getvalue() == (
        "\rstreamer: read 1.5 MB of 3.0 GB (0%)\x1b[K"
        "\rstreamer: read 1.2 GB of 3.0 GB (41%)\x1b[K"
        "\r\x1b[K"
    )


def test_unknown_total_and_nothing_to_erase() -> None:
    out = io.StringIO()
    display = TerminalProgress(out, Clock())
    display(512, None)
    display.close()
    display.close()
    assert out.getvalue() == "\rstreamer: read 512 B\x1b[K\r\x1b[K"
    silent = io.StringIO()
    TerminalProgress(silent, Clock()).close()
    assert silent.getvalue() == ""


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (0, "0 B"),
        (999, "999 B"),
        (1000, "1.0 KB"),
        (25_300_000, "25.3 MB"),
        (3 * 10**12, "3000.0 GB"),
    ],
)
def test_human_sizes(size: int, shown: str) -> None:
    assert human(size) == shown


def test_progress_is_drawn_on_a_terminal_and_quiet_turns_it_off(tmp_path: Path) -> None:
    ids = [f"u{i}" for i in range(200)]
    case = write_case(tmp_path, units(ids), {"spells": [spell("c1", ref("u5", "u6"))]}, window=1)
    plain = invoke(case.args())
    assert plain.status == 0, plain.stderr
    status, terminal, stdout = shown_on_a_terminal(case.args(), "stderr")
    assert status == 0
    assert stdout == plain.stdout  # standard output carries only data
    size = case.source.stat().st_size
    assert terminal.startswith(b"\rstreamer: read ")
    assert f"of {human(size)} (".encode() in terminal
    assert terminal.endswith(b"\r\x1b[K")  # erased at the end

    status, terminal, stdout = shown_on_a_terminal([*case.args(), "--quiet"], "stderr")
    assert (status, stdout, terminal) == (0, plain.stdout, b"")


def test_the_progress_line_names_each_stage_in_order(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.vtt")
    status, shown, stdout = shown_on_a_terminal(
        ["run", "bridge.vtt", "--output", "s"], "stderr", tmp_path
    )
    assert status == 0, shown
    assert orjson.loads(stdout)["status"] == "ok"
    drawn = [part.removesuffix(b"\x1b[K").decode() for part in shown.split(b"\r") if part]
    stages = [line for line in drawn if line.startswith("streamer: [")]
    started = [line for line in stages if "]" in line and ":" not in line.split("] ", 1)[1]]
    assert started == [
        "streamer: [1/5] import",
        "streamer: [2/5] extract",
        "streamer: [3/5] normalize",
        "streamer: [4/5] bundle",
        "streamer: [5/5] report",
    ]
    numbers = [int(line.split("[", 1)[1].split("/", 1)[0]) for line in stages]
    assert numbers == sorted(numbers)  # never back to an earlier stage
    assert drawn[-1] == ""  # erased at the end: the line left clean
