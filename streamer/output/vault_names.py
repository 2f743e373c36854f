"""The file names of a notes vault's notes, safe on every system, and the links between them.

A note's name is what a person reads (an entry's canonical name, a session's ID) with
what no file system or notes app takes replaced: ``/ \\ : * ? " < > |`` and control
characters (file systems), ``# ^ [ ] |`` (Obsidian's link syntax), leading and trailing
dots and spaces, Windows' reserved device names (``CON``, ``NUL``, ``COM1``, ...). Names
are cut at 80 characters. Two notes of a folder whose names differ only by case (or became
equal once made safe) would be one file on macOS and Windows: the later ones, in the order
given, get `` (2)``, `` (3)``.

Links: ``[[folder/name|label]]`` (a wiki link as Obsidian reads it: a path from the vault's
root, the label shown) and a relative Markdown link to a file outside the vault.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from urllib.parse import quote

_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#^\[\]]+')
_RESERVED = re.compile(r"(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$")
_LONGEST = 80
_NOT_IN_LINKS = re.compile(r"[\[\]|#^]+")
_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def safe_name(text: str) -> str:
    """``text`` as a file name (without its ``.md``) every system and notes app takes."""
    name = " ".join(_UNSAFE.sub("-", text).split())[:_LONGEST].strip(" .")
    if not name:
        return "unnamed"
    return name + "_" if _RESERVED.match(name) else name


def unique_names(keys: Iterable[str], names: dict[str, str]) -> dict[str, str]:
    """Each of ``keys`` (in order) to its safe name (``names[key]`` made safe), one file
    per key whatever the case sensitivity of the file system."""
    taken: set[str] = set()
    chosen: dict[str, str] = {}
    for key in keys:
        base = safe_name(names[key])
        name, number = base, 1
        while name.casefold() in taken:
            number += 1
            name = f"{base} ({number})"
        taken.add(name.casefold())
        chosen[key] = name
    return chosen


def wiki_link(path: str, label: str) -> str:
    """``[[path|label]]`` (``path``: the note's path in the vault, without ``.md``); the
    label loses the characters a wiki link cannot hold."""
    shown = " ".join(_NOT_IN_LINKS.sub(" ", label).split()) or path
    return f"[[{path}]]" if shown == path else f"[[{path}|{shown}]]"


@functools.lru_cache(maxsize=4096)  # names recur in every session's notes
def markdown_text(text: str) -> str:
    """``text`` as literal Markdown inline text (its punctuation escaped)."""
    return _MARKDOWN.sub(r"\\\1", " ".join(text.split()))


def relative_link(label: str, target: str, fragment: str = "") -> str:
    """``[label](target#fragment)``: ``target`` a relative path (``/`` separated)."""
    href = quote(target, safe="/")
    if fragment:
        href += "#" + quote(fragment, safe=":=")
    return f"[{markdown_text(label)}]({href})"
