"""The extraction prompts of the D&D kinds, v2: one narrow question each (ADR-0009).

Every request is laid out chunk first, question last (``docs/extraction.md``): the
``PREAMBLE`` every lane shares (what the transcript is, the rules every lane follows: each
field supported by the cited units, only the unit IDs shown may be cited, no prose or
summary, an empty list is a good answer), then the chunk's units, then the lane's own
question and the shape of one record, so that a server without JSON Schema support
(``structured_output: json_object`` or ``none``) still knows what to answer. Since the
preamble and the units come first, a server with a prompt cache (llama.cpp, vLLM,
OpenAI) evaluates a chunk once for all seven lanes. The fixed part stays under about 1,500
characters: ``tests/test_extract_config.py`` measures it.

A prompt's text is part of its version: change the text, bump the ``@N`` (v1 put each
lane's question before the units).
"""

from __future__ import annotations

from streamer.framework.kinds.extraction_spec import Prompt

PREAMBLE = """\
You read a transcript of a tabletop role-playing game (D&D) session, then answer one \
question about it. Each line of the transcript is one unit: [unit_id] speaker: text.
Rules:
- Every field must be supported by the units you cite.
- Cite only unit IDs shown in the transcript, as {"start_unit_id": ID, "end_unit_id": ID} \
(a range, start first; the same ID twice for one unit).
- No prose, no summary, no explanation: answer only with JSON.
- An empty list is a good answer: {"records": []} when nothing answers the question."""

_QUESTION = """\
Question: {question}
{guidance}
Answer: {{"records": [{shape}, ...]}}"""

_REFS = '"source_refs": [{"start_unit_id": ID, "end_unit_id": ID}]'
VERSION = 2


def _prompt(kind: str, question: str, guidance: str, shape: str) -> Prompt:
    text = _QUESTION.format(question=question, guidance=guidance, shape=shape)
    return Prompt(f"{kind}@{VERSION}", text, PREAMBLE)


SPELL_CASTS = _prompt(
    "dnd/spell-casts",
    "Which spells were cast, and by whom?",
    "One record each time a spell is cast (a spell only talked about is not cast). "
    "spell: the spell's name as said. caster: the character who casts it, or null when "
    "the units do not say who.",
    '{"spell": NAME, "caster": NAME or null, ' + _REFS + "}",
)

NPCS = _prompt(
    "dnd/npcs",
    "Which non-player characters appear?",
    "One record per non-player character (played by the game master, not by a player) "
    "who appears or is named, with the units that show them. name: as said.",
    '{"name": NAME, ' + _REFS + "}",
)

PLACES = _prompt(
    "dnd/places",
    "Which named places does the session visit or talk about?",
    "One record per named place (a city, region, building, tavern, ship...; not a "
    "generic place such as the tavern), with the units that name it. name: as said, "
    "without a leading article.",
    '{"name": NAME, ' + _REFS + "}",
)

NPC_INTERACTIONS = _prompt(
    "dnd/npc-interactions",
    "When does the party deal with a non-player character?",
    "One record per exchange between the party and one non-player character (talking, "
    "trading, fighting). npc: the character's name as said.",
    '{"npc": NAME, ' + _REFS + "}",
)

COMBAT_TURNS = _prompt(
    "dnd/combat-turns",
    "Who takes a turn in combat, in which round?",
    "One record per turn taken in combat. combatant: who takes the turn. round: the "
    "round number (1 or more) when the units say it, otherwise null.",
    '{"combatant": NAME, "round": INTEGER or null, ' + _REFS + "}",
)

ITEM_EVENTS = _prompt(
    "dnd/item-events",
    "Which items are acquired, lost, used or transferred?",
    "One record per event. item: as said. event: one of acquired, lost, used, "
    "transferred. holder: who has the item after the event, or null when the units do "
    "not say.",
    '{"item": NAME, "event": EVENT, "holder": NAME or null, ' + _REFS + "}",
)

SCENE_DESCRIPTIONS = _prompt(
    "dnd/scene-descriptions",
    "Where does each scene begin and end?",
    "One record per scene: the range of units from its first to its last. location: "
    "where it takes place, or null when the units do not say.",
    '{"location": NAME or null, "source_ref": {"start_unit_id": ID, "end_unit_id": ID}}',
)

PROMPTS: dict[str, Prompt] = {
    prompt.id.partition("@")[0]: prompt
    for prompt in (
        SPELL_CASTS,
        NPCS,
        PLACES,
        NPC_INTERACTIONS,
        COMBAT_TURNS,
        ITEM_EVENTS,
        SCENE_DESCRIPTIONS,
    )
}
