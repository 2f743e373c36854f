"""JSON bytes that can stand inside an HTML ``<script>`` element.

``<``, ``>`` and ``&`` can only occur inside JSON strings, so replacing them by their
``\\u00xx`` escapes keeps the JSON's value and leaves no ``</script>``, ``<!--`` or
character reference for the HTML parser to find. U+2028 and U+2029 are escaped too (they
end a line in older JavaScript). orjson writes raw UTF-8, in which these five characters
have exactly one encoding each and no other character's encoding contains theirs.
"""

from __future__ import annotations

_REPLACEMENTS = (
    (b"<", b"\\u003c"),
    (b">", b"\\u003e"),
    (b"&", b"\\u0026"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
)


def script_safe(json_bytes: bytes) -> bytes:
    """``json_bytes`` (UTF-8 JSON) with every ``<``, ``>``, ``&``, U+2028 and U+2029
    written as a JSON escape: the same value, safe inside ``<script>``."""
    for raw, escaped in _REPLACEMENTS:
        if raw in json_bytes:
            json_bytes = json_bytes.replace(raw, escaped)
    return json_bytes
