"""The synthetic profile: the benchmark's own generator of table talk.

Units of four kinds (utterance, narration, roll, action) whose text runs from empty to
several KB, some of it non-ASCII (accents, CJK, emoji) and some with quotes, backslashes,
tabs and newlines; metadata with a speaker and times, only one of them, or none; on a
quarter of the units the derived ``source_ref``. Unit *i* is the same for every size.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from benchmarks.profiles.unit_ids import DEFAULT_SEED, unit_id

_PHRASES = (
    "the door creaks open and a cold wind sweeps through hall you see torchlight flicker "
    "on wet stone I roll for perception with advantage that is a natural twenty "
    "she draws her bow whispers to Trinket and looses an arrow toward shadow "
    "we should rest here before going deeper into the mine the dragon stirs "
    "okay so what does the room look like from where I am standing gold coins glitter "
    "everyone roll initiative please goblins screech as they charge across bridge "
    "tavern keeper wipes a mug and eyes you suspiciously can I cast Hunter's Mark on him "
    "that's eighteen to hit how much damage fourteen piercing plus four fire"
)
_WORDS = [word for phrase in _PHRASES for word in phrase.split()]
_FOREIGN = (
    "Vex'ahlia",
    "café",
    "naïve",
    "Grüße",
    "über",
    "señor",
    "ça",
    "Æther",
    "Łódź",
    "Ωmega",
    "日本語",
    "дракон",
    "…",
    "—",
    "“Ha!”",
    "🐉",
    "🎲",
    "½",
)
_ODD = ('"quoted"', "back\\slash", "tab\there", "line\nbreak")
_SPEAKERS = ("MATT", "LAURA", "TRAVIS", "MARISHA", "SAM", "TALIESIN", "LIAM", "ASHLEY")
_KINDS = ("utterance",) * 14 + ("narration",) * 3 + ("roll",) * 2 + ("action",)
_POOL = 8192


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(3, 22))]
    if rng.random() < 0.3:
        words[rng.randrange(len(words))] = rng.choice(_FOREIGN)
    if rng.random() < 0.02:
        words[rng.randrange(len(words))] = rng.choice(_ODD)
    return " ".join(words).capitalize() + rng.choice((".", ".", ".", "?", "!"))


def _texts(rng: random.Random) -> list[str]:
    texts: list[str] = []
    for _ in range(_POOL):
        draw = rng.random()
        if draw < 0.03:
            count = rng.randint(15, 60)  # a long narration or rules explanation
        elif draw < 0.08:
            count = 0  # "" or a one-word interjection
        else:
            count = rng.randint(1, 4)
        if count == 0:
            texts.append(rng.choice(("", "Yes.", "No!", "Okay.", "Ha!", "…", "Mm-hm.")))
        else:
            texts.append(" ".join(_sentence(rng) for _ in range(count)))
    return texts


def iter_units(seed: int = DEFAULT_SEED) -> Iterator[tuple[dict[str, Any], bool]]:
    """Endless ``(unit, with_self_reference)``: a validated unit (what the digest covers)
    and whether its written form also carries its derived ``source_ref``."""
    rng = random.Random(seed)
    texts = _texts(rng)
    durations = [rng.randint(300, 15000) for _ in range(_POOL)]
    getrandbits = rng.getrandbits
    clock = 0
    position = 0
    while True:
        bits = getrandbits(32)
        text = texts[bits & (_POOL - 1)]
        kind = _KINDS[(bits >> 13) % len(_KINDS)]
        duration = durations[(bits >> 5) & (_POOL - 1)]
        unit: dict[str, Any] = {"unit_id": unit_id(position, seed), "kind": kind, "text": text}
        variant = (bits >> 18) & 63
        if variant == 0:
            pass  # no metadata
        elif variant == 1:
            unit["metadata"] = {"speaker": _SPEAKERS[(bits >> 24) & 7]}
        elif variant == 2:
            unit["metadata"] = {"start_ms": clock, "end_ms": clock + duration}
        else:
            unit["metadata"] = {
                "speaker": _SPEAKERS[(bits >> 24) & 7],
                "start_ms": clock,
                "end_ms": clock + duration,
            }
        clock += duration + ((bits >> 27) & 15) * 40
        yield unit, (bits >> 28) & 3 == 0
        position += 1
