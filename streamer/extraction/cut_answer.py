"""The members of a combined answer that were complete before it was cut at ``max_tokens``.

A combined answer is one JSON object, one member per question, written in order: when the
model is cut in the middle of its fourth member (an answer looping inside an array runs to
the bound), the first three are whole, and each is its question's answer as it would have
been in an answer that ended. ``complete_members`` reads them from the cut text: the
object's members in order, each kept when its value is whole and followed by ``,`` or
``}`` (so that a number cut short is never read as a shorter one); the first member that
is not stops the reading. Values are read as ``responses.decode_answer`` reads an answer
(a raw control character inside a string is that character).
"""

from __future__ import annotations

from typing import Any

from streamer.extraction.responses import LENIENT

WHITESPACE = " \t\n\r"


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in WHITESPACE:
        index += 1
    return index


def complete_members(content: str) -> dict[str, Any]:
    """The members of the object ``content`` begins, up to the first that the cut left
    incomplete (all of them when the object is whole)."""
    members: dict[str, Any] = {}
    index = _skip(content, 0)
    if not content.startswith("{", index):
        return members
    index += 1
    while True:
        try:
            key, index = LENIENT.raw_decode(content, _skip(content, index))
            index = _skip(content, index)
            if type(key) is not str or not content.startswith(":", index):
                return members
            value, index = LENIENT.raw_decode(content, _skip(content, index + 1))
        except ValueError:
            return members
        index = _skip(content, index)
        if not content.startswith((",", "}"), index):
            return members
        members[key] = value
        if content.startswith("}", index):
            return members
        index += 1
