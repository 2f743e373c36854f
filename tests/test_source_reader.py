"""The incremental source document reader: both forms, tiny buffers, split characters,
members in any order, and every contract violation rejected with a located error."""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer.framework.errors.types import SourceError
from streamer.framework.json.canonical import SemanticDigest
from streamer.framework.source.reader import SourceDocumentReader
from streamer.framework.source.unit_rules import validate_unit
from tests.support import digest_of, json_bytes, jsonl_bytes, unit

UNITS = [
    unit("b7", "Roll for initiative — 🎲 now!", speaker="MATT", start_ms=0, end_ms=900),
    unit("a2", 'He says: {"unit_id": "zz"}]} and leaves', kind="narration"),
    unit("u10", "Ünïcödé ✓ « » \u2028 line", speaker="LAURA"),
    unit("u2", "", speaker="SAM", start_ms=5, end_ms=5),
]
EXPECTED = [
    {
        "unit_id": "b7",
        "kind": "utterance",
        "text": "Roll for initiative — 🎲 now!",
        "metadata": {"speaker": "MATT", "start_ms": 0, "end_ms": 900},
    },
    {"unit_id": "a2", "kind": "narration", "text": 'He says: {"unit_id": "zz"}]} and leaves'},
    {
        "unit_id": "u10",
        "kind": "utterance",
        "text": "Ünïcödé ✓ « » \u2028 line",
        "metadata": {"speaker": "LAURA"},
    },
    {
        "unit_id": "u2",
        "kind": "utterance",
        "text": "",
        "metadata": {"speaker": "SAM", "start_ms": 5, "end_ms": 5},
    },
]


class OneByteAtATime(io.RawIOBase):
    """A stream that never returns more than one byte per read."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        return self._data.read(1 if size != 0 else 0)


def read_all(
    data: bytes, buffer_size: int = 1 << 16, stream: Any = None, batch_units: int = 4096
) -> tuple[list[Any], Any, str]:
    reader = SourceDocumentReader(
        stream or io.BytesIO(data), buffer_size=buffer_size, batch_units=batch_units
    )
    units = [msgspec.to_builtins(unit) for unit in reader]
    return units, reader.identity, reader.form


FORMS = {
    "jsonl": jsonl_bytes("doc", UNITS),
    "json": json_bytes("doc", UNITS),
    "json-indented": json_bytes("doc", UNITS, indent=True),
    "json-units-first": json_bytes("doc", UNITS, units_first=True),
    "json-units-first-indented": json_bytes("doc", UNITS, units_first=True, indent=True),
}


@pytest.mark.parametrize("name", sorted(FORMS))
@pytest.mark.parametrize("buffer_size", [1, 2, 3, 7, 64, 1 << 16])
@pytest.mark.parametrize("batch_units", [1, 3, 4096])
def test_every_form_and_buffer_size_reads_the_same_units(
    name: str, buffer_size: int, batch_units: int
) -> None:
    units, identity, form = read_all(FORMS[name], buffer_size, batch_units=batch_units)
    assert units == EXPECTED
    assert identity.document_id == "doc"
    assert identity.semantic_digest == digest_of(UNITS)
    assert identity.unit_count == 4
    assert form == ("jsonl" if name == "jsonl" else "json")


@pytest.mark.parametrize("name", sorted(FORMS))
def test_one_byte_reads_split_multibyte_characters(name: str) -> None:
    units, identity, _ = read_all(b"", 1, stream=OneByteAtATime(FORMS[name]))
    assert units == EXPECTED
    assert identity.semantic_digest == digest_of(UNITS)


def test_digest_is_computed_when_absent_and_ignores_formatting_and_self_reference() -> None:
    with_refs = [
        {**u, "source_ref": {"start_unit_id": u["unit_id"], "end_unit_id": u["unit_id"]}}
        for u in UNITS
    ]
    _, declared, _ = read_all(jsonl_bytes("doc", UNITS))
    _, computed, _ = read_all(jsonl_bytes("doc", with_refs, digest=False))
    _, indented, _ = read_all(json_bytes("doc", with_refs, digest=False, indent=True))
    assert declared.semantic_digest == computed.semantic_digest == indented.semantic_digest


def test_empty_metadata_is_dropped() -> None:
    units, _, _ = read_all(
        jsonl_bytes("doc", [{"unit_id": "a", "kind": "k", "text": "", "metadata": {}}])
    )
    assert units == [{"unit_id": "a", "kind": "k", "text": ""}]


def test_zero_units_in_both_forms() -> None:
    for data in (
        jsonl_bytes("doc", []),
        json_bytes("doc", []),
        json_bytes("doc", [], units_first=True),
    ):
        units, identity, _ = read_all(data)
        assert units == []
        assert identity.unit_count == 0
        assert identity.semantic_digest == digest_of([])


def test_trailing_blank_lines_are_accepted_in_json_lines() -> None:
    units, _, _ = read_all(jsonl_bytes("doc", UNITS) + b"\n\r\n")
    assert len(units) == 4


def error_of(data: bytes, buffer_size: int = 1 << 16) -> str:
    with pytest.raises(SourceError) as caught:
        read_all(data, buffer_size)
    return caught.value.one_line()


GOOD = orjson.dumps(UNITS[0]).decode()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "the source document is empty"),
        (b"  \n", "the source document is empty"),
        (b"[1, 2]", "does not start with a JSON object"),
        (b'{"document_id": "d", "units": [', "not valid JSON"),
        (
            b'{"document_id": "d", "units": [' + GOOD.encode() + b",",
            "not valid JSON after $.units[0]: the input ends inside $.units",
        ),
        (b'{"document_id": "d", "units": {}}', "$.units must be an array"),
        (b'{"document_id": 5, "units": []}', "$.document_id must be a non-empty string"),
        (b'{"document_id": "", "units": []}', "$.document_id must be a non-empty string"),
        (b'{"units": []}', "$.document_id is required"),
        (b'{"document_id": "d", "path": "/etc", "units": []}', 'unknown document member "path"'),
        (b'{"document_id": "d", "units": [], "path": "/etc"}', 'unknown document member "path"'),
        (
            b'{"document_id": "d", "units": [' + GOOD.encode() + b'], "extra": [{}]}',
            'unknown document member "extra"',
        ),
        (
            b'{"document_id": "d", "units": [' + GOOD.encode() + b'], "units": []}',
            "units appears twice",
        ),
        (b'{"document_id": "d", "document_id": "e", "units": []}', "document_id appears twice"),
        (
            b'{"document_id": "d", "semantic_digest": "md5:x", "units": []}',
            "semantic_digest must be 'sha256:'",
        ),
        (b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"t"\n', "line 2: not valid JSON"),
        (
            b'{"document_id":"d"}\n\n' + GOOD.encode() + b"\n",
            "line 2: empty line inside JSON Lines",
        ),
        (b'{"document_id":"d"\n}\n', "line 1: the JSON Lines header must be one JSON object"),
        (
            b'{"document_id":"d","units":[{"unit_id":"a","kind":"k","text":"t","speaker":"x"}]}',
            '$.units[0]: unknown member "speaker"',
        ),
        (b'{"document_id":"d"}\n[1]\n', "line 2: a unit must be a JSON object"),
        (
            b'{"document_id":"d"}\n{"unit_id":"","kind":"k","text":"t"}\n',
            "line 2.unit_id must be a non-empty string",
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":7,"text":"t"}\n',
            "line 2.kind must be a non-empty string",
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":null}\n',
            "line 2.text must be a string",
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"t","metadata":[]}\n',
            "line 2.metadata must be an object",
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"t","metadata":{"file":"/x"}}\n',
            'line 2.metadata: unknown member "file"',
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"t","metadata":{"start_ms":true}}\n',
            "line 2.metadata.start_ms must be an integer",
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"t","metadata":{"end_ms":1.5}}\n',
            "line 2.metadata.end_ms must be an integer",
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"t","metadata":{"start_ms":-1}}\n',
            "line 2.metadata.start_ms must be an integer",
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"t","metadata":{"start_ms":9,"end_ms":3}}\n',
            "line 2.metadata: start_ms is after end_ms",
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"t","metadata":{"speaker":1}}\n',
            "line 2.metadata.speaker must be a string",
        ),
        (
            b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"t","source_ref":{"start_unit_id":"a","end_unit_id":"b"}}\n',
            'line 2.source_ref must cite exactly the unit itself ("a")',
        ),
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":"\xff"}\n', "not valid UTF-8"),
        (
            b'{"document_id":"d","units":[{"unit_id":"a","kind":"k","text":"\xff"}]}',
            "not valid UTF-8",
        ),
    ],
)
def test_contract_violations_are_located(data: bytes, expected: str) -> None:
    assert expected in error_of(data)
    assert expected in error_of(data, buffer_size=3)


def test_digest_mismatch_names_both_digests() -> None:
    header = jsonl_bytes("doc", UNITS[:3]).split(b"\n", 1)[0]
    tampered = header + b"\n" + jsonl_bytes("doc", UNITS).split(b"\n", 1)[1]
    declared, computed = digest_of(UNITS[:3]), digest_of(UNITS)
    assert error_of(tampered).startswith(
        f"semantic_digest does not match the units: declared {declared}, computed {computed}"
    )


def test_identity_is_unavailable_before_the_end() -> None:
    reader = SourceDocumentReader(io.BytesIO(jsonl_bytes("doc", UNITS)))
    with pytest.raises(RuntimeError):
        _ = reader.identity


unit_values = st.one_of(
    st.text(max_size=3),
    st.integers(-3, 2**53 + 1),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
    st.dictionaries(
        st.sampled_from(["speaker", "start_ms", "end_ms", "x"]),
        st.one_of(st.text(max_size=3), st.integers(-3, 9), st.booleans(), st.none()),
        max_size=4,
    ),
)
unit_like = st.dictionaries(
    st.sampled_from(["unit_id", "kind", "text", "metadata", "source_ref", "extra"]),
    unit_values,
    max_size=6,
) | st.builds(
    lambda uid, md: {"unit_id": uid, "kind": "k", "text": "t", "metadata": md},
    st.text(max_size=2),
    st.dictionaries(
        st.sampled_from(["speaker", "start_ms", "end_ms"]),
        st.one_of(st.text(max_size=2), st.integers(-2, 2**53 + 1), st.booleans()),
        max_size=3,
    ),
)


@given(st.lists(unit_like, max_size=4), st.sampled_from(["json", "jsonl"]), st.sampled_from([1, 3]))
def test_batched_validation_agrees_with_unit_by_unit_validation(
    candidates: list[dict[str, Any]], form: str, batch_units: int
) -> None:
    """Whatever the batch path accepts, rejects or normalizes, ``validate_unit`` does the
    same, with the same message; and the digest is that of the accepted units."""
    import copy

    expected: list[Any] = []
    expected_error = None
    for index, candidate in enumerate(copy.deepcopy(candidates)):
        where = f"line {index + 2}" if form == "jsonl" else f"$.units[{index}]"
        try:
            expected.append(validate_unit(candidate, where))
        except SourceError as error:
            expected_error = error.message
            break
    header = {"document_id": "d"}
    if form == "jsonl":
        data = b"".join(orjson.dumps(item) + b"\n" for item in [header, *candidates])
    else:
        data = orjson.dumps({**header, "units": candidates})
    try:
        units, identity, _ = read_all(data, batch_units=batch_units)
    except SourceError as error:
        assert error.message == expected_error
        return
    assert expected_error is None
    assert units == expected
    digest = SemanticDigest()
    for item in expected:
        digest.add(item)
    assert identity.semantic_digest == digest.hexdigest()


def _units_with(bad: dict[str, Any], at: int, count: int = 7) -> list[dict[str, Any]]:
    """``count`` good units (some with a self-reference or empty metadata), ``bad`` at
    position ``at``."""
    good = []
    for index in range(count):
        item = unit(f"g{index}", speaker="GM", start_ms=index, end_ms=index + 1)
        if index % 2:
            item["source_ref"] = {"start_unit_id": f"g{index}", "end_unit_id": f"g{index}"}
        if index % 3 == 2:
            item["metadata"] = {}
        good.append(item)
    good[at] = bad
    return good


BAD_LATER = [
    (
        {"unit_id": "x", "kind": "k", "text": "t", "metadata": {"start_ms": 9, "end_ms": 3}},
        "{where}.metadata: start_ms is after end_ms",
    ),
    (
        {
            "unit_id": "x",
            "kind": "k",
            "text": "t",
            "source_ref": {"start_unit_id": "x", "end_unit_id": "g0"},
        },
        '{where}.source_ref must cite exactly the unit itself ("x")',
    ),
]


@pytest.mark.parametrize(("bad", "message"), BAD_LATER)
@pytest.mark.parametrize("at", [0, 3, 6])
@pytest.mark.parametrize("buffer_size", [7, 1 << 16])
def test_batch_checks_locate_the_unit_that_fails(
    bad: dict[str, Any], message: str, at: int, buffer_size: int
) -> None:
    """The checks a type cannot state run a batch at a time, yet name the unit that
    fails, whichever position it has in its batch, in both forms."""
    doc_units = _units_with(bad, at)
    line = message.format(where=f"line {at + 2}")
    path = message.format(where=f"$.units[{at}]")
    assert error_of(jsonl_bytes("d", doc_units, digest=False), buffer_size) == line
    assert error_of(json_bytes("d", doc_units, digest=False), buffer_size) == path


@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=4),
            st.booleans(),
            st.sampled_from([None, {}, {"speaker": "s"}, {"start_ms": 1, "end_ms": 2}]),
        ),
        max_size=12,
        unique_by=lambda item: item[0],
    ),
    st.sampled_from([5, 64, 1 << 16]),
)
def test_self_references_and_empty_metadata_are_dropped_from_the_digest(
    described: list[tuple[str, bool, dict[str, Any] | None]], buffer_size: int
) -> None:
    """Against a brute-force reference: the digest of units with self-references and
    empty metadata is the digest of the units without them (compact JSON, where the
    duplicate-member check takes its byte-count path), in both forms."""
    doc_units: list[dict[str, Any]] = []
    for unit_id, referenced, metadata in described:
        item: dict[str, Any] = {"unit_id": unit_id, "kind": "k", "text": unit_id}
        if referenced:
            item["source_ref"] = {"start_unit_id": unit_id, "end_unit_id": unit_id}
        if metadata is not None:
            item["metadata"] = metadata
        doc_units.append(item)
    reference = hashlib.sha256()
    for item in doc_units:
        plain = {k: v for k, v in item.items() if k != "source_ref" and v != {}}
        reference.update(orjson.dumps(plain, option=orjson.OPT_SORT_KEYS) + b"\n")
    expected = "sha256:" + reference.hexdigest()
    for data in (jsonl_bytes("d", doc_units), json_bytes("d", doc_units)):
        reader = SourceDocumentReader(io.BytesIO(data), buffer_size=buffer_size)
        assert [u.unit_id for u in reader] == [u for u, _, _ in described]
        assert reader.identity.semantic_digest == expected


@pytest.mark.parametrize("buffer_size", [7, 1 << 16])
def test_the_first_of_two_problems_in_a_batch_is_reported(buffer_size: int) -> None:
    """A bad self-reference before a unit whose times are reversed: the reference is
    named, as a unit-by-unit check would (the batch checks run one after the other)."""
    bad_times, bad_reference = (bad for bad, _ in BAD_LATER)
    doc_units = _units_with(bad_times, 5)
    doc_units[2] = {**bad_reference, "unit_id": "y", "source_ref": bad_reference["source_ref"]}
    expected = '{where}.source_ref must cite exactly the unit itself ("y")'
    data = jsonl_bytes("d", doc_units, digest=False)
    assert error_of(data, buffer_size) == expected.format(where="line 4")
    data = json_bytes("d", doc_units, digest=False)
    assert error_of(data, buffer_size) == expected.format(where="$.units[2]")


_STRUCTURAL_TEXT = st.text(alphabet='{}[],:"\\ \n\tabé🎲', max_size=12)
_WRITERS = {
    "compact": lambda doc: orjson.dumps(doc),
    "indented": lambda doc: orjson.dumps(doc, option=orjson.OPT_INDENT_2),
    "spaced": lambda doc: json.dumps(doc, ensure_ascii=False).encode(),
}


@given(
    st.lists(st.tuples(_STRUCTURAL_TEXT, st.booleans(), st.booleans()), min_size=0, max_size=9),
    st.sampled_from(sorted(_WRITERS)),
    st.sampled_from([1, 2, 5, 17, 64, 1 << 16]),
    st.sampled_from([None, "times", "type", "deep"]),
    st.integers(0, 8),
)
def test_the_json_form_reads_the_same_however_it_is_cut(
    described: list[tuple[str, bool, bool]],
    writer: str,
    buffer_size: int,
    planted: str | None,
    at: int,
) -> None:
    """Against a brute-force reference (the whole document parsed at once): the JSON form
    read in buffers of any size, written compactly, indented or spaced, with texts full
    of brackets, braces, commas and quotes (so that buffers end on look-alike item ends),
    gives the same units and digest; a planted problem gets the same message whatever the
    buffer size (the quick way and the exact scan agree)."""
    doc_units: list[dict[str, Any]] = []
    for index, (text, referenced, timed) in enumerate(described):
        item: dict[str, Any] = {"unit_id": f"u{index}", "kind": "k", "text": text}
        if referenced:
            item["source_ref"] = {"start_unit_id": f"u{index}", "end_unit_id": f"u{index}"}
        if timed:
            item["metadata"] = {"speaker": text, "start_ms": 1, "end_ms": 2}
        doc_units.append(item)
    if planted is not None and doc_units:
        bad = doc_units[at % len(doc_units)]
        if planted == "times":
            bad["metadata"] = {"start_ms": 5, "end_ms": 4}
        elif planted == "type":
            bad["kind"] = ["k"]
        else:
            bad["text"] = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["x"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
    data = _WRITERS[writer]({"document_id": "d", "units": doc_units})
    reference = json.loads(data)["units"]
    try:
        units, identity, _ = read_all(data, buffer_size)
    except SourceError as error:
        assert planted is not None
        with pytest.raises(SourceError) as whole:
            read_all(data, len(data) + 1)
        if planted == "deep":  # refused before any parser sees it: its place is where the
            # reading was ("in $.units", "after $.units[3]"), which depends on the buffer
            deep = "the source document is nested more than 32 levels deep "
            assert error.message.startswith(deep)
            assert whole.value.message.startswith(deep)
        else:
            assert error.message == whole.value.message
        return
    assert planted is None or not doc_units
    expected = [validate_unit(item, "$") for item in reference]
    assert units == expected
    digest = SemanticDigest()
    for item in expected:
        digest.add(item)
    assert identity.semantic_digest == digest.hexdigest()
