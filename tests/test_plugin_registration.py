"""The entry-point registries: streamer's own extension points are registered as a plugin's
are, every list comes from them, and a broken plugin is named in one content-safe line.

A plugin here is a ``*.dist-info`` folder (``METADATA`` and ``entry_points.txt``, what pip
installs) in a temporary folder put on the path, next to the module it points at."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from streamer import api
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.engines import ENGINES
from streamer.framework.kinds.normalization_spec import Collapse, NormalizationSpec
from streamer.framework.kinds.records import NonEmpty, SourceReferences
from streamer.framework.kinds.registry import KIND_PLUGINS, ArtifactKind
from streamer.framework.plugins.entry_points import PluginError, Plugins
from streamer.framework.source.reference import SourceReference
from streamer.importers.formats import FORMATS
from streamer.output.modules import OUTPUTS
from tests.support import ref, run_cli

SECRET = "SECRET-TRANSCRIPT-LINE"


def fake_plugin(folder: Path, group: str, name: str, value: str, module: str = "") -> Path:
    """A package ``fake-plugin`` registering ``name = value`` in ``group``; ``module`` is the
    text of ``fake_plugin_module.py``."""
    info = folder / "fake_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: fake-plugin\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[{group}]\n{name} = {value}\n", encoding="utf-8")
    if module:
        (folder / "fake_plugin_module.py").write_text(module, encoding="utf-8")
    return folder


def test_streamer_registers_its_own_extension_points_as_entry_points() -> None:
    assert KIND_PLUGINS.names() == ("dnd",)
    assert FORMATS.names() == ("crd3", "srt", "text", "webvtt", "whisperx")
    assert ENGINES.names() == ("openai", "rules")
    assert OUTPUTS.names() == ("json",)
    assert [fmt.name for fmt in api.import_formats()] == list(FORMATS.names())
    assert [engine.asks_model for engine in ENGINES.load_all()] == [True, False]
    assert len(list(api.default_registry())) == 8


def test_a_plugin_that_cannot_be_imported_is_named(tmp_path: Path) -> None:
    fake_plugin(tmp_path, "streamer.formats", "chatlog", "fake_plugin_missing:FORMAT")
    plugins = Plugins("streamer.formats", "import format", lambda name, loaded: loaded)
    sys.path.insert(0, str(tmp_path))
    try:
        assert "chatlog" in plugins.names()
        with pytest.raises(PluginError) as raised:
            plugins.get("chatlog")
    finally:
        sys.path.remove(str(tmp_path))
    assert raised.value.one_line() == (
        'import format plugin "chatlog" (streamer.formats, from package fake-plugin) cannot '
        "be loaded: ModuleNotFoundError importing fake_plugin_missing:FORMAT "
        "(hint: reinstall or uninstall the package that provides it)"
    )


def test_unknown_names_list_the_installed_plugins() -> None:
    with pytest.raises(PluginError) as raised:
        FORMATS.get("docx", "row 2: ")
    assert raised.value.one_line() == (
        'row 2: unknown import format "docx" (hint: import formats: crd3, srt, text, webvtt, '
        "whisperx)"
    )


MODULE = f"""
SECRET = {SECRET!r}
FORMAT = "not a format"
KINDS = [SECRET]
def broken():
    raise RuntimeError(SECRET)
"""

BROKEN = [
    (
        ["import", "chatlog", "x.txt"],
        "streamer.formats",
        "fake_plugin_module:FORMAT",
        'streamer: error: import format plugin "chatlog" (streamer.formats, from package '
        "fake-plugin) is not valid: str is not a TranscriptFormat (hint: see docs/plugins.md "
        "for what each group takes)",
    ),
    (
        ["schema", "--list"],
        "streamer.kinds",
        "fake_plugin_module:KINDS",
        'streamer: error: artifact kind family plugin "chatlog" (streamer.kinds, from package '
        "fake-plugin) is not valid: str is not an ArtifactKind (hint: see docs/plugins.md for "
        "what each group takes)",
    ),
    (
        ["validate", "."],
        "streamer.kinds",
        "fake_plugin_module:broken_module_attribute",
        'streamer: error: artifact kind family plugin "chatlog" (streamer.kinds, from package '
        "fake-plugin) cannot be loaded: AttributeError importing "
        "fake_plugin_module:broken_module_attribute (hint: reinstall or uninstall the package "
        "that provides it)",
    ),
]


@pytest.mark.parametrize(("args", "group", "value", "line"), BROKEN)
def test_a_broken_plugin_is_one_content_safe_line_through_the_cli(
    tmp_path: Path, args: list[str], group: str, value: str, line: str
) -> None:
    site = fake_plugin(tmp_path / "site", group, "chatlog", value, MODULE)
    run = run_cli(args, cwd=tmp_path, path=[site])
    assert (run.status, run.stdout, run.stderr) == (2, b"", line + "\n")
    assert SECRET not in run.stderr


class Toast(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    toast_id: NonEmpty
    raised_by: NonEmpty | None
    source_refs: SourceReferences


def test_labels_name_members_of_the_record_and_default_to_the_member() -> None:
    kind = ArtifactKind(
        name="test/toasts",
        default_lane="toasts",
        question="Who raises a toast?",
        record=Toast,
        labels={"source_refs": "Evidence"},
    )
    assert [kind.label(m) for m in ("toast_id", "raised_by", "source_refs")] == [
        "Toast id",
        "Raised by",
        "Evidence",
    ]
    spells = api.default_registry().get("dnd/spell-casts", where="test")
    assert [spells.label(m) for m in spells.records.members] == [
        "Spell cast",
        "Spell",
        "Caster",
        "Evidence",
    ]
    with pytest.raises(ValueError, match="labels names 'drink', not a member of Toast"):
        ArtifactKind(
            name="test/toasts",
            default_lane="toasts",
            question="Who raises a toast?",
            record=Toast,
            labels={"drink": "Drink"},
        )


def test_a_kind_registered_twice_is_a_configuration_error() -> None:
    registry = api.default_registry()
    with pytest.raises(ConfigurationError, match="dnd/npcs is registered twice"):
        registry.register(registry.get("dnd/npcs", where="test"))


class Scene(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    scene_id: NonEmpty
    mood: NonEmpty | None
    source_ref: SourceReference


def toasts(**declared: Any) -> ArtifactKind[Toast]:
    fields: dict[str, Any] = {
        "name": "test/toasts",
        "default_lane": "toasts",
        "question": "Who raises a toast?",
        "record": Toast,
        "id_member": "toast_id",
        "evidence_member": "source_refs",
        "normalization": NormalizationSpec(id_prefix="toast", name_members=("raised_by",)),
    }
    return ArtifactKind(**{**fields, **declared})


class Catalogue:
    def canonical(self, value: str) -> str:
        return value


WRONG_MEMBERS = [
    ({"id_member": "id"}, "id_member names 'id', not a member of Toast"),
    ({"evidence_member": "refs"}, "evidence_member names 'refs', not a member of Toast"),
    (
        {"evidence_member": "raised_by"},
        "evidence_member 'raised_by' is not a SourceReference or SourceReferences member",
    ),
    (
        {"normalization": NormalizationSpec(id_prefix="t", name_members=("drinker",))},
        "name_members names 'drinker', not a member of Toast",
    ),
    (
        {"normalization": NormalizationSpec(id_prefix="t", catalogs={"drink": Catalogue()})},
        "catalogs names 'drink', not a member of Toast",
    ),
    (
        {
            "normalization": NormalizationSpec(
                id_prefix="t", collapse=Collapse.REGISTRY, key_member="host"
            )
        },
        "key_member names 'host', not a member of Toast",
    ),
    (
        {"normalization": NormalizationSpec(id_prefix="t", textual_members=("toast",))},
        "textual_members names 'toast', not a member of Toast",
    ),
    (
        {"evidence_member": None},
        "an extracted kind cites evidence: evidence_member is required",
    ),
    (
        {"normalization": NormalizationSpec(id_prefix="t", collapse=Collapse.SPAN)},
        "the span rule is the rule of kinds citing one SourceReference, and theirs only",
    ),
]


@pytest.mark.parametrize(("declared", "message"), WRONG_MEMBERS)
def test_every_member_a_declaration_names_is_checked_when_it_is_declared(
    declared: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError) as raised:
        toasts(**declared)
    assert str(raised.value) == f"artifact kind test/toasts: {message}"


def test_the_projection_and_the_identity_rule_come_from_the_evidence_member() -> None:
    many = toasts()
    record = many.parse_record(
        {"toast_id": "t1", "raised_by": None, "source_refs": [ref("a"), ref("b", "c")]}, "$"
    )
    assert many.evidence is not None and not many.cites_one
    assert many.evidence(record) == (SourceReference("a", "a"), SourceReference("b", "c"))
    assert many.normalization is not None and many.normalization.collapse is Collapse.OCCURRENCE

    one = ArtifactKind(
        name="test/scenes",
        default_lane="scenes",
        question="Which scenes?",
        record=Scene,
        id_member="scene_id",
        evidence_member="source_ref",
        normalization=NormalizationSpec(id_prefix="scene"),
    )
    scene = one.parse_record({"scene_id": "s", "mood": None, "source_ref": ref("d")}, "$")
    assert one.evidence is not None and one.cites_one
    assert one.evidence(scene) == (SourceReference("d", "d"),)
    assert one.normalization is not None and one.normalization.collapse is Collapse.SPAN
    roster = api.default_registry().get("dnd/party-roster", where="test")
    assert (roster.evidence, roster.exposes_evidence) == (None, False)
