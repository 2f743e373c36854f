"""The documentation matches the code: every command and option is documented, the quoted
configuration errors, defaults, kinds and exit statuses are the real ones, links resolve,
the quick start is two commands, the sensitivity, discovery and compatibility statements of
the spec are there, and the worked example runs on a real bundle."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import orjson
import pytest
import typer.main

from streamer import api
from streamer.cli.app import app
from streamer.cli.main import load_commands
from streamer.configuration.model import (
    DEFAULT_MAX_UNITS,
    DEFAULT_OVERLAP_UNITS,
    DEFAULT_WINDOW_UNITS,
)
from streamer.framework.errors.types import (
    ConfigurationError,
    ExitStatus,
    InputError,
    StreamerError,
)
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE
from tests.bundle_support import DEMO
from tests.support import REPO, invoke

README = REPO / "README.md"
DOCS = REPO / "docs"
DOC_FILES = [README, *sorted(DOCS.glob("*.md"))]
EXAMPLE = DOCS / "examples" / "outline.py"


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def flat(path: Path) -> str:
    """The document with every run of white space made one space (lines are wrapped)."""
    return " ".join(text(path).split())


ALL_DOCS = "\n".join(text(path) for path in DOC_FILES)


def section(markdown: str, heading: str) -> str:
    """The body of the section under ``heading``, up to the next heading of its level or
    above (lines inside code blocks are not headings)."""
    level = len(heading.split(" ")[0])
    lines = markdown.splitlines(keepends=True)
    start = lines.index(heading + "\n") + 1
    fenced = False
    for index in range(start, len(lines)):
        line = lines[index]
        fenced ^= line.startswith("```")
        hashes = len(line) - len(line.lstrip("#"))
        if not fenced and 0 < hashes <= level and line[hashes : hashes + 1] == " ":
            return "".join(lines[start:index])
    return "".join(lines[start:])


def code_blocks(markdown: str) -> list[tuple[str, str]]:
    """The fenced code blocks of ``markdown`` as (info string, content)."""
    return re.findall(r"^```([^\n]*)\n(.*?)^```$", markdown, re.MULTILINE | re.DOTALL)


# -- every command and option --------------------------------------------------------------


def root_command() -> click.Group:
    load_commands()  # every command registered with the app
    command = typer.main.get_command(app)
    assert isinstance(command, click.Group)
    return command


def options_of(command: click.Command) -> list[str]:
    """Every option string of ``command``, ``--help`` included."""
    params = command.get_params(click.Context(command))
    return [
        option
        for param in params
        if isinstance(param, click.Option)
        for option in [*param.opts, *param.secondary_opts]
    ]


def commands() -> dict[str, click.Command]:
    return dict(sorted(root_command().commands.items()))


def token(option: str) -> re.Pattern[str]:
    """``option`` as a whole token: ``--lane`` does not match inside ``--lanes-dir``."""
    return re.compile(rf"(?<![\w-]){re.escape(option)}(?![\w-])")


def metavar(command: click.Command, argument: click.Parameter) -> str:
    return argument.make_metavar(click.Context(command)).strip("[].")


@pytest.mark.parametrize("name", sorted(commands()))
def test_every_command_and_each_of_its_options_is_documented(name: str) -> None:
    command = commands()[name]
    assert f"streamer {name}" in ALL_DOCS
    for option in options_of(command):
        assert token(option).search(ALL_DOCS), f"{name} {option} is not documented"
    for param in command.params:
        if isinstance(param, click.Argument):
            assert token(metavar(command, param)).search(ALL_DOCS), f"{name} {param.name}"


@pytest.mark.parametrize("name", sorted(commands()))
def test_every_choice_is_documented_with_its_option(name: str) -> None:
    command = commands()[name]
    rows = option_rows()
    for param in command.params:
        if not isinstance(param.type, click.Choice):
            continue
        names = param.opts if isinstance(param, click.Option) else [metavar(command, param)]
        where = synopses()[name] + "".join(
            row for row in rows if any(token(n).search(row.split("|")[1]) for n in names)
        )
        for choice in param.type.choices:
            assert token(str(choice)).search(where), f"{name} {param.name}: {choice}"


def test_every_option_of_streamer_itself_is_documented() -> None:
    for option in options_of(root_command()):
        assert token(option).search(ALL_DOCS), f"streamer {option} is not documented"


def synopses() -> dict[str, str]:
    """The synopsis lines of docs/integration.md's Commands section, by command."""
    body = section(text(DOCS / "integration.md"), "## Commands")
    (block,) = [content for info, content in code_blocks(body) if not info]
    lines = block.splitlines()
    assert lines[0].startswith("streamer [--debug] COMMAND")
    return {line.split()[1]: line for line in lines[1:]}


def test_the_synopses_name_every_command_with_exactly_its_options() -> None:
    lines = synopses()
    assert sorted(lines) == sorted(commands())
    for name, command in commands().items():
        documented = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", lines[name]))
        assert documented == set(options_of(command)) - {"--help"}, name
    root = set(options_of(root_command())) - {"--help"}
    first = code_blocks(section(text(DOCS / "integration.md"), "## Commands"))[0][1]
    assert set(re.findall(r"--[a-z][a-z-]*", first.splitlines()[0])) == root


def option_rows() -> list[str]:
    """The rows of docs/integration.md's table of options and arguments."""
    body = section(text(DOCS / "integration.md"), "## Commands")
    return [line for line in body.splitlines() if line.startswith("| `")]


def test_every_option_has_a_row_in_the_options_table() -> None:
    rows = option_rows()
    for option in {o for c in [root_command(), *commands().values()] for o in options_of(c)}:
        assert any(token(option).search(row.split("|")[1]) for row in rows), option


# -- the README's quick start ----------------------------------------------------------------


QUICK_START_RUN = ".venv/bin/streamer run fixtures/quickstart/session.vtt --output out/session"


def test_the_quick_start_is_make_demo_a_run_with_no_configuration_and_make_test() -> None:
    blocks = code_blocks(section(text(README), "## Quick start"))
    assert len(blocks) == 1
    commands_ = [line.strip() for line in blocks[0][1].splitlines() if line.strip()]
    assert commands_ == ["make demo", QUICK_START_RUN, "make test"]


def test_the_quick_start_run_publishes_the_fixture_s_spells(tmp_path: Path) -> None:
    shutil.copytree(REPO / "fixtures" / "quickstart", tmp_path / "fixtures" / "quickstart")
    (tmp_path / "out").mkdir()
    run = invoke(QUICK_START_RUN.split()[1:], cwd=tmp_path)
    assert (run.status, run.stderr) == (0, "")
    spells = orjson.loads((tmp_path / "out" / "session" / "lanes" / "spells.json").read_bytes())
    assert [record["spell"] for record in spells["records"]] == ["Shield", "Fireball"]
    assert (tmp_path / "out" / "session.html").is_file()


def test_the_makefile_has_both_quick_start_targets() -> None:
    makefile = text(REPO / "Makefile")
    assert re.search(r"^demo:", makefile, re.MULTILINE)
    assert re.search(r"^test:", makefile, re.MULTILINE)


# -- acceptance: sensitivity, discovery, compatibility, retention -----------------------------

SENSITIVITY = [
    "Evidence publication is opt-in.",
    "Output permissions and retention must be appropriate for the source content.",
    "Selecting broad or numerous lanes can publish most of the transcript.",
    "The evidence artifact never contains raw input bytes, LLM prompts or responses, "
    "auxiliary reference content, credentials, debug-only data, or filesystem paths.",
]

OPERATIONS = [
    "The evidence artifact contains transcript text and speaker metadata.",
    "A bundle holds transcript units only when `output.options.evidence_context.enabled` is "
    "`true`, and then only the units around the references of the lanes named in its "
    "explicit allowlist;",
    "Store, copy, share and expire a bundle with an evidence context as you do the "
    "transcript itself: no longer, and no more widely.",
    "When a transcript must be deleted, delete its bundles too;",
    "What only the run needs is created owner-only whatever the umask:",
    "No size limit truncates the evidence context:",
    "The allowlist is the control: adding a lane to the pipeline never publishes more until "
    "it is allowlisted",
    "Errors are content-safe.",
]

CONSUMERS = [
    "Consumers discover every document of a bundle through `index.json`, never by guessing "
    "file names.",
    "The `evidence_context` member is present exactly when evidence publication was enabled, "
    "also when nothing was cited",
    "Every published document carries its schema identity: `schema.id`, `schema.name` and "
    "`schema.version`.",
    "Consumers dispatch on `schema.id` and `schema.version`",
    "A breaking change gets a new version.",
    "Additive changes keep the versions.",
    "With evidence publication disabled, a bundle is byte-identical to one made without the "
    "feature.",
    "The lane schemas, the lane payloads, their record counts and source references, and the "
    "receipt's `normalized_lanes` (which never counts the evidence context) are unchanged.",
    "Context bounds are navigation aids, not citations: the references are the evidence, and "
    "their `lane_ids` say why a context was included.",
    "Same inputs, same bytes.",
]


@pytest.mark.parametrize(
    "name", ["configuration.md", "operations.md", "integration.md", "consumers.md"]
)
def test_the_configuration_operations_integration_and_consumer_docs_state_the_sensitivity_rules(
    name: str,
) -> None:
    """Spec, Sensitivity And Size: the four documents state the four rules."""
    document = flat(DOCS / name)
    for sentence in SENSITIVITY:
        assert sentence in document, (name, sentence)


def test_acceptance_the_documentation_describes_sensitivity_discovery_compatibility_and_retention() -> (
    None
):
    """Spec acceptance criterion: "The published contract and operational documentation
    clearly describe source sensitivity, discovery, compatibility, and retention"."""
    operations = flat(DOCS / "operations.md")
    for sentence in OPERATIONS:
        assert sentence in operations, sentence
    consumers = flat(DOCS / "consumers.md")
    for sentence in CONSUMERS:
        assert sentence in consumers, sentence
    assert "## Sensitivity and retention" in text(DOCS / "operations.md")
    assert "## Discovery through index.json" in text(DOCS / "consumers.md")
    assert "## Compatibility and versioning policy" in text(DOCS / "consumers.md")


# -- configuration: defaults, kinds and the exact errors --------------------------------------


def test_the_documented_defaults_are_the_code_defaults() -> None:
    rows = {
        line.split("|")[1].strip(): line
        for line in text(DOCS / "configuration.md").splitlines()
        if line.startswith("| `")
    }
    assert f"| `{DEFAULT_MAX_UNITS}` |" in rows["`pipeline.chunking.max_units`"]
    assert f"| `{DEFAULT_OVERLAP_UNITS}` |" in rows["`pipeline.chunking.overlap_units`"]
    assert f"| `{DEFAULT_WINDOW_UNITS}` |" in rows["`output.options.evidence_context.window_units`"]


def test_every_stated_read_size_is_the_code_default() -> None:
    """The architecture and the API reference state the size a source is read by; it is
    the reader's default (both said 1 MB once the code read 128 KiB)."""
    expected = f"{DEFAULT_BUFFER_SIZE >> 10} KiB"
    architecture = text(DOCS / "architecture.md")
    stated = re.findall(r"(\d+ (?:KiB|MiB|MB|KB)) (?:blocks|buffers)", architecture)
    assert stated and set(stated) == {expected}
    sizes = re.findall(r"buffer_size[^|;)]*?(\d+ (?:KiB|MiB|MB|KB))", text(DOCS / "integration.md"))
    assert sizes and set(sizes) == {expected}


def test_the_artifact_kinds_table_is_the_registry() -> None:
    rows = {
        line.split("|")[1].strip().strip("`"): line
        for line in section(text(DOCS / "configuration.md"), "## Artifact kinds").splitlines()
        if line.startswith("| `")
    }
    kinds = list(api.default_registry())
    assert sorted(rows) == [kind.name for kind in kinds]
    for kind in kinds:
        cells = [cell.strip() for cell in rows[kind.name].split("|")[1:-1]]
        assert cells[1] == f"`{kind.default_lane}`"
        assert cells[2] == kind.question
        assert cells[3].startswith("yes" if kind.exposes_evidence else "**no**")
        assert cells[4] == f"`{kind.schema.id}`"


def test_the_consumers_table_of_record_members_is_the_registry() -> None:
    rows = {
        line.split("|")[1].strip().strip("`"): [cell.strip() for cell in line.split("|")[2:-1]]
        for line in section(text(DOCS / "consumers.md"), "## The records of each kind").splitlines()
        if line.startswith("| `")
    }
    kinds = list(api.default_registry())
    assert sorted(rows) == [kind.name for kind in kinds]
    for kind in kinds:
        members, id_member, evidence = rows[kind.name]
        assert members == ", ".join(f"`{member}`" for member in kind.records.members)
        assert id_member == ("(none)" if kind.id_member is None else f"`{kind.id_member}`")
        if kind.evidence_member is None:
            assert evidence == "none: no references"
        else:
            many = "one reference" if kind.cites_one else "a list of references"
            assert evidence == f"`{kind.evidence_member}`: {many}"


LANES = """pipeline:
  lanes:
    - {id: spells, artifact_kind: dnd/spell-casts}
    - {id: roster, artifact_kind: dnd/party-roster}
"""


def evidence(options: str) -> str:
    return LANES + "output:\n  module: json\n  options:\n    evidence_context: " + options + "\n"


CONFIGURATION_ERRORS = {
    "pipeline: [\n": (
        "configuration is not valid YAML at line 2, column 1: expected the node content, but "
        "found '<stream end>' (while parsing a flow node that starts at line 2, column 1)"
    ),
    LANES + "pipeline: {}\n": "configuration line 5: duplicate key pipeline",
    "[" * 40 + "]" * 40 + "\n": "configuration line 1: nested more than 32 levels deep",
    "- 1\n": "$ must be a mapping",
    "pipeline: {lanes: [a]}\n": "$.pipeline.lanes[0] must be a mapping",
    LANES
    + "  chunking: {size: 3}\n": '$.pipeline.chunking: unknown member "size" (hint: accepted: max_units, overlap_units)',
    "{pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs}]}, 3: x}\n": "$: unknown member (a non-string key) (hint: accepted: output, pipeline)",
    "pipeline: {lanes: [{id: a}]}\n": "$.pipeline.lanes[0].artifact_kind is required",
    "pipeline: {lanes: []}\n": "$.pipeline.lanes must be a non-empty list",
    "pipeline: {lanes: [{id: 3, artifact_kind: dnd/npcs}]}\n": "$.pipeline.lanes[0].id must be a string",
    "pipeline: {lanes: [{id: Spells, artifact_kind: dnd/npcs}]}\n": "$.pipeline.lanes[0].id: \"Spells\" is not a valid lane ID (hint: lane IDs are 1-64 characters of a-z, 0-9, '-' and '_', starting with a letter or digit)",
    "pipeline: {lanes: [{id: spells, artifact_kind: dnd/npcs}, {id: ' spells', artifact_kind: dnd/npcs}]}\n": '$.pipeline.lanes[1].id: duplicate lane ID "spells"',
    "pipeline: {lanes: [{id: a, artifact_kind: 3}]}\n": "$.pipeline.lanes[0].artifact_kind must be a string",
    "pipeline: {lanes: [{id: a, artifact_kind: dnd/spells}]}\n": '$.pipeline.lanes[0].artifact_kind: unknown artifact kind "dnd/spells" (hint: known kinds: dnd/combat-turns, dnd/item-events, dnd/npc-interactions, dnd/npcs, dnd/party-roster, dnd/places, dnd/scene-descriptions, dnd/spell-casts)',
    LANES
    + "  chunking: {max_units: 0}\n": "$.pipeline.chunking.max_units must be an integer from 1 to 10,000",
    LANES
    + "  chunking: {overlap_units: -1}\n": "$.pipeline.chunking.overlap_units must be an integer from 0 to 9,999",
    LANES
    + "  chunking: {max_units: 10, overlap_units: 10}\n": "$.pipeline.chunking.overlap_units must be smaller than max_units",
    LANES
    + "output: {module: yaml}\n": "$.output.module must be one of: json (hint: output modules are plugins (docs/plugins.md))",
    evidence("null"): "$.output.options.evidence_context must be a mapping",
    evidence("{lanes: [spells]}"): "$.output.options.evidence_context.enabled is required",
    evidence(
        "{enabled: 1, lanes: [spells]}"
    ): "$.output.options.evidence_context.enabled must be true or false",
    evidence(
        "{enabled: false, lanes: [spells]}"
    ): '$.output.options.evidence_context: unknown member "lanes" (hint: accepted: enabled)',
    evidence("{enabled: true}"): "$.output.options.evidence_context.lanes is required",
    evidence(
        "{enabled: true, lanes: []}"
    ): "$.output.options.evidence_context.lanes must be a non-empty list of lane IDs (hint: evidence publication needs an explicit allowlist of lanes)",
    evidence(
        "{enabled: true, lanes: [3]}"
    ): "$.output.options.evidence_context.lanes[0] must be a string",
    evidence(
        "{enabled: true, lanes: [Spells]}"
    ): "$.output.options.evidence_context.lanes[0]: \"Spells\" is not a valid lane ID (hint: lane IDs are 1-64 characters of a-z, 0-9, '-' and '_', starting with a letter or digit)",
    evidence(
        "{enabled: true, lanes: [spells, ' spells ']}"
    ): '$.output.options.evidence_context.lanes[1]: duplicate lane ID "spells"',
    evidence(
        "{enabled: true, lanes: [ghosts]}"
    ): '$.output.options.evidence_context.lanes[0]: "ghosts" is not a configured lane (hint: allowlisted lanes must be listed in pipeline.lanes)',
    evidence(
        "{enabled: true, lanes: [roster]}"
    ): '$.output.options.evidence_context.lanes[0]: lane "roster" has artifact kind dnd/party-roster, which cannot expose source evidence',
    evidence(
        "{enabled: true, lanes: [spells], window_units: -1}"
    ): "$.output.options.evidence_context.window_units must be an integer from 0 to 1,000",
}


def error_line(error: StreamerError) -> str:
    return f"streamer: error: {error.one_line()}"


@pytest.mark.parametrize("yaml_text", list(CONFIGURATION_ERRORS))
def test_each_documented_configuration_error_is_the_real_one(
    tmp_path: Path, yaml_text: str
) -> None:
    expected = f"streamer: error: {CONFIGURATION_ERRORS[yaml_text]}"
    assert f"`{expected}`" in text(DOCS / "configuration.md")
    path = tmp_path / "streamer.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    with pytest.raises(ConfigurationError) as raised:
        api.load_config(path)
    assert error_line(raised.value) == expected


@pytest.mark.parametrize(
    "value", ["true", "3.0", "'3'", "-1"], ids=["boolean", "float", "string", "negative"]
)
def test_the_documented_non_integers_are_rejected(tmp_path: Path, value: str) -> None:
    path = tmp_path / "streamer.yaml"
    path.write_text(evidence(f"{{enabled: true, lanes: [spells], window_units: {value}}}"))
    with pytest.raises(ConfigurationError, match="window_units must be an integer from 0 to 1,000"):
        api.load_config(path)


def test_the_documented_file_and_publication_errors_are_the_real_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    documented = text(DOCS / "configuration.md")
    monkeypatch.chdir(tmp_path)  # the file named as a user names it
    with pytest.raises(ConfigurationError) as raised:
        api.load_config("streamer.yaml")
    assert f"`{error_line(raised.value)}`" in documented
    path = tmp_path / "off.yaml"
    path.write_text(LANES)
    with pytest.raises(ConfigurationError) as raised:
        api.evidence(api.load_config(path), tmp_path / "source.jsonl", tmp_path)
    assert f"`{error_line(raised.value)}`" in documented


def test_yaml_1_1_booleans_and_a_null_chunking_are_accepted_as_documented(tmp_path: Path) -> None:
    path = tmp_path / "streamer.yaml"
    path.write_text(
        LANES + "  chunking: null\n" + evidence("{enabled: yes, lanes: [' spells']}")[len(LANES) :]
    )
    config = api.load_config(path)
    assert config.evidence_context is not None and config.evidence_context.enabled
    assert config.evidence_context.lanes == ("spells",)
    assert (config.chunking.max_units, config.chunking.overlap_units) == (100, 10)


# -- exit statuses -----------------------------------------------------------------------------

EXIT_STATUSES = {
    ExitStatus.OK: "success",
    ExitStatus.UNEXPECTED: "unexpected failure",
    ExitStatus.USAGE: "usage or configuration error",
    ExitStatus.INVALID_INPUT: "invalid input",
    ExitStatus.INCOMPLETE: "incomplete",
    ExitStatus.BELOW_FLOOR: "below a floor",
    ExitStatus.INTERRUPTED: "interrupted",
    ExitStatus.BROKEN_PIPE: "standard output closed early",
    ExitStatus.TERMINATED: "terminated",
    ExitStatus.HANGUP: "hang-up",
    ExitStatus.QUIT: "quit",
}


def test_every_exit_status_has_its_meaning() -> None:
    assert sorted(EXIT_STATUSES) == sorted(ExitStatus)
    assert ConfigurationError.exit_status == ExitStatus.USAGE
    assert InputError.exit_status == ExitStatus.INVALID_INPUT


@pytest.mark.parametrize("name", ["operations.md", "integration.md"])
def test_the_exit_status_tables_list_exactly_the_real_statuses(name: str) -> None:
    rows = re.findall(r"^\| (\d+) \| ([^|]+)", text(DOCS / name), re.MULTILINE)
    documented = {int(status): meaning.strip() for status, meaning in rows}
    assert sorted(documented) == sorted(EXIT_STATUSES)
    for status, meaning in EXIT_STATUSES.items():
        assert documented[status].startswith(meaning), (status, documented[status])


# -- links -------------------------------------------------------------------------------------


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    heading = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    headings = re.findall(
        r"^#+ (.+)$", re.sub(r"```.*?```", "", text(path), flags=re.DOTALL), re.MULTILINE
    )
    return {slug(heading) for heading in headings}


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda path: path.name)
def test_every_relative_link_resolves(path: Path) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", text(path)):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        assert resolved.is_relative_to(REPO), f"{path.name} links outside the repository: {target}"
        assert resolved.exists(), f"{path.name}: {target} does not exist"
        if anchor:
            assert anchor in anchors(resolved), f"{path.name}: no heading for {target}"


def test_every_doc_is_linked_from_the_readme() -> None:
    readme = text(README)
    for path in DOCS.glob("*.md"):
        assert f"(docs/{path.name})" in readme, path.name


# -- the worked example ------------------------------------------------------------------------

OUTLINE_START = [
    "# demo-slayers-take (> cited directly, the rest is context)",
    "",
    "## Context 1: t0100..t0105",
    "- t0101..t0104 cited by npc-interactions",
    "- t0102..t0102 cited by npcs",
    "  [t0100] MATT: The rain hammers the roof of the Slayer's Take as the party shakes off their cloaks.",
    "> [t0101] LAURA: I walk up to the bar and ask the keeper if she has seen a halfling with a red scarf.",
    "> [t0102] MATT: Brenna the barkeep squints at you. 'Red scarf? Came in two nights back. Paid in old coin.'",
    "> [t0103] SAM: I slide her a silver piece. Old coin from where?",
    "> [t0104] MATT: 'Whitestone, by the stamp. He asked about the crypt road.'",
    "  [t0105] LIAM: Crypt road. Of course it's a crypt road.",
    "",
    "## Context 2: t0099b..t0122",
    "- t0110..t0113 cited by combat-turns",
    "- t0111..t0111 cited by spells",
    "- t0114..t0115 cited by combat-turns",
    "- t0116..t0117 cited by combat-turns, spells",
    "- t0118..t0119 cited by item-events",
    "- t0120..t0121 cited by npcs",
    "  [t0099b] LAURA: Twenty-two.",
    "> [t0110] MATT: Vex, you're up first. Top of round one.",
]


def demo_bundle(folder: Path, config: Path = DEMO / "streamer.yaml") -> Path:
    run = invoke(
        [
            "bundle",
            "--config",
            str(config),
            "--source",
            str(DEMO / "session.jsonl"),
            "--lanes-dir",
            str(DEMO / "lanes"),
            "--output",
            str(folder),
        ]
    )
    assert run.status == 0, run.stderr
    return folder


def outline(bundle: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), str(bundle)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


def test_the_worked_example_outlines_the_demo_bundle(tmp_path: Path) -> None:
    run = outline(demo_bundle(tmp_path / "bundle"))
    assert (run.returncode, run.stderr) == (0, "")
    lines = run.stdout.splitlines()
    assert lines[: len(OUTLINE_START)] == OUTLINE_START
    assert lines[-1] == "  [t0122] SAM: Put it on Grog's tab."
    assert sum(line.startswith("## Context") for line in lines) == 2


def test_the_worked_example_in_the_docs_is_the_script_and_its_output(tmp_path: Path) -> None:
    body = section(text(DOCS / "consumers.md"), "## Worked example: a narrative outline")
    blocks = code_blocks(body)
    (script,) = [content for info, content in blocks if info == "python"]
    assert script == text(EXAMPLE)
    (shown,) = [content for info, content in blocks if not info]
    shown_lines = shown.splitlines()
    assert shown_lines[-1] == "..."
    assert shown_lines[:-1] == OUTLINE_START[: len(shown_lines) - 1]


def test_the_worked_example_explains_a_bundle_without_evidence(tmp_path: Path) -> None:
    config = tmp_path / "streamer.yaml"
    config.write_text(text(DEMO / "streamer.yaml").split("output:")[0], encoding="utf-8")
    run = outline(demo_bundle(tmp_path / "bundle", config))
    assert run.returncode == 1
    assert run.stderr == "no evidence context in this bundle (evidence publication is off)\n"
