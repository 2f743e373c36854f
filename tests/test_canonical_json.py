"""orjson's bytes are RFC 8785 canonical JSON for the values streamer digests and publishes.

The reference below follows RFC 8785 section 3.2.2.2 (string serialization) and 3.2.3
(member order by UTF-16 code units) literally.
"""

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from streamer.framework.json.canonical import SemanticDigest, canonical

_SHORT = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"}


def rfc8785_string(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif code in _SHORT:
            out.append(_SHORT[code])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def rfc8785(value: Any) -> str:
    if isinstance(value, str):
        return rfc8785_string(value)
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(rfc8785(item) for item in value) + "]"
    keys = sorted(value, key=lambda key: key.encode("utf-16-be"))
    return "{" + ",".join(rfc8785_string(k) + ":" + rfc8785(value[k]) for k in keys) + "}"


text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
values = st.recursive(
    text | st.integers(-(2**53) + 1, 2**53 - 1) | st.booleans() | st.none(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(st.characters(max_codepoint=0x7F), max_size=8), children, max_size=4
        )
    ),
    max_leaves=12,
)


@given(values)
def test_canonical_bytes_match_rfc8785(value: Any) -> None:
    assert canonical(value) == rfc8785(value).encode("utf-8")


@given(st.lists(st.builds(dict, unit_id=text.filter(bool), kind=text.filter(bool), text=text)))
def test_unit_lists_encode_as_rfc8785(units: list[dict[str, str]]) -> None:
    import msgspec

    from streamer.framework.source.source_unit import SourceUnit
    from streamer.framework.source.unit_batches import canonical_units

    structs = msgspec.convert(units, list[SourceUnit])
    lines = "".join(rfc8785(unit) + "\n" for unit in units)
    assert canonical_units(structs, str)[0] == lines.encode("utf-8")


def test_every_control_character_is_escaped_as_rfc8785_says() -> None:
    controls = "".join(chr(code) for code in range(0x20)) + '"\\/\x7f\u2028é😀'
    assert canonical(controls) == rfc8785_string(controls).encode("utf-8")


def test_semantic_digest_of_known_units() -> None:
    digest = SemanticDigest()
    digest.add({"unit_id": "t0", "kind": "utterance", "text": "Hello everyone."})
    digest.add({"unit_id": "t1", "kind": "roll", "text": "17", "metadata": {"speaker": "SAM"}})
    expected_lines = (
        b'{"kind":"utterance","text":"Hello everyone.","unit_id":"t0"}\n'
        b'{"kind":"roll","metadata":{"speaker":"SAM"},"text":"17","unit_id":"t1"}\n'
    )
    import hashlib

    assert digest.hexdigest() == "sha256:" + hashlib.sha256(expected_lines).hexdigest()
