"""A bundle with planted secrets for the player page tests, and the planted strings
searched for in every encoding a page uses."""

from __future__ import annotations

import html
import json
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import orjson
import yaml

from streamer import api
from streamer.normalization.glossary import parse_glossary
from streamer.report.embedding import script_safe
from tests.report_support import build
from tests.support import CRD3, config_dict, ref, spell, unit, write_case

# What the players must not see, and where it is planted.
SECRET_NAME = "Sylas Briarwood"  # an NPC's name: its record is left out
SECRET_ALIAS = "the Pale Lord"  # the glossary's alias of it: said by unit u02
SECRET_TERM = "Ölgrün Pact"  # a non-ASCII term: said by unit u06
IN_RANGE = "vault under Whitestone"  # said by u08, in the secret range u08-u09
SPEAKER = "MATT (aside)"  # the secret speaker of u11
SPOKEN_ASIDE = "Thordak waits"  # what MATT (aside) says
GM_LANE_VALUE = "Hidden Combatant Zed"  # a record of the game master's lane only
PLANTED = (SECRET_NAME, "Sylas", "Pale Lord", "Ölgrün", IN_RANGE, SPEAKER, SPOKEN_ASIDE)
PLANTED_ALL = (*PLANTED, GM_LANE_VALUE, "combat-turns")

GLOSSARY = {
    "names": {SECRET_NAME: [SECRET_ALIAS]},
    "secrets": {
        "names": [SECRET_NAME, SECRET_TERM],
        "units": [["u08", "u09"]],
        "speakers": [SPEAKER],
    },
}


def secrets_case(root: Path) -> tuple[Path, Path, Path]:
    """The bundle, its glossary and its configuration (combat-turns the game master's)."""
    texts = {
        2: f"Brenna bows to {SECRET_ALIAS}.",
        3: f"{SECRET_NAME} smiles.",
        6: f"They sign the {SECRET_TERM} tonight.",
        8: f"The {IN_RANGE} is open.",
        9: "Roll initiative.",
    }
    units = [
        unit(f"u{i:02d}", texts.get(i, f"line {i} of the session"), speaker="GM", start_ms=i)
        for i in range(12)
    ]
    units[11] = unit("u11", f"The dragon {SPOKEN_ASIDE}.", speaker=SPEAKER, start_ms=11)
    lanes = {
        "spells": [spell("spell-1", ref("u05")), spell("spell-2", ref("u10", "u11"))],
        "npcs": [
            {"npc_id": "npc-1", "name": "Brenna", "source_refs": [ref("u02")]},
            {"npc_id": "npc-2", "name": SECRET_NAME, "source_refs": [ref("u03")]},
            {"npc_id": "npc-3", "name": "Doty", "source_refs": [ref("u06")]},
        ],
        "combat-turns": [
            {
                "turn_id": "turn-1",
                "combatant": GM_LANE_VALUE,
                "round": 1,
                "source_refs": [ref("u08", "u09")],
            }
        ],
    }
    allowlist = ["spells", "npcs", "combat-turns"]
    config = config_dict(list(lanes), allowlist, 1)
    config["pipeline"]["lanes"][2]["audience"] = "game-master"
    case = write_case(root, units, lanes, config=config)
    glossary = root / "glossary.yaml"
    glossary.write_text(yaml.safe_dump(GLOSSARY, allow_unicode=True), "utf-8")
    return build(case, root / "bundle"), glossary, case.config


def encodings(secret: str) -> set[bytes]:
    """``secret`` as a page may hold it: raw, HTML-escaped, JSON-escaped (raw UTF-8 and
    ``\\uXXXX``), script-safe, URL-encoded; each case-folded (search a case-folded page)."""
    forms = {
        secret,
        html.escape(secret),
        html.escape(secret, quote=False),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        script_safe(json.dumps(secret, ensure_ascii=False).encode()).decode()[1:-1],
        urllib.parse.quote(secret),
        urllib.parse.quote_plus(secret),
    }
    return {form.casefold().encode() for form in forms}


def leaks(page: bytes, secrets: tuple[str, ...]) -> list[str]:
    """The secrets found in ``page`` in any encoding (case-folded)."""
    folded = page.decode("utf-8").casefold().encode()
    return [secret for secret in secrets if any(form in folded for form in encodings(secret))]


# -- a shared episode: C1E001 as streamer run makes it ---------------------------------------

EPISODE = CRD3 / "episodes" / "C1E001.json"
EPISODE_SECRETS = {
    "secrets": {
        "names": ["Kraghammer", "Gradim"],  # a place, an NPC
        "units": [["t00782", "t00790"]],  # around the Glacial Blast
        "speakers": ["ZAC"],
    }
}
EPISODE_GM_LANES = ("places",)


@dataclass(frozen=True)
class EpisodePages:
    bundle: Path
    game_master: Path
    players: Path
    planted: tuple[str, ...]  # the secret names, and every withheld unit's text


def episode_pages(root: Path) -> EpisodePages:
    """C1E001 run with the default configuration; its game master's and players' pages."""
    api.run(None, EPISODE, "crd3", root / "C1E001", warn=lambda _: None)
    bundle = root / "C1E001"
    glossary = root / "glossary.yaml"
    glossary.write_text(yaml.safe_dump(EPISODE_SECRETS), "utf-8")
    pages = []
    for audience in ("game-master", "players"):
        page = root / f"C1E001.{audience}.html"
        api.report(
            bundle,
            output=page,
            glossary=glossary,
            audience=audience,
            game_master_lanes=EPISODE_GM_LANES,
        )
        pages.append(page)
    secrets = parse_glossary(EPISODE_SECRETS, [], "glossary").secrets
    evidence = orjson.loads((bundle / "evidence-context.json").read_bytes())
    texts = {
        unit["text"]
        for context in evidence["contexts"]
        for unit in context["units"]
        if secrets.unit_withheld(unit["unit_id"], unit["text"], unit["metadata"].get("speaker"))
    }
    # a text short enough to be said elsewhere too ("Yeah.") proves nothing
    return EpisodePages(
        bundle,
        pages[0],
        pages[1],
        ("Kraghammer", "Gradim", *sorted(t for t in texts if len(t) >= 30)),
    )
