"""Bundles for the report tests, and reading a report's embedded data back."""

from __future__ import annotations

import html.parser
from pathlib import Path
from typing import Any

import orjson

from streamer import api
from tests.bundle_support import demo_case
from tests.support import Case, ref, spell, unit, write_case

XSS = "</script><img src=x onerror=alert(1)>"
# The same markup, setting a flag the tests read: it must stay unset.
XSS_FLAG = (
    "</script><img src=x onerror=\"window.__xss='speaker'\"><script>window.__xss='script'</script>"
)
PLANTED = "the quartz lantern hums"


def build(case: Case, output: Path) -> Path:
    api.bundle(
        api.load_config(case.config), case.source, case.lanes_dir, output, warn=lambda _: None
    )
    return output


def demo_bundle(folder: Path) -> Path:
    return build(demo_case(), folder)


def hostile_case(root: Path) -> Case:
    """Twelve units; unit u05 carries the planted phrase, u07 the payloads in its text and
    speaker; a spell record, a combatant and the party's one character are named with a
    payload."""
    units = [
        unit(f"u{i:02d}", f"line {i} of the session", speaker="GM", start_ms=i * 61_000)
        for i in range(12)
    ]
    units[5] = unit("u05", f"Then {PLANTED} softly.", speaker="KEYLETH", start_ms=3_725_000)
    units[7] = unit("u07", XSS, speaker=XSS_FLAG, start_ms=7_000)
    payload_spell = {**spell("spell-x", ref("u07")), "spell": XSS_FLAG, "caster": XSS}
    lanes = {
        "spells": [spell("spell-1", ref("u04", "u05")), payload_spell],
        "npcs": [{"npc_id": "npc-1", "name": "Brenna", "source_refs": [ref("u10")]}],
        # no round is known: the column is not shown
        "combat-turns": [
            {"turn_id": "turn-1", "combatant": XSS, "round": None, "source_refs": [ref("u09")]}
        ],
        # the party from the bundle: GM plays a character named with a payload
        "party-roster": [{"player": "GM", "character": XSS_FLAG}],
    }
    return write_case(root, units, lanes, window=1, allowlist=["spells", "npcs", "combat-turns"])


def big_case(root: Path, count: int) -> Case:
    """``count`` units, all cited by one record; unit 77,777 (or the last) holds the planted
    phrase and the only speaker ORACLE."""
    planted = min(77_777, count - 1)
    units = [
        unit(f"t{i:06d}", f"text of unit {i}", speaker=f"P{i % 7}", start_ms=i * 1000)
        for i in range(count)
    ]
    units[planted] = unit(
        f"t{planted:06d}", f"and {PLANTED} here", speaker="ORACLE", start_ms=planted * 1000
    )
    lanes = {
        "spells": [
            spell("spell-all", ref("t000000", f"t{count - 1:06d}")),
            spell("spell-one", ref(f"t{planted:06d}")),
        ]
    }
    return write_case(root, units, lanes, window=0)


class _DataElement(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.data: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts += 1
            self.inside = ("id", "report-data") in attrs

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.data.append(data)


def embedded_data(page: bytes) -> Any:
    """The report's data element, parsed as an HTML parser and then JSON.parse see it."""
    parser = _DataElement()
    parser.feed(page.decode("utf-8"))
    parser.close()
    assert parser.scripts == 2
    return orjson.loads("".join(parser.data))


def rejections_file(path: Path, counts: dict[str, dict[str, int]]) -> Path:
    """A ``rejections.jsonl`` holding ``counts[lane][reason]`` lines of each lane and reason."""
    lines = []
    for lane, reasons in counts.items():
        for reason, count in reasons.items():
            for k in range(count):
                lines.append(
                    orjson.dumps(
                        {
                            "lane_id": lane,
                            "line": k + 2,
                            "chunk_id": None,
                            "reason": reason,
                            "path": "$.record",
                        }
                    )
                )
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path
