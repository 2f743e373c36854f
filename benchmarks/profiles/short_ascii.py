"""The short-ASCII profile: one-line utterances of about 300 bytes a unit, plain ASCII.

Where units are cheap to parse, the per-unit overhead of any implementation shows: every
unit is an ``utterance`` with a speaker and times, its text 150 to 250 characters of
ASCII words, no self-reference. Unit *i* is the same for every size.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from benchmarks.profiles.unit_ids import DEFAULT_SEED, unit_id

_PHRASES = (
    "the door creaks open and a cold wind sweeps through hall you see torchlight flicker "
    "on wet stone I roll for perception with advantage that is a natural twenty she draws "
    "her bow and looses an arrow toward shadow we should rest here before going deeper "
    "into mine dragon stirs okay so what does room look like gold coins glitter everyone "
    "roll initiative goblins screech as they charge across bridge tavern keeper wipes mug "
    "can I cast on him eighteen to hit how much damage fourteen piercing plus four fire"
)
_WORDS = tuple(_PHRASES.split())
_SPEAKERS = ("MATT", "LAURA", "TRAVIS", "MARISHA", "SAM", "TALIESIN", "LIAM", "ASHLEY")
_POOL = 4096


def _text(rng: random.Random) -> str:
    length = rng.randint(150, 250)
    words: list[str] = []
    size = -1
    while size < length:
        word = rng.choice(_WORDS)
        words.append(word)
        size += len(word) + 1
    return " ".join(words).capitalize()[:length].rstrip() + rng.choice((".", "?", "!"))


def iter_units(seed: int = DEFAULT_SEED) -> Iterator[tuple[dict[str, Any], bool]]:
    """Endless ``(unit, False)``: the units carry no self-reference."""
    rng = random.Random(seed ^ 0xA5C11)
    texts = [_text(rng) for _ in range(_POOL)]
    clock = 0
    position = 0
    getrandbits = rng.getrandbits
    while True:
        bits = getrandbits(32)
        duration = 800 + (bits >> 12) % 9000
        unit = {
            "unit_id": unit_id(position, seed),
            "kind": "utterance",
            "text": texts[bits & (_POOL - 1)],
            "metadata": {
                "speaker": _SPEAKERS[(bits >> 24) & 7],
                "start_ms": clock,
                "end_ms": clock + duration,
            },
        }
        clock += duration + ((bits >> 27) & 15) * 40
        yield unit, False
        position += 1
