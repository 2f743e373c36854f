"""``streamer validate campaign.registry.json``: checking a campaign registry as a consumer
would: its schema (``streamer.campaign.registry``), then what a schema cannot say (the
sessions numbered 1, 2, ... in order, every session an entry or a cast names listed and
published, the documented orders, first and last sessions). Each problem names the file
and a JSON path, never a value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import InputError
from streamer.framework.regular_files import MIB, read_regular_file
from streamer.output.campaign_registry import (
    PUBLISHED,
    REGISTRY_SCHEMA_ID,
    CampaignRegistry,
    CasterSession,
    Entry,
    EntrySession,
    decode_registry,
)
from streamer.validation.schema_rules import schema_problems

REGISTRY_MAX_BYTES = 256 * MIB


@dataclass
class RegistryReport:
    """The outcome of ``check_registry``: ``problems`` is empty when the file is valid."""

    file: str
    registry: CampaignRegistry | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems


def _ordered(keys: Sequence[Any]) -> int | None:
    """The first index whose key is not after the one before, else ``None``."""
    return next((i for i in range(1, len(keys)) if not keys[i - 1] < keys[i]), None)


def _semantic(registry: CampaignRegistry) -> list[str]:
    problems = []
    position = {s.session_id: s.position for s in registry.sessions}
    published = {s.session_id for s in registry.sessions if s.status == PUBLISHED}
    for index, session in enumerate(registry.sessions):
        if session.position != index + 1:
            problems.append(f"$.sessions[{index}].position is not {index + 1}")
        if (session.status == PUBLISHED) != (session.bundle is not None):
            problems.append(f"$.sessions[{index}] has a bundle exactly when published")
    if len(position) != len(registry.sessions):
        problems.append("$.sessions lists a session twice")
    where: list[tuple[str, Sequence[EntrySession | CasterSession], Entry | None]] = [
        ("entries", e.sessions, e) for e in registry.entries
    ]
    where += [("casters", c.sessions, None) for c in registry.casters]
    counts: dict[str, int] = {}
    for name, sessions, entry in where:
        index = counts[name] = counts.get(name, -1) + 1
        at = f"$.{name}[{index}]"
        if any(s.session_id not in published for s in sessions):
            problems.append(f"{at} names a session that is not a published one")
            continue
        keys = [(position[s.session_id], s.lane_id) for s in sessions]
        if _ordered(keys) is not None:
            problems.append(f"{at}.sessions are not in manifest order, then lane order")
        records = [
            [r.record_id for r in (s.records if isinstance(s, EntrySession) else s.casts)]
            for s in sessions
        ]
        if any(_ordered(ids) is not None for ids in records):
            problems.append(f"{at}: records are not sorted by record_id")
        if entry is not None and (
            entry.first_session != sessions[0].session_id
            or entry.last_session != sessions[-1].session_id
        ):
            problems.append(f"{at}: first_session and last_session are not its sessions'")
    entry_keys = [(e.section, e.entry_id) for e in registry.entries]
    if _ordered(entry_keys) is not None:
        problems.append("$.entries are not sorted by section and entry_id, once each")
    return problems


def check_registry(path: Path) -> RegistryReport:
    """Check the registry file at ``path``."""
    report = RegistryReport(path.name)

    def problem(message: str) -> RegistryReport:
        report.problems.append(f"{quoted(path.name)}: {message}")
        return report

    where = f"registry {quoted(path.name)}"
    try:
        data = read_regular_file(path, REGISTRY_MAX_BYTES, where, InputError)
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError:
        return problem("not valid JSON")
    schema = schema_problems(parsed, REGISTRY_SCHEMA_ID)
    if schema:
        report.problems.extend(f"{quoted(path.name)}: {line}" for line in schema)
        return report
    report.registry = decode_registry(data)
    for line in _semantic(report.registry):
        problem(line)
    return report
