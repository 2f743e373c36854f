"""The source unit, declared once (``design/contract.md``, "Source document").

``SourceUnit`` states the contract's types: non-empty unit ID and kind, a text, an
optional self-reference and optional accepted metadata (``speaker``, ``start_ms``,
``end_ms``: integers from 0 to 2**53-1), no other member. The reader decodes batches
against it (``source.unit_batches``), the rules of a single unit and their located messages come
from it (``source.unit_rules``), importers validate what they build through those rules,
the chunker and the chunk lines read it, and the evidence writer encodes it. What a type
cannot say (a self-reference citing the unit itself, ``start_ms <= end_ms``, empty
metadata being no metadata) is stated in ``source.unit_rules`` and ``source.unit_batches``.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import UNSET, UnsetType

from streamer.framework.json.canonical import MAX_SAFE_INTEGER
from streamer.framework.source.reference import SourceReference

Milliseconds = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE_INTEGER)]
NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class UnitMetadata(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """Accepted metadata, in published member order."""

    speaker: str | UnsetType = UNSET
    start_ms: Milliseconds | UnsetType = UNSET
    end_ms: Milliseconds | UnsetType = UNSET


class SourceUnit(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """One accepted source unit, in published member order.

    ``source_ref`` is unset on every unit a batch yields (the digest does not cover it);
    it is set, to the unit itself, only when the unit is published.
    """

    unit_id: NonEmpty
    kind: NonEmpty
    text: str
    source_ref: SourceReference | UnsetType = UNSET
    metadata: UnitMetadata | UnsetType = UNSET
