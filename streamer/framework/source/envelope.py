"""The envelope of a source document: its members other than ``units``, and its identity.

``Envelope`` holds ``document_id`` and ``semantic_digest`` as they are read (before the
units by ``source.head``; after them, in the JSON form, by ``read_after_units``), refuses
unknown and repeated members, and gives the document's ``DocumentIdentity`` once the
units are read, its declared digest verified.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import SourceError
from streamer.framework.json.canonical import SemanticDigest

MEMBERS = frozenset({"document_id", "semantic_digest"})
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")

SourceForm = Literal["json", "jsonl"]


@dataclass(frozen=True)
class DocumentIdentity:
    """What identifies an accepted source document, known once it has been read."""

    document_id: str
    semantic_digest: str
    unit_count: int


class Envelope:
    """The document's members other than ``units``, checked as they are read."""

    def __init__(self) -> None:
        self.members: dict[str, str] = {}

    def check(self, name: str, where: str) -> None:
        """Refuse an unknown member, or one read before."""
        if name not in MEMBERS:
            raise SourceError(
                f"{where}: unknown document member {quoted(name)}",
                hint="a source document accepts document_id, semantic_digest and units",
            )
        if name in self.members:
            raise SourceError(f"{where}: document member {name} appears twice")

    def set(self, name: str, value: Any, where: str) -> None:
        self.check(name, where)
        if type(value) is not str or not value:
            raise SourceError(f"{where}.{name} must be a non-empty string")
        if name == "semantic_digest" and not _DIGEST.match(value):
            raise SourceError(
                f"{where}.semantic_digest must be 'sha256:' followed by 64 lowercase hex digits"
            )
        self.members[name] = value

    def read_after_units(self, tail: str, *, stop_at_container: bool) -> None:
        """Read the members that follow ``units`` (``tail`` starts just after its closing
        bracket) to the end of the document; ``stop_at_container``: stop, without
        refusing, at a member whose value is an array or object (never read)."""
        decoder = json.JSONDecoder()
        invalid = SourceError("the source document is not valid JSON after $.units")
        position = skip_space(tail, 0)
        while tail[position : position + 1] == ",":
            position = skip_space(tail, position + 1)
            try:
                name, position = decoder.raw_decode(tail, position)
            except ValueError:
                raise invalid from None
            position = skip_space(tail, position)
            if type(name) is not str or tail[position : position + 1] != ":":
                raise invalid
            position = skip_space(tail, position + 1)
            if name == "units":
                raise SourceError("$: document member units appears twice")
            self.check(name, "$")
            if tail[position : position + 1] != '"':
                self.set(name, None, "$")  # not a string: refused
            try:
                value, position = decoder.raw_decode(tail, position)
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise SourceError(
                    f"$.{name}: a string holds an unpaired surrogate escape"
                ) from None
            except ValueError:
                raise invalid from None
            self.set(name, value, "$")
            position = skip_space(tail, position)
        if stop_at_container:
            return
        if tail[position : position + 1] != "}" or tail[skip_space(tail, position + 1) :]:
            raise invalid

    def identity(self, form: SourceForm, digest: SemanticDigest, count: int) -> DocumentIdentity:
        """The identity of the document whose ``count`` units ``digest`` hashed, its
        declared digest verified."""
        document_id = self.members.get("document_id")
        if document_id is None:
            where = "line 1" if form == "jsonl" else "$"
            raise SourceError(f"{where}.document_id is required")
        computed = digest.hexdigest()
        declared = self.members.get("semantic_digest")
        if declared is not None and declared != computed:
            raise SourceError(
                f"semantic_digest does not match the units: declared {declared}, "
                f"computed {computed}",
                hint="the transcript changed after the digest was written, or the digest "
                "belongs to another document",
            )
        return DocumentIdentity(document_id, computed, count)


def skip_space(text: str, position: int) -> int:
    """The first position from ``position`` in ``text`` that is not JSON white space."""
    length = len(text)
    while position < length and text[position] in " \t\n\r":
        position += 1
    return position
