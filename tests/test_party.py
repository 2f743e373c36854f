"""The party: one value (``streamer.framework.party.Party``) built from the glossary or a
bundle's party-roster lane, looked up by the name key in extraction's rules context,
normalization's support check and the report's page data alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer import api
from streamer.api.normalization import glossary_of
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.extraction_spec import RulesContext
from streamer.framework.party import Party
from streamer.normalization.glossary import party_of
from tests.normalize_support import candidate, rejections, write_candidates
from tests.report_support import build, embedded_data
from tests.support import KIND_OF_LANE, ref, spell, unit, write_case

GLOSSARY = 'party:\n  - {player: "D\'ARCY", character: "Vex\'ahlia"}\n'
# One speaker written four ways (a curly apostrophe, case, spacing), then another speaker.
SAME = ["D'ARCY", "d\u2019arcy", "  D'Arcy ", "D\u02bcARCY"]
OTHER = "DARCY"
SPEAKERS = [*SAME, OTHER]


def test_a_speaker_is_looked_up_by_name_key() -> None:
    party = Party.of_records([{"player": "D'ARCY", "character": "Vex'ahlia"}], "glossary: $.party")
    assert [party.character_of(speaker) for speaker in SPEAKERS] == ["Vex'ahlia"] * 4 + [None]
    assert party.character_of(None) is None
    assert list(party) == ["D'ARCY"] and party["d\u2019arcy"] == "Vex'ahlia"
    assert party.as_written(SPEAKERS) == sorted(
        [("D'ARCY", "Vex'ahlia"), *((speaker, "Vex'ahlia") for speaker in SAME[1:])]
    )


def test_a_later_entry_of_one_name_key_holds() -> None:
    party = Party([("LAURA", "Vex"), ("laura", "Vex'ahlia")])
    assert len(party) == 1 and party.character_of("Laura") == "Vex'ahlia"
    assert party.as_written(()) == [("LAURA", "Vex'ahlia")]


@pytest.mark.parametrize(
    "entry", [["LAURA", "Vex"], {"player": "LAURA"}, {"player": 3, "character": "Vex"}]
)
def test_a_malformed_entry_names_its_path(entry: Any) -> None:
    with pytest.raises(ConfigurationError) as raised:
        Party.of_records([{"player": "SAM", "character": "Scanlan"}, entry], "glossary: $.party")
    assert raised.value.one_line() == (
        "glossary: $.party[1] must be a mapping with player and character"
    )


def test_extraction_normalization_and_the_report_resolve_a_speaker_alike(
    tmp_path: Path,
) -> None:
    glossary = tmp_path / "glossary.yaml"
    glossary.write_text(GLOSSARY, encoding="utf-8")
    ids = [f"u{index}" for index in range(len(SPEAKERS))]
    doc_units = [
        unit(unit_id, "I cast Shield.", speaker=speaker)
        for unit_id, speaker in zip(ids, SPEAKERS, strict=True)
    ]
    # extraction: the rules' caster of a first-person cast is the speaker's character
    pipeline = {
        "lanes": [{"id": "spells", "artifact_kind": KIND_OF_LANE["spells"]}],
        "extraction": {"engine": "rules"},
    }
    case = write_case(tmp_path / "case", doc_units, {}, config={"pipeline": pipeline})
    config = api.load_config(case.config)
    api.extract(config, case.source, tmp_path / "extracted", glossary=glossary)
    lines = (tmp_path / "extracted" / "spells.jsonl").read_bytes().splitlines()[1:]
    casters = {
        item["record"]["source_refs"][0]["start_unit_id"]: item["record"]["caster"]
        for item in map(orjson.loads, lines)
    }
    assert [casters.get(unit_id) for unit_id in ids] == ["Vex'ahlia"] * 4 + [None]
    context = RulesContext(party_of(glossary_of(config, glossary)))  # as api.extract makes it
    assert [context.character_of(speaker) for speaker in SPEAKERS] == ["Vex'ahlia"] * 4 + [None]

    # normalization: the caster is said in the first person by the speaker playing them
    claims = [
        candidate(
            "chunk-000001", {"spell": "Shield", "caster": "Vex'ahlia", "source_refs": [ref(i)]}
        )
        for i in ids
    ]
    folder = write_candidates(tmp_path / "candidates", "spells", case, claims)
    api.normalize(
        config, case.source, folder, tmp_path / "out", glossary=glossary, warn=lambda _: None
    )
    unsupported = [(item["line"], item["reason"]) for item in rejections(tmp_path / "out")]
    assert unsupported == [(len(SPEAKERS) + 1, "unsupported")]  # OTHER's line only

    # the report's page: each unit's speaker looked up exactly in the data's party
    bundle = build(
        write_case(
            tmp_path / "bundle-case", doc_units, {"spells": [spell("s", ref("u0"))]}, window=9
        ),
        tmp_path / "bundle",
    )
    api.report(bundle, output=tmp_path / "report.html", glossary=glossary)
    data = embedded_data((tmp_path / "report.html").read_bytes())
    party = dict(data["characters"])
    assert [party.get(row[3]) for row in data["evidence"]["units"]] == ["Vex'ahlia"] * 4 + [None]


def test_normalize_without_the_roster_lane_fails_on_a_malformed_party(tmp_path: Path) -> None:
    """Read by normalization's support check, the glossary's party fails as it does for
    extraction and the report (with the roster lane in the run, its message comes first:
    ``test_normalize``)."""
    glossary = tmp_path / "glossary.yaml"
    glossary.write_text("party: [{player: LAURA}]\n", encoding="utf-8")
    lanes = {"lanes": [{"id": "spells", "artifact_kind": KIND_OF_LANE["spells"]}]}
    case = write_case(tmp_path / "case", [unit("u0", "hi")], {}, config={"pipeline": lanes})
    folder = write_candidates(tmp_path / "candidates", "spells", case, [])
    with pytest.raises(ConfigurationError) as raised:
        api.normalize(
            api.load_config(case.config), case.source, folder, tmp_path / "out", glossary=glossary
        )
    assert raised.value.one_line() == (
        f"glossary {glossary}: $.party[0] must be a mapping with player and character"
    )
    assert not (tmp_path / "out").exists()
