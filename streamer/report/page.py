"""The HTML shell of the report: inline style and script, and the policy that allows
nothing else.

The script is written as modules (``SCRIPT_MODULES``, one job each) that share one scope:
they are joined, in that order, into one block, the page's one inline script. The
Content-Security-Policy names the SHA-256 of the one inline style and that one inline
script; everything else (images, fonts, frames, connections, forms, other scripts and
styles, inline event handlers) is refused, so the page makes no request to any network
or file. The data is a ``<script type="application/json">`` element, which is never run:
the script parses it and inserts every string as text.
"""

from __future__ import annotations

import base64
import hashlib
import html
from functools import cache
from importlib import resources

DATA_ELEMENT_ID = "report-data"


# The script's modules, in the order they run: the data unpacked, the indexes over it, then
# the page built, its views, and last the controls' events and the first view.
SCRIPT_MODULES = (
    "data.js",
    "indexes.js",
    "speakers.js",
    "records.js",
    "dom.js",
    "layout.js",
    "glance.js",
    "filters.js",
    "tables.js",
    "evidence.js",
    "record_view.js",
    "view.js",
    "review.js",
    "main.js",
)


@cache
def asset(name: str) -> str:
    """The text of one of the page's assets (``report.css``, ``campaign.css``, a module of
    the script)."""
    return resources.files("streamer.report").joinpath("assets", name).read_text("utf-8")


_asset = asset


@cache
def script() -> str:
    """The page's one inline script: its modules joined in one block (strict: their
    constants and functions are the block's, none is global). Every string of the bundle
    is inserted as text (createTextNode, textContent, setAttribute of a plain attribute),
    never as markup; lists are rendered a page at a time; the view (selection, search,
    filters, sort) is kept in the URL fragment."""
    body = "".join(_asset(name) for name in SCRIPT_MODULES)
    return '"use strict";\n// streamer report\n{\n' + body + "}\n"


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def content_security_policy() -> str:
    return _policy(_digest(script()), _digest(_asset("report.css")))


def campaign_policy() -> str:
    """The campaign page's policy: its one inline style, and no script at all."""
    return _policy("'none'", _digest(_asset("campaign.css")))


def _policy(script: str, style: str) -> str:
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {script}",
            f"style-src {style}",
            "img-src 'none'",
            "font-src 'none'",
            "connect-src 'none'",
            "media-src 'none'",
            "object-src 'none'",
            "frame-src 'none'",
            "worker-src 'none'",
            "manifest-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def head(title: str, static: bytes = b"") -> bytes:
    """Everything before the embedded data; ``static``: the page without its script (a
    ``<noscript>`` element, ``static_tables``)."""
    return (
        (
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy()}">\n'
            '<meta name="referrer" content="no-referrer">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n"
            f"<style>{_asset('report.css')}</style>\n"
            "</head>\n<body>\n"
        ).encode()
        + (static or b"<noscript>This report shows its data with JavaScript.</noscript>\n")
        + (
            f'<div id="app"></div>\n<script type="application/json" id="{DATA_ELEMENT_ID}">'
        ).encode()
    )


def tail() -> bytes:
    """Everything after the embedded data."""
    return (f"</script>\n<script>{script()}</script>\n</body>\n</html>\n").encode()
