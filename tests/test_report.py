"""``streamer report`` without a browser: the page's data is the bundle's, the embedded JSON
is script-safe, the policy allows only the page's own style and script, an invalid bundle
is refused like ``streamer validate`` refuses it, and the page is written like every output
(atomically, owner-only, the same bytes for the same bundle). The page in a real browser:
``tests/test_report_browser.py``."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer import api
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.framework.party import Party
from streamer.report.embedding import script_safe
from streamer.report.evidence_stream import read_header
from tests.report_support import (
    XSS,
    XSS_FLAG,
    big_case,
    build,
    demo_bundle,
    embedded_data,
    hostile_case,
)
from tests.support import ref, run_cli, spell, unit, write_case

# -- the embedded JSON --------------------------------------------------------------------

UNSAFE = ["<", ">", "&", "\u2028", "\u2029", "</script>", "<!--", "\\", '"', "\\u003c"]


STRINGS = st.lists(
    st.sampled_from(UNSAFE) | st.characters(exclude_categories=["Cs"]), max_size=8
).map("".join)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**53), 2**53) | STRINGS,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(STRINGS, inner, max_size=4),
        max_leaves=12,
    )
)
def test_script_safe_json_keeps_the_value_and_holds_no_unsafe_character(value: object) -> None:
    safe = script_safe(orjson.dumps(value))
    assert json.loads(safe) == value
    text = safe.decode("utf-8")
    for character in "<>&\u2028\u2029":
        assert character not in text


def test_script_safe_escapes_exactly_the_five_characters() -> None:
    assert script_safe(orjson.dumps("a</b>&\u2028\u2029é")) == (
        b'"a\\u003c/b\\u003e\\u0026\\u2028\\u2029\xc3\xa9"'
    )


# -- the page's data is the bundle's ------------------------------------------------------


def evidence_document(bundle: Path) -> dict[str, Any]:
    document: dict[str, Any] = orjson.loads((bundle / "evidence-context.json").read_bytes())
    return document


def page_row(unit: dict[str, Any]) -> list[Any]:
    """The reference: a published unit as the page's row (ID, kind, text, speaker, start
    and end, ``None`` for what the unit does not say)."""
    metadata = unit.get("metadata", {})
    return [unit["unit_id"], unit["kind"], unit["text"]] + [
        metadata.get(member) for member in ("speaker", "start_ms", "end_ms")
    ]


def page_contexts(document: dict[str, Any]) -> list[list[Any]]:
    """The reference: each context as the page's row (its first unit's position, its unit
    count, its references as ``[start_unit_id, end_unit_id, lane_ids]``)."""
    rows, first = [], 0
    for context in document["contexts"]:
        references = [
            [r["source_ref"]["start_unit_id"], r["source_ref"]["end_unit_id"], r["lane_ids"]]
            for r in context["references"]
        ]
        rows.append([first, len(context["units"]), references])
        first += len(context["units"])
    return rows


def test_the_demo_report_embeds_every_lane_record_and_evidence_unit(tmp_path: Path) -> None:
    bundle = demo_bundle(tmp_path / "bundle")
    api.report(bundle, output=tmp_path / "report.html")
    data = embedded_data((tmp_path / "report.html").read_bytes())
    index = orjson.loads((bundle / "index.json").read_bytes())
    assert data["title"] == "streamer report: demo-slayers-take"
    assert data["source"] == index["source"]
    assert [lane["lane_id"] for lane in data["lanes"]] == [d["lane_id"] for d in index["lanes"]]
    for lane, descriptor in zip(data["lanes"], index["lanes"], strict=True):
        payload = orjson.loads((bundle / descriptor["file"]).read_bytes())
        assert lane["records"] == payload["records"]
        assert len(lane["records"]) == descriptor["record_count"]
    spells = data["lanes"][-1]
    assert spells["lane_id"] == "spells"
    assert spells["columns"] == ["spell_cast_id", "spell", "caster", "source_refs"]
    assert spells["reference_column"] == "source_refs"
    assert spells["question"] == "Which spells were cast, and by whom?"
    assert spells["references"] == [[["t0111", "t0111"]], [["t0116", "t0117"]]]
    scenes = data["lanes"][-2]
    assert (scenes["lane_id"], scenes["reference_column"]) == ("scene-descriptions", "source_ref")
    assert scenes["references"] == [[["t0100", "t0122"]], [["t0123", "t0124"]]]
    document = evidence_document(bundle)
    evidence = data["evidence"]
    assert evidence["window_units"] == 1
    assert evidence["lanes"] == document["lanes"]
    published = [unit for context in document["contexts"] for unit in context["units"]]
    assert evidence["units"] == [page_row(unit) for unit in published]
    assert evidence["units"][0] == ["t0100", "narration", published[0]["text"], "MATT", 0, 6540]
    assert evidence["contexts"] == page_contexts(document)


def test_without_an_evidence_context_records_and_their_unit_ids_are_still_there(
    tmp_path: Path,
) -> None:
    case = hostile_case(tmp_path / "case")
    case.config.write_text(
        "pipeline:\n  lanes:\n    - {id: spells, artifact_kind: dnd/spell-casts}\n"
        "    - {id: npcs, artifact_kind: dnd/npcs}\n"
    )
    bundle = build(case, tmp_path / "bundle")
    summary = api.report(bundle, output=tmp_path / "report.html")
    data = embedded_data((tmp_path / "report.html").read_bytes())
    assert data["evidence"] is None
    assert (summary.evidence, summary.units, summary.contexts) == (False, 0, 0)
    assert next(lane for lane in data["lanes"] if lane["lane_id"] == "spells")["references"] == [
        [["u04", "u05"]],
        [["u07", "u07"]],
    ]
    assert XSS not in (tmp_path / "report.html").read_text()


def test_payloads_are_json_data_and_the_page_has_exactly_two_scripts(tmp_path: Path) -> None:
    bundle = build(hostile_case(tmp_path / "case"), tmp_path / "bundle")
    run = run_cli(["report", str(bundle), "--title", XSS])
    assert (run.status, run.stderr) == (0, "")
    page = run.stdout.decode()
    assert "<title>&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</title>" in page
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "<img" not in page and "onerror" not in page.split("<script>")[-1]
    data = embedded_data(run.stdout)
    assert data["title"] == XSS
    units = {row[0]: row for row in data["evidence"]["units"]}
    assert units["u07"][2:4] == [XSS, XSS_FLAG]
    assert (
        next(lane for lane in data["lanes"] if lane["lane_id"] == "spells")["records"][1]["spell"]
        == XSS_FLAG
    )


def csp(page: str) -> dict[str, str]:
    (content,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    return dict(directive.split(" ", 1) for directive in content.split("; "))


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_policy_allows_the_page_s_own_style_and_script_and_nothing_else(
    tmp_path: Path,
) -> None:
    page = run_cli(["report", str(demo_bundle(tmp_path / "bundle"))]).stdout.decode()
    policy = csp(page)
    (style,) = re.findall(r"<style>(.*?)</style>", page, re.DOTALL)
    (script,) = re.findall(r"\n<script>(.*?)</script>", page, re.DOTALL)
    assert policy.pop("script-src") == sha256(script)
    assert policy.pop("style-src") == sha256(style)
    assert policy == {
        name: "'none'"
        for name in [
            "default-src",
            "img-src",
            "font-src",
            "connect-src",
            "media-src",
            "object-src",
            "frame-src",
            "worker-src",
            "manifest-src",
            "base-uri",
            "form-action",
        ]
    }
    assert page.index("Content-Security-Policy") < page.index("<style>")
    assert re.search(r"\b(src|href)=", page) is None
    assert ".innerHTML" not in script and "insertAdjacentHTML" not in script
    assert "eval(" not in script and "document.write" not in script


# -- the evidence header, streamed --------------------------------------------------------


@pytest.mark.parametrize("buffer_size", [1, 3, 64, 1 << 20])
def test_the_header_is_read_whatever_the_buffer_and_layout(
    tmp_path: Path, buffer_size: int
) -> None:
    document = evidence_document(demo_bundle(tmp_path / "bundle"))
    document["contexts"][1]["units"][3]["text"] = "héllo wörld ✨ 日本"
    # members reordered and indented, as another writer may lay out a valid document
    relaid = {
        "contexts": document["contexts"],
        **{k: v for k, v in document.items() if k != "contexts"},
    }
    path = tmp_path / "evidence.json"
    path.write_bytes(orjson.dumps(relaid, option=orjson.OPT_INDENT_2))
    header = read_header(path, buffer_size)
    assert (header.window_units, header.lanes) == (document["window_units"], document["lanes"])


# -- written like every output ----------------------------------------------------------


def test_the_report_gets_the_umasks_mode_and_the_same_bytes_each_time(tmp_path: Path) -> None:
    bundle = demo_bundle(tmp_path / "bundle")
    again = demo_bundle(tmp_path / "again")
    first, second = tmp_path / "first.html", tmp_path / "second.html"
    old_umask = os.umask(0o022)
    try:
        assert run_cli(["report", str(bundle), "--output", str(first)]).status == 0
    finally:
        os.umask(old_umask)
    run = run_cli(["report", str(again), "--output", str(second)])
    assert (run.status, run.stdout, run.stderr) == (0, b"", "")
    assert first.read_bytes() == second.read_bytes()
    assert stat.S_IMODE(first.stat().st_mode) == 0o644
    assert run_cli(["report", str(bundle)]).stdout == first.read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["again", "bundle", "first.html", "second.html"]


def test_an_invalid_bundle_is_refused_with_status_3_and_nothing_is_written(tmp_path: Path) -> None:
    bundle = demo_bundle(tmp_path / "bundle")
    (bundle / "lanes" / "spells.json").write_bytes(b'{"lane_id": "spells"')
    output = tmp_path / "report.html"
    output.write_bytes(b"the previous report")
    run = run_cli(["report", "bundle", "--output", "report.html"], cwd=tmp_path)
    assert run.status == InputError.exit_status
    assert run.stderr == (
        'streamer: error: bundle bundle is not valid (1 problem): "lanes/spells.json": not '
        "valid JSON (hint: 'streamer validate bundle' lists every problem)\n"
    )
    assert output.read_bytes() == b"the previous report"
    assert sorted(os.listdir(tmp_path)) == ["bundle", "report.html"]


def test_a_missing_bundle_or_output_folder_is_a_usage_error_before_anything_is_read(
    tmp_path: Path,
) -> None:
    run = run_cli(["report", "nowhere"], cwd=tmp_path)
    assert (run.status, run.stderr) == (
        ConfigurationError.exit_status,
        "streamer: error: bundle folder nowhere does not exist\n",
    )
    run = run_cli(["report", ".", "--output", "no/r.html"], cwd=tmp_path)
    assert (run.status, run.stderr) == (
        ConfigurationError.exit_status,
        "streamer: error: the folder no of --output no/r.html does not exist "
        "(hint: create it first: mkdir -p no)\n",
    )


def test_api_report_writes_to_a_stream_and_summarizes(tmp_path: Path) -> None:
    case = hostile_case(tmp_path / "case")
    bundle = build(case, tmp_path / "bundle")
    with (tmp_path / "out.html").open("wb") as out:
        summary = api.report(bundle, output=out, title="Session 12")
    assert summary == api.report(bundle, output=tmp_path / "again.html", title="Session 12")
    assert (summary.document_id, summary.lanes, summary.records) == ("doc-1", 4, 5)
    # u04-u05, u07, u09 and u10, each widened by one unit, touch: one context, u03 to u11
    assert (summary.evidence, summary.contexts, summary.units) == (True, 1, 9)
    assert (tmp_path / "out.html").read_bytes() == (tmp_path / "again.html").read_bytes()
    assert embedded_data((tmp_path / "out.html").read_bytes())["title"] == "Session 12"


def test_a_bundle_with_no_citations_has_an_empty_evidence_context(tmp_path: Path) -> None:
    case = write_case(
        tmp_path / "case", [{"unit_id": "a", "kind": "k", "text": ""}], {"spells": []}
    )
    data = embedded_data(run_cli(["report", str(build(case, tmp_path / "b"))]).stdout)
    assert data["evidence"]["units"] == [] and data["evidence"]["contexts"] == []
    assert data["lanes"][0]["records"] == [] and data["lanes"][0]["reference_column"] is None


# -- one reading of the evidence, the speakers' characters -------------------------------


@pytest.mark.parametrize("case", ["demo", "hostile", "big", "units without metadata"])
def test_the_page_s_evidence_is_what_validation_read_of_the_document(
    tmp_path: Path, case: str
) -> None:
    """``report`` writes the evidence from the units and contexts its validation read
    (``EvidenceRows``): every unit of the document as its row and every context as its
    head, for payloads to escape, units without metadata, and several contexts."""
    if case == "demo":
        bundle = demo_bundle(tmp_path / "bundle")
    elif case == "hostile":
        bundle = build(hostile_case(tmp_path / "case"), tmp_path / "bundle")
    elif case == "big":
        bundle = build(big_case(tmp_path / "case", 5000), tmp_path / "bundle")
    else:
        units = [unit(f"u{i}", f"plain & <b>{i}</b>\u2028") for i in range(9)]
        lanes = {"spells": [spell("s1", ref("u1")), spell("s2", ref("u3", "u4"))]}
        case_ = write_case(tmp_path / "case", units, lanes, window=1)
        bundle = build(case_, tmp_path / "bundle")
    summary = api.report(bundle, output=tmp_path / "report.html")
    page = (tmp_path / "report.html").read_bytes()
    assert page.count(b"</script>") == 2 and b"\xe2\x80\xa8" not in page
    document = evidence_document(bundle)
    evidence = embedded_data(page)["evidence"]
    assert evidence["units"] == [
        page_row(unit) for context in document["contexts"] for unit in context["units"]
    ]
    assert evidence["contexts"] == page_contexts(document)
    assert (summary.units, summary.contexts) == (len(evidence["units"]), len(document["contexts"]))


def test_speakers_get_the_character_of_the_player_with_their_name_key() -> None:
    party = Party(
        {"Laura": "Vex'ahlia", "Sam": "Scanlan", "O\u2019BRIEN": "Pike", "Orion": "Tiberius"}
    )
    speakers = ["LAURA", "SAM", "MATT", "LAURA", "o'brien", "laura", None]
    assert party.as_written(speakers) == [
        ("LAURA", "Vex'ahlia"),
        ("Laura", "Vex'ahlia"),
        ("Orion", "Tiberius"),
        ("O\u2019BRIEN", "Pike"),
        ("SAM", "Scanlan"),
        ("Sam", "Scanlan"),
        ("laura", "Vex'ahlia"),
        ("o'brien", "Pike"),
    ]
    assert Party().as_written(speakers) == []


def test_the_page_gets_each_speaker_s_character_as_the_units_write_the_speaker(
    tmp_path: Path,
) -> None:
    bundle = demo_bundle(tmp_path / "bundle")
    glossary = tmp_path / "campaign.yaml"
    glossary.write_text(
        "party:\n  - {player: laura, character: Vex'ahlia}\n"
        "  - {player: Sam, character: Scanlan}\n  - {player: Orion, character: Tiberius}\n",
        encoding="utf-8",
    )
    api.report(bundle, output=tmp_path / "report.html", glossary=glossary)
    data = embedded_data((tmp_path / "report.html").read_bytes())
    speakers = {row[3] for row in data["evidence"]["units"]}
    assert {"LAURA", "SAM", "MATT"} <= speakers
    # every player as the glossary writes them, and each speaker of the units whose name key
    # is a player's, as the units write them (the page looks a speaker up exactly)
    assert data["characters"] == [
        ["LAURA", "Vex'ahlia"],
        ["Orion", "Tiberius"],
        ["SAM", "Scanlan"],
        ["Sam", "Scanlan"],
        ["laura", "Vex'ahlia"],
    ]
