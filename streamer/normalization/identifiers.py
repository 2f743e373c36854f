"""The record ID function.

``ID = <prefix> + "-" + the first 16 hex digits of SHA-256 over the RFC 8785 canonical
JSON of [document_id, lane_id, identity key, first cited position]``, where

- the *identity key* is the record's canonical members, evidence and ID aside, as an
  object, with every name member replaced by its name key
  (``{"caster":"keyleth","spell":"Fireball"}``), or for a registry kind the name key of
  its key member (``"brenna"``);
- the *first cited position* is the document position (from 0) of the start unit of the
  record's first reference, or ``null`` for a registry kind (one record per name: its ID
  does not move when an earlier mention is found).

An ID depends on nothing but its own record and the document's positions, so adding or
removing a candidate that does not collapse into a record changes no other record's ID.
"""

from __future__ import annotations

import hashlib
from typing import Any

from streamer.framework.json.canonical import canonical

HEX_DIGITS = 16


def record_id(prefix: str, document_id: str, lane_id: str, key: Any, position: int | None) -> str:
    digest = hashlib.sha256(canonical([document_id, lane_id, key, position])).hexdigest()
    return f"{prefix}-{digest[:HEX_DIGITS]}"
