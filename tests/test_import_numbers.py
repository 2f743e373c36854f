"""Numbers in JSON transcripts: every number is read exactly or refused with its path
(against a reference computed with ``decimal``), a huge exponent exits 3 from a file and
from standard input."""

from __future__ import annotations

import decimal
import io
import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from streamer import api
from streamer.framework.errors.types import InputError
from tests.support import invoke

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
