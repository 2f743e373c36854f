"""One suite for the streaming cut (``framework.json.item_runs.ItemRuns``) and every reader that
shares it, as ijson runs every backend through one suite: each case (the items of one
array, written compactly, spaced or indented, with texts full of look-alike separators,
escapes and multi-byte characters, and the faults a cut must locate) is read through the
primitive in each caller's configuration and through the three callers (the importers'
``json_items``, the source reader's JSON form, validation's ``json.events.stream``), at
every buffer size from 1 byte up (so that every multi-byte character is split by some
buffer), against a brute-force reference: the whole array parsed at once by ``json``, and
each caller's own reference (the importers' ijson reading, the source reader at one
buffer, validation's plain ijson reading)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamer.framework.errors.types import SourceError
from streamer.framework.json.byte_scan import MAX_NESTING, NestingError
from streamer.framework.json.events import ITEM, RUN, stream
from streamer.framework.json.item_runs import ItemRuns, Run, RunError, after_separator, array_text
from streamer.framework.source.reader import SourceDocumentReader
from streamer.importers import json_items
from tests.test_import_json_paths import outcome, reference_items
from tests.test_json_layer import ARRAY, decode_run, plain_events

BUFFERS = [1, 2, 3, 4, 5, 7, 13, 64, 1 << 16]
TEXTS = ["a}]b},{c", '},{"unit_id"', "é", "竜}", "😀,", '\\"}', "\\\\", "[{", ""]


def unit(index: int, text: str, nested: bool = False) -> dict[str, Any]:
    item: dict[str, Any] = {"unit_id": f"u{index}", "kind": "k", "text": text}
    if nested:
        item["metadata"] = {"speaker": text, "start_ms": 1, "end_ms": 2}
    return item


UNITS = [unit(i, TEXTS[i % len(TEXTS)], nested=i % 3 == 0) for i in range(12)]
WRITERS: dict[str, Callable[[list[Any]], bytes]] = {
    "compact": lambda items: json.dumps(items, separators=(",", ":"), ensure_ascii=False).encode(),
    "spaced": lambda items: json.dumps(items, ensure_ascii=False).encode(),
    "indented": lambda items: json.dumps(items, indent=2, ensure_ascii=False).encode(),
}


def content(items: list[Any], writer: str) -> bytes:
    """The items as the bytes between an array's ``[`` and its ``]``."""
    return WRITERS[writer](items)[1:-1]


# Each case: the bytes inside one array (after "[", before "]") and whether the array is
# then closed by "]" (a fault may replace or drop it: see ``document``).
CASES: dict[str, tuple[bytes, str]] = {
    "empty": (b"", "]"),
    "white space": (b" \n\t ", "]"),
    "one unit": (content(UNITS[:1], "compact"), "]"),
    **{f"units, {name}": (content(UNITS, name), "]") for name in WRITERS},
    "trailing comma": (content(UNITS[:3], "compact") + b",", "]"),
    "trailing comma, spaced": (content(UNITS[:2], "spaced") + b" , ", "]"),
    "leading comma": (b"," + content(UNITS[:2], "compact"), "]"),
    "no separator": (content(UNITS[:1], "compact") + b" " + content(UNITS[1:2], "compact"), "]"),
    "a brace closes the array": (content(UNITS[:4], "compact"), "}"),  # after a "}}"
    "the input ends after an item": (content(UNITS[:4], "compact"), ""),
    "the input ends inside an item": (content(UNITS[:4], "compact")[:-9], ""),
    "the input ends after a separator": (content(UNITS[:4], "compact") + b",", ""),
    "the input ends after scalars": (content(UNITS[:1], "compact") + b", 5, 6", ""),
    "a lone surrogate": (b'{"unit_id": "u0", "kind": "k", "text": "\\ud800"}', "]"),
    "invalid UTF-8": (content(UNITS[:3], "compact").replace(b"\xc3\xa9", b"\xff", 1), "]"),
    "a repeated member": (b'{"unit_id": "u0", "kind": "k", "kind": "k", "text": "t"}', "]"),
    "too deep": (b'{"unit_id": "u0", "kind": "k", "text": ' + b"[" * 40 + b"]" * 40 + b"}", "]"),
}
VALID = {name for name, (_, closer) in CASES.items() if closer == "]"} - {
    "trailing comma",
    "trailing comma, spaced",
    "leading comma",
    "no separator",
    "a lone surrogate",
    "invalid UTF-8",
    "a repeated member",
    "too deep",
}


# what ``json`` parses (a decoder may refuse a run: the fallback, ``json``, reads it)
PARSED = VALID | {"a lone surrogate", "a repeated member"}
REFUSED = ("RunError", "ValueError")  # the others: by the cut, or by the fallback's parse


def document(head: bytes, case: str, tail: bytes) -> bytes:
    """``head`` + the case's array + its closer + ``tail`` (none when the input ends)."""
    inside, closer = CASES[case]
    return head + b"[" + inside + closer.encode() + (tail if closer else b"")


# -- the primitive, in each caller's configuration ---------------------------------------

CONFIGS: dict[str, dict[str, Any]] = {
    "importers": {"separator": None},
    "source reader": {"separator": None},
    "validation": {
        "separator": b"},{",
        "limit": 1 << 40,
        "bound": 1 << 20,
        "closing_first": True,
    },
}
_plain = msgspec.json.Decoder()


def decode_objects(text: bytes, literals: int | None) -> list[Any] | None:
    """Items that are objects (a run of anything else, or with a unit whose text is
    ``"refuse"``, does not decode: the caller's fallback reads it)."""
    try:
        items = _plain.decode(text)
    except msgspec.DecodeError:
        return None
    if not all(isinstance(item, dict) and item.get("text") != "refuse" for item in items):
        return None
    return items  # type: ignore[no-any-return]


def cut(data: bytes, buffer: int, config: str) -> tuple[list[Run[list[Any]]], list[Any], str]:
    """The runs of the array at the start of ``data``, the items (a run that does not
    decode read by ``json``, as a fallback would), and how they end: the closing byte
    and what follows it, ``eof``, or the error's class."""
    source = io.BytesIO(data)
    runs = ItemRuns(lambda: source.read(buffer), b"", decode_objects, **CONFIGS[config])
    given: list[Run[list[Any]]] = []
    items: list[Any] = []
    try:
        for run in runs:
            given.append(run)
            if run.closer == b"":
                return given, items, "eof"
            if run.value is None:
                items.extend(json.loads(array_text(run.raw, run.first)))
            else:
                items.extend(run.value)
    except (RunError, NestingError) as error:
        return given, items, type(error).__name__
    except ValueError:  # the fallback's parse
        return given, items, "ValueError"
    return given, items, (runs.rest + source.read()).decode("utf-8", "replace")


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_cut_gives_the_items_of_a_whole_parse_at_every_buffer_size(
    case: str, config: str
) -> None:
    data = document(b"", case, b', "after": 1}')[1:]
    inside, closer = CASES[case]
    for buffer in BUFFERS:
        runs, items, end = cut(data, buffer, config)
        joined = b"".join(run.raw for run in runs)  # the runs are the array's bytes, in order
        assert inside.startswith(joined), (buffer, joined)
        assert runs == [] or all(run.first == (index == 0) for index, run in enumerate(runs))
        if case in PARSED or (case == "too deep" and config == "validation"):
            assert not inside[len(joined) :].strip()
            assert (items, end) == (json.loads(b"[" + inside + b"]"), '], "after": 1}')
        elif closer == "":  # every byte given, in the last run
            assert (end, joined) == ("eof", inside), buffer
        elif closer == "}":
            assert end == '}, "after": 1}', buffer
        elif case == "too deep":  # the limit of the importers and the source reader
            assert end == "NestingError", buffer
        else:
            assert end in REFUSED, (buffer, end)


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_look_alike_separators_in_texts_are_decoded_in_runs(config: str) -> None:
    """A ``}]`` or ``},{`` inside a string costs a decoding, never a fallback: every unit
    is decoded by the decoder, in runs (from test_json_layer's bulk decoding)."""
    units = [{"id": f"u{i}", "text": "a}]b},{c"[: i % 9]} for i in range(40)]
    data = json.dumps(units, separators=(",", ":")).encode()[1:] + b"}"
    for buffer in (64, 1 << 16):
        runs, items, end = cut(data, buffer, config)
        assert items == units and end == "]}"
        assert all(run.value is not None for run in runs)


def test_validation_decodes_the_units_of_a_document_in_bulk() -> None:
    units = [{"id": f"u{i}", "text": "a}]b},{c"[: i % 9]} for i in range(40)]
    data = json.dumps({"boxes": [{"head": "h", "items": units}]}, separators=(",", ":")).encode()
    events = list(
        stream(
            io.BytesIO(data),
            [(f"{ARRAY}.item", frozenset())],
            block_size=64,
            runs=(ARRAY, decode_run),
        )
    )
    runs = [event[2] for event in events if event[1] == RUN]
    assert [item for run in runs for item in run] == units
    assert not any(event[1] == ITEM for event in events)


def test_a_run_that_does_not_decode_is_given_to_the_fallback_and_the_cut_goes_on() -> None:
    units = [*UNITS[:3], unit(3, "refuse"), *UNITS[4:8]]
    data = content(units, "spaced") + b"]"
    for config in CONFIGS:
        for buffer in BUFFERS:
            runs, items, end = cut(data, buffer, config)
            refused = [run for run in runs if run.value is None]
            assert items == units and end == "]" and len(refused) == 1
            assert b'"refuse"' in refused[0].raw


def test_a_quick_cut_that_never_decodes_is_given_up() -> None:
    """Items whose first member name is also that of objects inside them: the learned
    separator is found inside items, its runs never decode; the exact cut reads them."""
    item = {"id": 0, "parts": [{"id": 1, "x": 2}, {"id": 3, "x": 4}] * 30}
    data = content([item] * 30, "compact") + b"]"
    quick: list[bool] = []  # whether each run cut by the quick cut decoded

    def counting(text: bytes, literals: int | None) -> list[Any] | None:
        items = decode_objects(text, literals)
        if literals is None:
            quick.append(items is not None)
        return items

    source = io.BytesIO(data)
    runs = ItemRuns(lambda: source.read(100), b"", counting)
    assert [item for run in runs for item in run.value or ()] == [item] * 30
    assert quick.count(False) == 5 and not quick[-1]  # tried until it failed 5 times


def test_a_run_without_an_item_end_past_the_bound_goes_to_the_fallback() -> None:
    data = b"1, 2, 3, 4, 5, 6, 7, 8, 9]"
    source = io.BytesIO(data)
    runs = ItemRuns(lambda: source.read(4), b"", decode_objects, bound=10)
    given = list(runs)
    assert len(given) == 1 and given[0].value is None and given[0].closer is None
    assert given[0].raw + runs.held() + source.read() == data


def test_the_separator_is_stripped_once_for_every_caller() -> None:
    assert after_separator(b" \n, {}", first=False) == b" {}"
    assert after_separator(b" {}", first=True) == b"{}"
    assert after_separator(b"  ", first=False) == b""
    assert array_text(b", {}", first=False) == b"[ {}]"
    with pytest.raises(RunError, match="items without a separator"):
        after_separator(b" {}", first=False)
    with pytest.raises(RunError, match="a separator without an item"):
        array_text(b", \n", first=False)


# -- the three callers, each against its own reference -----------------------------------


def importer(case: str, buffer: int) -> Any:
    """``json_items.array_items`` at ``buffer`` bytes a read, and the reference (ijson)."""
    data = document(b'{"METADATA": {"n": [1]}, "TURNS": ', case, b', "x": [[1], {"c": 2}]}')
    saved = json_items.BUFFER_SIZE
    json_items.BUFFER_SIZE = buffer
    try:
        return outcome(json_items.array_items, data), outcome(reference_items, data)
    finally:
        json_items.BUFFER_SIZE = saved


def source_reader(case: str, buffer: int) -> Any:
    """The source reader's units (or error) at ``buffer`` bytes a read, and at one read."""
    data = document(b'{"document_id": "d", "units": ', case, b"}")

    def read(size: int) -> Any:
        reader = SourceDocumentReader(io.BytesIO(data), buffer_size=size, batch_units=5)
        try:
            return [msgspec.to_builtins(unit) for unit in reader]
        except SourceError as error:
            return error.one_line()

    return read(buffer), read(len(data) + 1)


def validation(case: str, buffer: int) -> Any:
    """Validation's events with runs at ``buffer`` bytes a block, and its plain reading."""
    data = document(b'{"n": 1, "boxes": [{"head": "h", "items": ', case, b'}, {"items": []}]}')
    return plain_events(data, buffer, runs=True), plain_events(data, buffer, runs=False)


CALLERS = {"importers": importer, "source reader": source_reader, "validation": validation}


@pytest.mark.parametrize("caller", sorted(CALLERS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_caller_reads_every_case_as_its_reference_at_every_buffer_size(
    case: str, caller: str
) -> None:
    for buffer in BUFFERS:
        got, reference = CALLERS[caller](case, buffer)
        if caller == "source reader" and case == "too deep":  # refused before any parser
            # sees it: its place is where the reading was, which depends on the buffer
            deep = f"the source document is nested more than {MAX_NESTING} levels deep "
            assert got.startswith(deep) and reference.startswith(deep)
        else:
            assert got == reference, buffer
    if case in VALID and caller != "validation":
        expected = json.loads(b"[" + CASES[case][0] + b"]")
        found = [item for _, item in got[0]] if caller == "importers" else got
        assert [{k: v for k, v in unit.items() if k in ("unit_id", "text")} for unit in found] == [
            {"unit_id": unit["unit_id"], "text": unit["text"]} for unit in expected
        ]


NOT_JSON = "the source document is not valid JSON"
ENDS = "after $.units[3]: the input ends inside $.units"


@pytest.mark.parametrize(
    ("caller", "case", "message"),
    [
        ("importers", "a brace closes the array", "not valid JSON at $.TURNS[4]"),
        ("importers", "trailing comma", "not valid JSON at $.TURNS[3]"),
        ("importers", "invalid UTF-8", "not valid UTF-8 at $.TURNS[2]"),
        ("source reader", "trailing comma", f"{NOT_JSON} after $.units[2]"),
        ("source reader", "no separator", f"{NOT_JSON} after $.units[0]"),
        ("source reader", "the input ends after a separator", f"{NOT_JSON} {ENDS}"),
    ],
)
def test_the_errors_say_where_whatever_the_buffer(caller: str, case: str, message: str) -> None:
    for buffer in BUFFERS:
        got, _ = CALLERS[caller](case, buffer)
        assert (got[1] if caller == "importers" else got) == message, buffer


# -- any items, any writing, any buffer ---------------------------------------------------

TEXT = st.text(alphabet=st.sampled_from(list('ab }{][,:"\\\né竜😀')), max_size=8)


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(st.tuples(TEXT, st.booleans(), st.booleans()), max_size=10),
    writer=st.sampled_from(sorted(WRITERS)),
    buffer=st.integers(1, 80),
    config=st.sampled_from(sorted(CONFIGS)),
)
def test_any_items_cut_anywhere_give_the_items_of_a_whole_parse(
    texts: list[tuple[str, bool, bool]], writer: str, buffer: int, config: str
) -> None:
    units = [
        unit(index, "refuse" if refused else text, nested)
        for index, (text, nested, refused) in enumerate(texts)
    ]
    inside = content(units, writer)
    runs, items, end = cut(inside + b'], "z": [{"a": 1}]}', buffer, config)
    assert (items, end) == (units, '], "z": [{"a": 1}]}')
    joined = b"".join(run.raw for run in runs)
    assert inside.startswith(joined) and not inside[len(joined) :].strip()
