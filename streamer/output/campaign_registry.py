"""The campaign registry document (``campaign.registry.json``): its typed form, its
schema identity and its bytes.

One registry per ``streamer batch`` output folder: the sessions in manifest order, one
entry per entity (a non-player character, a place, an item) across them, each citing, per
session, the records that name it and the source units they cite, and the casts of each
character. Written by ``streamer.output.registry_builder``; read back with
``read_registry`` (a typed reader: the Structs below, every member checked). The shipped
schema ``streamer.campaign.registry`` says the same (``streamer schema``).

The bytes are RFC 8785 canonical JSON (``framework.json.canonical``) and one newline:
members sorted, lists in the documented order, so the same sessions give the same bytes
whatever order they finished in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import msgspec

from streamer.framework.json.canonical import canonical

REGISTRY_FILE = "campaign.registry.json"
REGISTRY_KIND: Literal["streamer/campaign-registry"] = "streamer/campaign-registry"
REGISTRY_SCHEMA_ID = "streamer.campaign.registry"
REGISTRY_SCHEMA = {
    "id": REGISTRY_SCHEMA_ID,
    "name": "streamer_campaign_registry_v1",
    "version": "v1",
}
PUBLISHED = "published"  # a session whose bundle the registry read

_Text = Annotated[str, msgspec.Meta(min_length=1)]
_Position = Annotated[int, msgspec.Meta(ge=1)]
UnitRange = tuple[_Text, _Text]  # the first and last unit IDs of a cited range (inclusive)


class SchemaIdentity(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: Literal["streamer.campaign.registry"]
    name: Literal["streamer_campaign_registry_v1"]
    version: Literal["v1"]


class SessionLane(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A lane of a session's bundle and its count of records (as its index says)."""

    lane_id: _Text
    artifact_kind: _Text
    records: Annotated[int, msgspec.Meta(ge=0)]


class RegistrySession(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A session of the manifest: its place in it, and (when ``status`` is ``published``)
    its bundle folder, report (relative to the registry's folder) and lanes."""

    session_id: _Text
    position: _Position
    bundle: _Text | None
    report: _Text | None
    status: _Text
    lanes: list[SessionLane] = []


class CitedRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One record naming the entry: its ID, the name it gives, the unit ranges it cites."""

    record_id: _Text
    name: _Text
    units: list[UnitRange]


class EntrySession(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    session_id: _Text
    lane_id: _Text
    records: list[CitedRecord]


class Entry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One entity across the sessions."""

    entry_id: _Text
    artifact_kind: _Text
    section: _Text
    name: _Text
    seen_as: list[_Text]
    first_session: _Text
    last_session: _Text
    sessions: list[EntrySession]


class Cast(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    record_id: _Text
    spell: _Text
    units: list[UnitRange]


class CasterSession(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    session_id: _Text
    lane_id: _Text
    casts: list[Cast]


class Caster(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    caster: _Text
    seen_as: list[_Text]
    sessions: list[CasterSession]


class CampaignRegistry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    artifact_kind: Literal["streamer/campaign-registry"]
    schema: SchemaIdentity
    sessions: list[RegistrySession]
    entries: list[Entry]
    casters: list[Caster]


def registry_bytes(registry: CampaignRegistry) -> bytes:
    """The published bytes of ``registry``: canonical JSON and one newline."""
    return canonical(msgspec.to_builtins(registry)) + b"\n"


def decode_registry(data: bytes) -> CampaignRegistry:
    """The typed registry of ``data`` (``msgspec.DecodeError`` or ``ValidationError``
    when it is not one)."""
    return msgspec.json.decode(data, type=CampaignRegistry)


def read_registry(path: Path) -> CampaignRegistry:
    """The registry file at ``path``, typed (``decode_registry``)."""
    return decode_registry(path.read_bytes())


def report_link(report: str, lane_id: str, record_id: str) -> str:
    """The fragment link opening ``report`` at one record: ``REPORT#record=LANE:ID``."""
    return f"{report}#record={lane_id}:{record_id}"
