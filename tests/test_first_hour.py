"""The first hour of a new user (issue 23), through the command line as a person types it:
``streamer run`` with no configuration, the format found, the import options in ``run``,
speakers carried, empty input, the work folder after a failure, and the messages."""

from __future__ import annotations

import decimal
import io
import os
import pty
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from streamer import api
from streamer.cli.main import main
from streamer.framework.errors import InputError
from tests.run_support import StageCalls
from tests.support import REPO, Run, invoke

IMPORT = REPO / "fixtures" / "import"
# (fixture, the format it is found to be, units imported)
FIXTURES = [
    ("bridge.vtt", "webvtt", 7),
    ("bridge.srt", "srt", 6),
    ("bridge.txt", "text", 11),
    ("bridge-crd3.json", "crd3", 6),
    ("bridge-whisperx.json", "whisperx", 5),
]


# The lanes of the kinds with built-in rules: the default configuration's, with no model.
RULES_LANES = sorted(
    kind.default_lane
    for kind in api.default_registry()
    if kind.extraction is not None and kind.extraction.rules is not None
)


def in_folder(tmp_path: Path, *names: str) -> Path:
    """Copy fixtures into ``tmp_path`` so the commands name them as a user would."""
    for name in names:
        shutil.copy(IMPORT / name, tmp_path / name)
    return tmp_path


def receipt(run: Run) -> dict[str, Any]:
    assert run.status == 0, run.stderr
    value: dict[str, Any] = orjson.loads(run.stdout)
    return value


def stage_counts(result: dict[str, Any], stage: str) -> dict[str, Any]:
    counts: dict[str, Any] = next(s["counts"] for s in result["stages"] if s["stage"] == stage)
    return counts


# -- the default configuration ----------------------------------------------------------------


@pytest.mark.parametrize(("name", "found", "units"), FIXTURES)
def test_run_with_no_configuration_on_each_format(
    tmp_path: Path, name: str, found: str, units: int
) -> None:
    in_folder(tmp_path, name)
    result = receipt(invoke(["run", name, "--output", "out/session"], cwd=_with_out(tmp_path)))
    assert result["status"] == "ok"
    assert stage_counts(result, "import")["units"] == units
    # no model server named: the lanes of the built-in rules only, evidence published
    assert result["files"] == [
        "chunk-map.json",
        "evidence-context.json",
        "index.json",
        *(f"lanes/{lane}.json" for lane in RULES_LANES),
    ]
    index = orjson.loads((tmp_path / "out" / "session" / "index.json").read_bytes())
    assert [lane["lane_id"] for lane in index["lanes"]] == RULES_LANES
    evidence = orjson.loads((tmp_path / "out" / "session" / "evidence-context.json").read_bytes())
    assert evidence["lanes"] == RULES_LANES
    assert (tmp_path / "out" / "session.html").is_file()
    # the work folder's source is what `streamer import` makes of the file in that format
    imported = invoke(["import", found, name], cwd=tmp_path)  # ID: the file name's stem
    assert imported.status == 0
    assert (tmp_path / "out" / "session.work" / "source.jsonl").read_bytes() == imported.stdout


def _with_out(folder: Path) -> Path:
    (folder / "out").mkdir()
    return folder


def test_config_show_prints_the_default_configuration_which_runs_the_same(
    tmp_path: Path,
) -> None:
    in_folder(tmp_path, "bridge.vtt")
    shown = invoke(["config", "--show"], cwd=tmp_path)
    assert (shown.status, shown.stderr) == (0, "")
    text = shown.stdout.decode("utf-8")
    assert text.startswith("# The default configuration of streamer run without --config")
    kinds = {lane: kind.name for kind in api.default_registry() for lane in [kind.default_lane]}
    assert yaml.safe_load(text) == {
        "pipeline": {
            "lanes": [
                {"id": lane, "artifact_kind": kinds[lane], "engine": "rules"}
                for lane in RULES_LANES
            ],
            "chunking": {"max_units": 100, "overlap_units": 10},
        },
        "output": {
            "module": "json",
            "options": {
                "evidence_context": {"enabled": True, "window_units": 3, "lanes": RULES_LANES}
            },
        },
    }
    (tmp_path / "streamer.yaml").write_bytes(shown.stdout)
    receipt(invoke(["run", "bridge.vtt", "--output", "default"], cwd=tmp_path))
    receipt(
        invoke(
            ["run", "bridge.vtt", "--output", "saved", "--config", "streamer.yaml"], cwd=tmp_path
        )
    )
    lanes = [f"lanes/{lane}.json" for lane in RULES_LANES]
    for name in ("index.json", "evidence-context.json", *lanes, "chunk-map.json"):
        assert (tmp_path / "saved" / name).read_bytes() == (
            tmp_path / "default" / name
        ).read_bytes()


def test_model_lanes_only_when_a_model_server_is_named(tmp_path: Path) -> None:
    named = invoke(
        ["config", "--show", "--model-url", "http://localhost:8080/v1", "--model", "qwen"]
    )
    config = yaml.safe_load(named.stdout)
    lanes = {lane["id"]: lane.get("engine") for lane in config["pipeline"]["lanes"]}
    assert lanes == {
        "combat-turns": None,
        "item-events": None,
        "scene-descriptions": None,
        **{lane: "rules" for lane in RULES_LANES},
    }
    assert config["pipeline"]["extraction"] == {
        "base_url": "http://localhost:8080/v1",
        "model": "qwen",
    }
    # scene descriptions are never allowlisted by default (the spec's policy)
    assert config["output"]["options"]["evidence_context"]["lanes"] == [
        "combat-turns",
        "item-events",
        "npc-interactions",
        "npcs",
        "spells",
    ]
    # the conventional variables name the same server; the key by its variable's name only
    env = {"OPENAI_BASE_URL": "http://localhost:8080/v1", "OPENAI_MODEL": "qwen"}
    from_env = run_env(["config", "--show"], {**env, "OPENAI_API_KEY": "sk-secret"})
    assert b"sk-secret" not in from_env.stdout
    assert yaml.safe_load(from_env.stdout)["pipeline"]["extraction"] == {
        "base_url": "http://localhost:8080/v1",
        "model": "qwen",
        "api_key_env": "OPENAI_API_KEY",
    }
    no_model = invoke(["run", "x.vtt", "--output", "o", "--model-url", "http://h/v1"])
    assert (no_model.status, no_model.stderr) == (
        2,
        "streamer: error: --model-url names a model server but no model (hint: give --model "
        "NAME (or set OPENAI_MODEL), e.g. --model qwen2.5:7b-instruct)\n",
    )
    with_config = invoke(
        ["run", "x.vtt", "--output", "o", "--config", "c.yaml", "--model", "m"], cwd=tmp_path
    )
    assert with_config.stderr == (
        "streamer: error: --model applies only without --config (hint: the configuration "
        "names its server in pipeline.extraction)\n"
    )


def run_env(args: list[str], env: dict[str, str]) -> Run:
    return invoke(args, env=env)


def test_init_writes_a_configuration_and_a_glossary_and_never_replaces_them(
    tmp_path: Path,
) -> None:
    in_folder(tmp_path, "bridge.txt")
    first = invoke(["init", "campaign"], cwd=tmp_path)
    assert (first.status, first.stdout, first.stderr) == (
        0,
        b"campaign/streamer.yaml\ncampaign/glossary.yaml\n",
        "",
    )
    config = yaml.safe_load((tmp_path / "campaign" / "streamer.yaml").read_text())
    assert config["pipeline"]["normalization"] == {"glossary": "glossary.yaml"}
    assert [lane["id"] for lane in config["pipeline"]["lanes"]] == [*RULES_LANES, "party-roster"]
    assert yaml.safe_load((tmp_path / "campaign" / "glossary.yaml").read_text()) == {
        "party": [],
        "names": {},
    }
    (tmp_path / "campaign" / "glossary.yaml").write_text("party: []\nnames: {}\n# mine\n")
    again = invoke(["init", "campaign"], cwd=tmp_path)
    assert (again.status, again.stdout) == (2, b"")
    assert again.stderr == (
        "streamer: error: campaign/streamer.yaml already exists; streamer init never replaces "
        "a file (hint: edit it, or init another folder: streamer init DIR)\n"
    )
    assert (tmp_path / "campaign" / "glossary.yaml").read_text().endswith("# mine\n")
    ran = receipt(
        invoke(
            ["run", "bridge.txt", "--config", "campaign/streamer.yaml", "--output", "s"],
            cwd=tmp_path,
        )
    )
    assert ran["files"] == [
        "chunk-map.json",
        "evidence-context.json",
        "index.json",
        *sorted(f"lanes/{lane}.json" for lane in [*RULES_LANES, "party-roster"]),
    ]


# -- the format found ------------------------------------------------------------------------


def test_a_format_is_found_by_content_when_the_name_does_not_say(tmp_path: Path) -> None:
    shutil.copy(IMPORT / "bridge.srt", tmp_path / "captions.subtitles")
    shutil.copy(IMPORT / "bridge.vtt", tmp_path / "captions")
    for name, found in (("captions.subtitles", "srt"), ("captions", "webvtt")):
        result = receipt(invoke(["run", name, "--output", name + "-out"], cwd=tmp_path))
        imported = invoke(["import", found, name, "--document-id", Path(name).stem], cwd=tmp_path)
        assert (tmp_path / f"{name}-out.work" / "source.jsonl").read_bytes() == imported.stdout
        assert stage_counts(result, "import")["units"] == {"srt": 6, "webvtt": 7}[found]


def test_format_forces_the_format(tmp_path: Path) -> None:
    shutil.copy(IMPORT / "bridge.srt", tmp_path / "bridge.txt")  # SubRip under a .txt name
    forced = receipt(
        invoke(["run", "bridge.txt", "--format", "srt", "--output", "o"], cwd=tmp_path)
    )
    assert stage_counts(forced, "import")["units"] == 6  # its cues
    by_name = receipt(invoke(["run", "bridge.txt", "--output", "p"], cwd=tmp_path))
    assert stage_counts(by_name, "import")["units"] == 22  # read as text: its lines


JSON_CASES = [
    (
        "both.json",
        b'{"TURNS": [], "segments": []}',
        2,
        'cannot tell the format of both.json: it has both "TURNS" and "segments" '
        "(hint: give --format, one of: crd3, whisperx)",
    ),
    (
        "diarize.json",
        b'[{"speaker": "SPEAKER_00", "start": 0.5, "end": 2.1}]',
        3,
        "diarize.json is a diarization result (speaker turns without text), not a "
        'transcript (hint: give the WhisperX transcript it belongs to (the JSON with "segments"), '
        "with --format whisperx)",
    ),
    (
        "other.json",
        b'{"results": []}',
        3,
        'other.json is a JSON object with neither "TURNS" (CRD3) nor "segments" (WhisperX) '
        "(hint: give a CRD3 or WhisperX transcript, or --format to read it as one)",
    ),
    (
        "notes.log",
        b"MATT: hello\n",
        2,
        "cannot tell the format of notes.log: its name does not end in .json, .srt, .txt or "
        ".vtt, and it does not start as WebVTT, SubRip or JSON (hint: give --format, one "
        "of: crd3, srt, text, webvtt, whisperx)",
    ),
]


@pytest.mark.parametrize(("name", "content", "status", "message"), JSON_CASES)
def test_a_file_that_is_not_one_format_is_named_with_its_candidates(
    tmp_path: Path, name: str, content: bytes, status: int, message: str
) -> None:
    (tmp_path / name).write_bytes(content)
    run = invoke(["run", name, "--output", "o"], cwd=tmp_path)
    assert (run.status, run.stdout, run.stderr) == (status, b"", f"streamer: error: {message}\n")
    assert sorted(os.listdir(tmp_path)) == [name]


# -- import options in run ---------------------------------------------------------------------

OPTIONS = [
    ("bridge-crd3.json", "crd3", ["--unit", "line"]),
    ("bridge.srt", "srt", ["--speaker-prefix"]),
    ("bridge.vtt", "webvtt", ["--speaker-prefix", "--speaker-carry", "2"]),
    ("youtube-rolling.vtt", "webvtt", ["--dedupe-rolling"]),
]


@pytest.mark.parametrize(("name", "fmt", "options"), OPTIONS)
def test_every_import_option_through_run(
    tmp_path: Path, name: str, fmt: str, options: list[str]
) -> None:
    in_folder(tmp_path, name)
    receipt(invoke(["run", name, "--output", "o", *options], cwd=tmp_path))
    imported = invoke(["import", fmt, name, *options], cwd=tmp_path)
    plain = invoke(["import", fmt, name], cwd=tmp_path)
    assert (tmp_path / "o.work" / "source.jsonl").read_bytes() == imported.stdout
    if options != ["--speaker-prefix", "--speaker-carry", "2"]:  # the fixture labels each cue
        assert imported.stdout != plain.stdout  # the option changed what was imported


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        (
            "bridge.srt",
            ["--unit", "line"],
            "--unit does not apply to bridge.srt, read as srt (only to crd3) "
            "(hint: leave --unit out, or give --format crd3)",
        ),
        (
            "bridge-crd3.json",
            ["--speaker-prefix"],
            "--speaker-prefix does not apply to bridge-crd3.json, read as crd3 (only to srt "
            "and webvtt) (hint: leave --speaker-prefix out)",
        ),
        (
            "bridge.txt",
            ["--dedupe-rolling"],
            "--dedupe-rolling does not apply to bridge.txt, read as text (only to srt and "
            "webvtt) (hint: the text format always reads 'SPEAKER: text')",
        ),
        (
            "bridge.srt",
            ["--speaker-carry", "2"],
            "--speaker-carry needs --speaker-prefix (hint: the label carried is the 'Name:' "
            "that --speaker-prefix reads)",
        ),
    ],
)
def test_an_option_that_does_not_apply_names_the_option_and_the_format(
    tmp_path: Path, name: str, options: list[str], message: str
) -> None:
    in_folder(tmp_path, name)
    run = invoke(["run", name, "--output", "o", *options], cwd=tmp_path)
    assert (run.status, run.stderr) == (2, f"streamer: error: {message}\n")
    assert sorted(os.listdir(tmp_path)) == [name]


# -- speakers carried ---------------------------------------------------------------------------

# Built like podcast captions: the speaker is named on the first cue of a turn only.
PODCAST = """\
1
00:00:01,000 --> 00:00:03,000
HOST: Welcome back to the show.

2
00:00:03,100 --> 00:00:05,000
Today we talk about dice.

3
00:00:05,200 --> 00:00:07,000
GUEST: Thanks for having me.

4
00:00:07,100 --> 00:00:09,000
I brought my lucky d20.

5
00:00:09,500 --> 00:00:11,000
It rolls a lot of ones.

6
00:00:20,000 --> 00:00:22,000
After the break, a listener question.
"""


@pytest.mark.parametrize("fmt", ["srt", "webvtt"])
def test_speakers_are_carried_until_the_next_label_or_a_long_silence(
    tmp_path: Path, fmt: str
) -> None:
    name = f"podcast.{'srt' if fmt == 'srt' else 'vtt'}"
    text = PODCAST if fmt == "srt" else "WEBVTT\n\n" + PODCAST.replace(",", ".")
    (tmp_path / name).write_text(text)

    def speakers(*options: str) -> list[str | None]:
        run = invoke(["import", fmt, name, "--speaker-prefix", *options], cwd=tmp_path)
        assert run.status == 0, run.stderr
        lines = run.stdout.splitlines()[1:]
        return [orjson.loads(line).get("metadata", {}).get("speaker") for line in lines]

    assert speakers() == ["HOST", None, "GUEST", None, None, None]  # off by default
    # a gap of 9 s before the last cue: more than 2 s of silence ends the turn
    assert speakers("--speaker-carry", "2") == ["HOST", "HOST", "GUEST", "GUEST", "GUEST", None]
    assert speakers("--speaker-carry", "10") == [
        "HOST",
        "HOST",
        "GUEST",
        "GUEST",
        "GUEST",
        "GUEST",
    ]
    # 0.4 s of silence before cue 5 is more than 0.3 s: carrying stops there
    assert speakers("--speaker-carry", "0.3") == ["HOST", "HOST", "GUEST", "GUEST", None, None]


# -- empty is an error -------------------------------------------------------------------------

EMPTY = [
    ("empty.srt", b"", "no units: empty.srt is empty or has no cues"),
    ("blank.txt", b"\n  \n", "no units: blank.txt is empty or has no lines of text"),
    ("empty.vtt", b"WEBVTT\n\n", "no units: empty.vtt is empty or has no cues"),
    ("none.json", b'{"segments": []}', "no units: none.json is empty or has no segments"),
]


@pytest.mark.parametrize(("name", "content", "message"), EMPTY)
def test_a_transcript_without_units_is_an_error_in_import_and_run(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    (tmp_path / name).write_bytes(content)
    fmt = {"srt": "srt", "txt": "text", "vtt": "webvtt", "json": "whisperx"}[name.split(".")[1]]
    hint = f" (hint: check the file, read as {fmt} (--format))"
    imported = invoke(["import", fmt, name, "--output", "s.jsonl"], cwd=tmp_path)
    assert (imported.status, imported.stdout) == (3, b"")
    assert imported.stderr == f"streamer: error: {message}{hint}\n"
    ran = invoke(["run", name, "--output", "o"], cwd=tmp_path)
    assert (ran.status, ran.stdout, ran.stderr) == (3, b"", imported.stderr)
    assert sorted(os.listdir(tmp_path)) == [name]  # no work folder, no bundle, no report


def test_an_empty_session_fails_in_a_batch(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.vtt")
    (tmp_path / "empty.srt").write_bytes(b"")
    (tmp_path / "campaign.csv").write_text("transcript,format\nbridge.vtt,webvtt\nempty.srt,srt\n")
    (tmp_path / "streamer.yaml").write_bytes(invoke(["config", "--show"]).stdout)
    (tmp_path / "out").mkdir()
    run = invoke(
        ["batch", "--config", "streamer.yaml", "campaign.csv", "--output-dir", "out"],
        cwd=tmp_path,
    )
    assert run.status == 4
    assert run.stderr == (
        f"streamer: error: session empty (row 3) failed: no units: {tmp_path / 'empty.srt'} "
        "is empty or has no cues (hint: check the file, read as srt (--format))\n"
    )
    assert sorted(os.listdir(tmp_path / "out")) == [
        "batch.jsonl",
        "bridge",
        "bridge.html",
        "bridge.work",
        "index.html",  # the campaign page
    ]


# -- the work folder after a failure -----------------------------------------------------------


def test_a_failure_before_the_first_stage_completes_leaves_no_work_folder(
    tmp_path: Path,
) -> None:
    (tmp_path / "broken.vtt").write_bytes(b"WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nhi\n")
    run = invoke(["run", "broken.vtt", "--output", "o"], cwd=tmp_path)
    assert run.status == 3
    assert sorted(os.listdir(tmp_path)) == ["broken.vtt"]


def test_a_mistyped_glossary_is_a_usage_error_before_any_stage(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.txt")
    invoke(["init", "."], cwd=tmp_path)
    config = tmp_path / "streamer.yaml"
    config.write_text(
        config.read_text().replace("glossary: glossary.yaml", "glossary: glosary.yaml")
    )
    run = invoke(["run", "bridge.txt", "--config", "streamer.yaml", "--output", "o"], cwd=tmp_path)
    assert (run.status, run.stderr) == (
        2,
        "streamer: error: glossary glosary.yaml does not exist or is not a file (hint: check "
        "pipeline.normalization.glossary in streamer.yaml (relative to its folder))\n",
    )
    assert sorted(os.listdir(tmp_path)) == ["bridge.txt", "glossary.yaml", "streamer.yaml"]


def test_a_later_failure_keeps_the_work_folder_says_so_and_clean_removes_it(
    tmp_path: Path,
) -> None:
    in_folder(tmp_path, "bridge.txt")
    (tmp_path / "o.html").mkdir()  # the report cannot be published: the last step fails
    (tmp_path / "o.html" / "x").write_text("")
    # a folder named as the report is refused before any stage: make it appear later
    run = invoke(["run", "bridge.txt", "--output", "o"], cwd=tmp_path)
    assert run.status == 2
    assert sorted(os.listdir(tmp_path)) == ["bridge.txt", "o.html"]
    shutil.rmtree(tmp_path / "o.html")
    ok = invoke(["run", "bridge.txt", "--output", "o"], cwd=tmp_path)
    assert ok.status == 0
    assert (tmp_path / "o.work" / "source.jsonl").is_file()  # kept to skip unchanged stages
    cleaned = invoke(["run", "bridge.txt", "--output", "o", "--clean"], cwd=tmp_path)
    assert cleaned.status == 0
    assert sorted(os.listdir(tmp_path)) == ["bridge.txt", "o", "o.html"]


# -- messages ----------------------------------------------------------------------------------


def test_a_missing_output_folder_is_named_as_given(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.vtt")
    run = invoke(["run", "bridge.vtt", "--output", "out/C1E050"], cwd=tmp_path)
    assert (run.status, run.stderr) == (
        2,
        "streamer: error: the folder out of --output out/C1E050 does not exist (hint: create "
        "it first: mkdir -p out)\n",
    )
    spaced = invoke(["run", "bridge.vtt", "--output", "my sessions/s1"], cwd=tmp_path)
    assert spaced.stderr == (
        "streamer: error: the folder 'my sessions' of --output 'my sessions/s1' does not exist "
        "(hint: create it first: mkdir -p 'my sessions')\n"
    )
    assert sorted(os.listdir(tmp_path)) == ["bridge.vtt"]


def test_a_missing_transcript_is_named_with_its_whole_path(tmp_path: Path) -> None:
    run = invoke(["run", "sessions/s1/missing.vtt", "--output", "o"], cwd=tmp_path)
    assert run.stderr == (
        "streamer: error: transcript sessions/s1/missing.vtt does not exist or is not a file "
        "(hint: check TRANSCRIPT)\n"
    )


def test_subrip_hard_space_is_a_no_break_space(tmp_path: Path) -> None:
    (tmp_path / "h.srt").write_bytes(b"1\n00:00:01,000 --> 00:00:02,000\nMr.\\hSmith\\Nhere\n")
    run = invoke(["import", "srt", "h.srt"], cwd=tmp_path)
    assert run.status == 0
    unit = orjson.loads(run.stdout.splitlines()[1])
    assert unit["text"] == "Mr.\u00a0Smith here"


# -- malformed numbers -------------------------------------------------------------------------

_MAX_MS = 2**53 - 1
NUMBERS = st.from_regex(
    r"\A-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,25})?([eE][+-]?[0-9]{1,45})?\Z", fullmatch=True
)


def _expected_start(number: str) -> int | str:
    """The start in ms of a segment whose start is ``number``, or the error's message,
    computed without streamer: a decimal that cannot be held is out of range."""
    try:
        value = decimal.Decimal(number)  # exact; refused only past the largest exponent
        if "." not in number and "e" not in number.lower():
            whole = int(number)
            if 0 <= whole <= _MAX_MS // 1000:
                return whole * 1000
            raise ValueError
        with decimal.localcontext() as context:
            context.prec = 200
            context.Emax, context.Emin = decimal.MAX_EMAX, decimal.MIN_EMIN
            if not 0 <= value <= decimal.Decimal(_MAX_MS) / 1000:
                raise ValueError
            return int((value * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))
    except ValueError:
        return "$.segments[0].start must be a number of seconds from 0 to (2**53-1)/1000"
    except (decimal.InvalidOperation, decimal.Overflow):
        return "a number out of range (its exponent) at $.segments[0]"


@given(number=NUMBERS, from_stdin=st.booleans())
@settings(max_examples=300, deadline=None)
def test_every_number_is_read_or_refused_with_its_path(number: str, from_stdin: bool) -> None:
    data = b'{"segments": [{"start": ' + number.encode() + b', "text": "hi"}]}'
    expected = _expected_start(number)
    source: Any = io.BytesIO(data)
    try:
        with tempfile.TemporaryDirectory() as folder:
            if not from_stdin:
                source = Path(folder) / "n.json"
                source.write_bytes(data)
            out = io.BytesIO()
            api.import_transcript("whisperx", source, document_id="d", output=out)
    except InputError as error:
        assert error.exit_status == 3
        assert isinstance(expected, str), error.message
        assert error.message.endswith(expected)
        return
    assert not isinstance(expected, str), expected
    unit = orjson.loads(out.getvalue().splitlines()[1])
    assert unit["metadata"]["start_ms"] == expected


def test_a_huge_exponent_exits_3_with_its_path_from_a_file_and_stdin(tmp_path: Path) -> None:
    huge = b"0.4e0066999999999999999999999999999999999999999"
    for fmt, data, path in (
        ("whisperx", b'{"segments": [{"start": ' + huge + b', "text": "x"}]}', "$.segments[0]"),
        (
            "crd3",
            b'{"TURNS": [{"NAMES": ["A"], "UTTERANCES": [], "NUMBER": ' + huge + b"}]}",
            "$.TURNS[0]",
        ),
    ):
        (tmp_path / "n.json").write_bytes(data)
        message = "a number out of range (its exponent) at " + path
        hint = " (hint: write the number without a huge exponent)"
        from_file = invoke(["import", fmt, "n.json"], cwd=tmp_path)
        assert (from_file.status, from_file.stderr) == (
            3,
            f"streamer: error: {fmt} n.json: {message}{hint}\n",
        )
        from_stdin = invoke(["import", fmt, "-", "--document-id", "d"], input=data)
        assert (from_stdin.status, from_stdin.stderr) == (
            3,
            f"streamer: error: {fmt} stdin: {message}{hint}\n",
        )
        ran = invoke(["run", "n.json", "--output", "o"], cwd=tmp_path)
        assert (ran.status, ran.stderr) == (3, from_file.stderr)


# -- on a terminal -----------------------------------------------------------------------------


def on_a_pty(args: list[str], cwd: Path, *, stream: str) -> tuple[int, bytes, bytes]:
    """Run streamer with its standard output (``stream="stdout"``) or error on a terminal:
    ``(status, what the terminal showed, the other stream)``."""
    master, slave = pty.openpty()
    on_pty = {stream: slave}
    process = subprocess.Popen(
        [sys.executable, "-m", "streamer", *args],
        stdin=subprocess.DEVNULL,
        stdout=on_pty.get("stdout", subprocess.PIPE),
        stderr=on_pty.get("stderr", subprocess.PIPE),
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    os.close(slave)
    shown = bytearray()
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the terminal's other end closed: the process is done with it
            break
        if not data:
            break
        shown += data
    os.close(master)
    other = process.stderr if stream == "stdout" else process.stdout
    assert other is not None
    rest = other.read()
    other.close()
    return process.wait(timeout=120), bytes(shown), rest


def test_report_refuses_to_write_html_to_a_terminal_unless_asked(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.vtt")
    receipt(invoke(["run", "bridge.vtt", "--output", "s"], cwd=tmp_path))
    status, shown, stderr = on_a_pty(["report", "s"], tmp_path, stream="stdout")
    assert (status, shown) == (2, b"")
    assert stderr == (
        b"streamer: error: streamer report writes an HTML page, not text for a terminal "
        b"(hint: write it to a file: --output s.html (or --output - to print it here))\n"
    )
    status, shown, stderr = on_a_pty(["report", "s", "--output", "-"], tmp_path, stream="stdout")
    assert (status, stderr) == (0, b"")
    assert shown.startswith(b"<!DOCTYPE html>")
    piped = invoke(["report", "s"], cwd=tmp_path)  # not a terminal: stdout as before
    assert piped.status == 0
    assert piped.stdout.replace(b"\n", b"\r\n") == shown  # the terminal shows \n as \r\n


def test_the_progress_line_names_each_stage_in_order(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.vtt")
    status, shown, stdout = on_a_pty(
        ["run", "bridge.vtt", "--output", "s"], tmp_path, stream="stderr"
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


def test_help_starts_a_person_off() -> None:
    shown = invoke(["--help"]).stdout.decode()
    assert shown.splitlines()[2] == "  Start here: streamer run session.vtt --output out/session"
    sections = [line for line in shown.splitlines() if line and not line.startswith(" ")]
    assert sections[-3:] == [
        "Start here:",
        "Stages, one at a time (what run does):",
        "Consumers of a bundle:",
    ]
    assert "--install-completion" in shown
    for command in ("run", "init", "config", "import", "chunk", "extract", "normalize",
                    "evidence", "bundle", "batch", "validate", "report", "schema"):  # fmt: skip
        help_text = invoke([command, "--help"]).stdout.decode()
        assert "Examples:" in help_text, command
        assert f"    streamer {command}" in help_text, command


def test_shell_completion_answers_the_shell() -> None:
    env = {"_STREAMER_COMPLETE": "complete_bash", "COMP_WORDS": "streamer run --speaker-"}
    completed = invoke([], env={**env, "COMP_CWORD": "2"})
    assert (completed.status, completed.stdout.split()) == (
        0,
        [b"--speaker-prefix", b"--speaker-carry"],
    )


def test_schema_by_its_name_is_the_schema_by_its_id() -> None:
    by_name = invoke(["schema", "notarius_dnd_spell_casts_v1"])
    by_id = invoke(["schema", "notarius.dnd.spell_casts"])
    assert (by_name.status, by_name.stderr) == (0, "")
    assert by_name.stdout == by_id.stdout
    assert orjson.loads(by_name.stdout)["$id"] == "notarius.dnd.spell_casts"


def test_validate_says_not_a_bundle_without_walking_the_folder(tmp_path: Path) -> None:
    deep = tmp_path / "notes"
    for index in range(50):  # a folder that is no bundle, with files below it
        (deep / f"d{index}").mkdir(parents=True)
        (deep / f"d{index}" / "x.json").write_text("{}")
    run = invoke(["validate", "notes"], cwd=tmp_path)
    assert (run.status, run.stdout) == (3, b"")
    assert (
        run.stderr
        == """streamer: error: "index.json": missing: a bundle is described by its index\n"""
    )


# -- interrupted ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stage", "kept"),
    [("import", None), ("normalize", "s.work")],
)
def test_ctrl_c_says_nothing_was_published_and_what_was_kept(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stage: str,
    kept: str | None,
) -> None:
    in_folder(tmp_path, "bridge.vtt")
    monkeypatch.chdir(tmp_path)
    calls = StageCalls(monkeypatch)
    calls.fail_in = stage  # Ctrl-C in this stage
    with pytest.raises(SystemExit) as exited:
        main(["run", "bridge.vtt", "--output", "s", "--quiet"])
    assert exited.value.code == 130
    stderr = capsys.readouterr().err
    if kept is None:
        assert stderr == "streamer: interrupted (nothing published)\n"
        assert sorted(os.listdir(tmp_path)) == ["bridge.vtt"]
        return
    size = sum(path.stat().st_size for path in (tmp_path / kept).rglob("*") if path.is_file())
    assert stderr == (
        f"streamer: interrupted (nothing published; kept s.work ({size / 1000:.1f} KB, a copy "
        "of the transcript) to resume: run the same command again, or add --clean to remove "
        "it)\n"
    )
    calls.fail_in = None
    with pytest.raises(SystemExit) as exited:
        main(["run", "bridge.vtt", "--output", "s", "--quiet", "--clean"])
    assert exited.value.code == 0
    assert sorted(os.listdir(tmp_path)) == ["bridge.vtt", "s", "s.html"]


# -- the batch manifest --------------------------------------------------------------------------


def batch(tmp_path: Path, manifest: str, name: str = "campaign.csv") -> Run:
    (tmp_path / name).write_text(manifest)
    if not (tmp_path / "streamer.yaml").exists():
        (tmp_path / "streamer.yaml").write_bytes(invoke(["config", "--show"]).stdout)
        (tmp_path / "out").mkdir()
    return invoke(
        ["batch", "--config", "streamer.yaml", name, "--output-dir", "out", "--workers", "1"],
        cwd=tmp_path,
    )


def test_a_manifest_without_format_and_with_import_options(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge-crd3.json", "bridge.srt", "youtube-rolling.vtt")
    (tmp_path / "podcast.srt").write_text(PODCAST)
    run = batch(
        tmp_path,
        "transcript,unit,speaker_prefix,speaker_carry,dedupe_rolling\n"
        "bridge-crd3.json,line,,,\n"
        "bridge.srt,,true,,\n"
        "podcast.srt,,yes,2,\n"
        "youtube-rolling.vtt,,,,true\n",
    )
    assert (run.status, run.stderr) == (0, "")
    for name, fmt, options in [
        ("bridge-crd3.json", "crd3", ["--unit", "line"]),
        ("bridge.srt", "srt", ["--speaker-prefix"]),
        ("podcast.srt", "srt", ["--speaker-prefix", "--speaker-carry", "2"]),
        ("youtube-rolling.vtt", "webvtt", ["--dedupe-rolling"]),
    ]:
        imported = invoke(["import", fmt, name, *options], cwd=tmp_path)
        work = tmp_path / "out" / f"{Path(name).stem}.work" / "source.jsonl"
        assert work.read_bytes() == imported.stdout, name
    jsonl = batch(
        tmp_path,
        '{"transcript": "podcast.srt", "document_id": "p2", "speaker_prefix": true, '
        '"speaker_carry": 2}\n',
        "more.jsonl",
    )
    assert (jsonl.status, jsonl.stderr) == (0, "")
    units = [
        (tmp_path / "out" / f"{name}.work" / "source.jsonl").read_bytes().split(b"\n", 1)[1]
        for name in ("p2", "podcast")
    ]
    assert units[0] == units[1]  # the same units, under another document ID


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            "bridge.srt,,line,",
            "manifest campaign.csv row 2: --unit does not apply to bridge.srt, read as srt "
            "(only to crd3) (hint: leave --unit out, or give --format crd3)",
        ),
        (
            "bridge.srt,text,,true",
            "manifest campaign.csv row 2: --dedupe-rolling does not apply to the text format "
            "(only to srt and webvtt)",
        ),
        (
            "both.json,,,",
            "manifest campaign.csv row 2: cannot tell the format of both.json: it has both "
            '"TURNS" and "segments" (hint: give the row a format)',
        ),
    ],
)
def test_a_manifest_row_whose_option_does_not_apply_names_both(
    tmp_path: Path, row: str, message: str
) -> None:
    in_folder(tmp_path, "bridge.srt")
    (tmp_path / "both.json").write_text('{"TURNS": [], "segments": []}')
    run = batch(tmp_path, "transcript,format,unit,dedupe_rolling\n" + row + "\n")
    assert run.status == 2
    assert run.stderr.startswith(f"streamer: error: {message}"), run.stderr
    assert os.listdir(tmp_path / "out") == []


def test_report_errors_name_the_campaign_folder_as_given(tmp_path: Path) -> None:
    empty = tmp_path / "no summary"
    empty.mkdir()
    run = invoke(["report", "--campaign", str(empty)])
    assert run.status == 2, run.stderr
    assert run.stderr.startswith(f"streamer: error: --campaign '{empty}': no batch.jsonl in it")
