"""The notes vault (``--notes DIR``): its links all resolve, it is rewritten only where it
changed, a note a person edited is kept unless ``--force``, and its bytes are the same
however the campaign grew."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from streamer import api
from streamer.framework.errors.types import ConfigurationError
from streamer.output.campaign_registry import REGISTRY_FILE
from streamer.output.modules import CAMPAIGN_OUTPUTS, OUTPUTS
from tests.support import CRD3, REPO, invoke
from tests.vault_support import follow_links, notes_of

CAMPAIGN = REPO / "fixtures" / "campaign"  # three short sessions (docs/campaign.md)
GLOSSARY = CAMPAIGN / "glossary.yaml"
PUMAT = "npcs/Pumat Sol.md"
STATE = ".streamer/vault.json"
YUSSA_RECORD = "../../out/S3.html#record=npcs:npc-456421779a221903"
YUSSA = f"""---
streamer: npcs
entry: "npcs/yussa-errenis"
artifact_kind: "dnd/npcs"
---

# Yussa Errenis

Non-player characters \u00b7 seen as: Yussa Errenis

First seen: [[sessions/S3|S3]] \u00b7 last seen: [[sessions/S3|S3]] \u00b7 sessions: 1

## Sessions

### [[sessions/S3|S3]]

- named \u201cYussa Errenis\u201d at [u000001, u000004]({YUSSA_RECORD})
"""


def _batch(folder: Path, sessions: Sequence[str]) -> Path:
    """The batch of the fixture ``sessions`` into ``folder/out``; its registry file."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = [f"{CAMPAIGN / session}.txt,text,{session}" for session in sessions]
    (folder / "m.csv").write_text("\n".join(["transcript,format,document_id", *rows, ""]))
    api.batch(None, folder / "m.csv", folder / "out", workers=1, glossary=GLOSSARY)
    return folder / "out" / REGISTRY_FILE


def _stats(vault: Path) -> dict[str, tuple[int, int]]:
    return {
        name: ((vault / name).stat().st_ino, (vault / name).stat().st_mtime_ns)
        for name in notes_of(vault)
    }


def test_every_link_of_the_fixture_vault_resolves(tmp_path: Path) -> None:
    registry = _batch(tmp_path, ["S1", "S2", "S3"])
    result = api.write_vault(registry, tmp_path / "notes")
    assert sorted(notes_of(tmp_path / "notes")) == [
        STATE, PUMAT, "npcs/Yussa Errenis.md", "places/Zadash.md", "sessions/S1.md",
        "sessions/S2.md", "sessions/S3.md"
    ]  # fmt: skip
    assert result.changes.written == tuple(sorted(notes_of(tmp_path / "notes"))[1:])
    # wiki: Pumat's first, last and 3 sessions, Yussa's first, last and 1, the sessions'
    # 3 Pumats and 1 Yussa, Zadash's 4 (said in S2); evidence: 4 records from the entries,
    # the same 4 and the 4 casts from the sessions, Zadash's 2
    assert follow_links(tmp_path / "notes") == (5 + 3 + 4 + 4, 4 + 4 + 4 + 2)
    yussa = (tmp_path / "notes" / "npcs" / "Yussa Errenis.md").read_text()
    assert yussa == YUSSA
    s3 = (tmp_path / "notes" / "sessions" / "S3.md").read_text()
    assert s3.startswith('---\nstreamer: session\nsession: "S3"\nposition: 3\n---\n\n')
    assert s3.endswith(
        "- [[npcs/Yussa Errenis|Yussa Errenis]]: named \u201cYussa Errenis\u201d at [u000001, "
        f"u000004]({YUSSA_RECORD})\n\n## Casts by character\n\n### Kiri\n\n"
        "- [Minor Illusion](../../out/S3.html#record=spells:spell-b842ad298b66e9c9)\n\n"
        "### Pip\n\n- [Mage Hand](../../out/S3.html#record=spells:spell-bd28666b9f662ff3)\n"
    )


@pytest.mark.skipif(not (CRD3 / "episodes").is_dir(), reason="the CRD3 episodes are absent")
def test_every_link_of_a_vault_of_two_shared_episodes_resolves(tmp_path: Path) -> None:
    episodes = CRD3 / "episodes"
    rows = "".join(f"{episodes / e}.json,crd3,{e}\n" for e in ("C1E001", "C1E002"))
    (tmp_path / "m.csv").write_text("transcript,format,document_id\n" + rows)
    api.batch(None, tmp_path / "m.csv", tmp_path / "out", workers=2)
    vault = tmp_path / "vault" / "campaign notes"
    api.write_vault(tmp_path / "out" / REGISTRY_FILE, vault)
    wiki, evidence = follow_links(vault)
    registry = api.campaign_registry(tmp_path / "out").registry
    records = sum(len(s.records) for e in registry.entries for s in e.sessions)
    casts = sum(len(s.casts) for c in registry.casters for s in c.sessions)
    assert evidence == 2 * records + casts  # each record in its entry's and session's note
    assert wiki >= 2 * sum(len(e.sessions) for e in registry.entries) > 0
    both = [e for e in registry.entries if len(e.sessions) == 2]
    assert both  # an entry named in both sessions: one note citing both
    assert (
        "[[sessions/C1E002|C1E002]]"
        in (vault / f"{both[0].section}")
        .joinpath(
            next(n for n in os.listdir(vault / both[0].section) if n.startswith(both[0].name[:5]))
        )
        .read_text()
    )


def test_a_new_session_rewrites_only_the_notes_it_changes(tmp_path: Path) -> None:
    registry = _batch(tmp_path, ["S1", "S2"])
    vault = tmp_path / "notes"
    api.write_vault(registry, vault)
    before = _stats(vault)
    _batch(tmp_path, ["S1", "S2", "S3"])
    result = api.write_vault(registry, vault)
    assert result.changes.written == (
        PUMAT, "npcs/Yussa Errenis.md", "sessions/S3.md"
    )  # fmt: skip
    assert result.changes.unchanged == ("places/Zadash.md", "sessions/S1.md", "sessions/S2.md")
    after = _stats(vault)
    for name in ("sessions/S1.md", "sessions/S2.md"):
        assert after[name] == before[name]
    assert after[PUMAT] != before[PUMAT]
    # the same bytes a vault written at once has (beside it: the same relative links)
    _batch(tmp_path / "whole", ["S1", "S2", "S3"])
    api.write_vault(tmp_path / "whole" / "out" / REGISTRY_FILE, tmp_path / "whole" / "notes")
    assert notes_of(vault) == notes_of(tmp_path / "whole" / "notes")
    again = api.write_vault(registry, vault)
    assert (again.changes.written, again.changes.removed) == ((), ())
    assert _stats(vault) == after


def test_an_edited_note_is_kept_without_force_and_replaced_with_it(tmp_path: Path) -> None:
    registry = _batch(tmp_path, ["S1", "S2", "S3"])
    out, vault = tmp_path / "out", tmp_path / "notes"
    api.write_vault(registry, vault)
    edited = (vault / PUMAT).read_bytes() + b"\nMy note: she owes us 10 gp.\n"
    (vault / PUMAT).write_bytes(edited)
    (vault / "npcs" / "Yussa Errenis.md").write_bytes(b"Yussa: ask about the tower.\n")
    _batch(tmp_path, ["S1", "S2"])  # S3 removed: Pumat's note changes, Yussa's goes
    run = invoke(["campaign", str(out), "--glossary", str(GLOSSARY), "--notes", str(vault)])
    assert run.status == 0
    assert run.stderr == (
        "streamer: notes kept, edited since streamer wrote them (--force replaces them): "
        "npcs/Pumat Sol.md, npcs/Yussa Errenis.md\n"
    )
    assert (vault / PUMAT).read_bytes() == edited
    assert not (vault / "sessions" / "S3.md").exists()  # unedited: removed
    assert (vault / "npcs" / "Yussa Errenis.md").read_bytes() == b"Yussa: ask about the tower.\n"
    run = invoke(["campaign", str(out), "--glossary", str(GLOSSARY), "--notes", str(vault)])
    assert run.stderr.endswith(": npcs/Pumat Sol.md\n")  # still edited; Yussa is theirs now
    run = invoke(
        ["campaign", str(out), "--glossary", str(GLOSSARY), "--notes", str(vault), "--force"]
    )
    assert (run.status, run.stderr) == (0, "")
    api.write_vault(registry, tmp_path / "fresh")
    fresh = notes_of(tmp_path / "fresh")
    assert (vault / PUMAT).read_bytes() == fresh[PUMAT]
    assert {**notes_of(vault), "npcs/Yussa Errenis.md": b""} == {
        **fresh,
        "npcs/Yussa Errenis.md": b"",
    }


def test_batch_writes_the_vault_with_notes(tmp_path: Path) -> None:
    rows = "".join(f"{CAMPAIGN / session}.txt,text,{session}\n" for session in ("S1", "S2"))
    (tmp_path / "m.csv").write_text("transcript,format,document_id\n" + rows)
    args = ["batch", str(tmp_path / "m.csv"), "--output-dir", str(tmp_path / "out")]
    run = invoke([*args, "--workers", "1", "--json", "--notes", str(tmp_path / "notes")])
    assert (run.status, run.stderr) == (0, "")
    assert sorted(notes_of(tmp_path / "notes")) == [
        STATE, PUMAT, "places/Zadash.md", "sessions/S1.md", "sessions/S2.md"
    ]  # fmt: skip


def test_the_vault_is_a_campaign_output_of_the_outputs_group(tmp_path: Path) -> None:
    assert CAMPAIGN_OUTPUTS.names() == ("notes",)
    assert OUTPUTS.names() == ("json",)
    registry = _batch(tmp_path, ["S1"])
    receipt = CAMPAIGN_OUTPUTS.get("notes").write(registry, tmp_path / "v", force=False).receipt()
    assert receipt == {"notes": 2, "written": 2, "kept": 0, "removed": 0}
    assert "notes" not in OUTPUTS


def test_notes_need_a_registry_and_force_needs_notes(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigurationError) as raised:
        api.write_vault(tmp_path / REGISTRY_FILE, tmp_path / "n")
    assert raised.value.one_line() == (
        f"--notes: no campaign registry {tmp_path / REGISTRY_FILE} "
        "(hint: streamer campaign DIR writes it)"
    )
    with pytest.raises(ConfigurationError) as raised:
        api.write_vault(tmp_path / REGISTRY_FILE, tmp_path / "file")
    assert raised.value.one_line() == f"--notes {tmp_path / 'file'} is not a folder"
    registry = _batch(tmp_path, ["S1"])
    run = invoke(["campaign", str(registry.parent), "--force"])
    assert (run.status, run.stderr) == (
        2, "streamer: error: --force replaces notes: give --notes DIR with it\n"
    )  # fmt: skip
