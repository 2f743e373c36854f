"""The player page in a real headless browser (as ``test_report_browser``): it renders at
420 and 1400 px, and no planted secret is in the DOM's text, whichever record is shown.
``STREAMER_REPORT_SCREENSHOTS=docs`` writes docs/report-players.png and
docs/report-game-master.png (C1E001, both audiences, the same record selected)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page

from streamer import api
from tests.report_support import embedded_data
from tests.secrets_support import EPISODE, PLANTED_ALL, episode_pages, leaks, secrets_case

# opened, and the browser tests' fixtures (one browser a module)
from tests.test_report_browser import browser, opened, page, playwright, requests  # noqa: F401

WIDTHS = (420, 1400)


def dom_text(tab: Page, report: Path) -> bytes:
    """The page's text (``textContent`` of the document, scripts' data included) with every
    record of every lane selected in turn (its evidence then in the DOM)."""
    opened(tab, report)
    texts = [tab.evaluate("document.documentElement.textContent")]
    for lane in embedded_data(report.read_bytes())["lanes"]:
        for number in range(len(lane["records"])):
            tab.click(f'[data-lane="{lane["lane_id"]}"] tr[data-record="{number}"]')
            texts.append(tab.evaluate("document.getElementById('app').innerText"))
    return "\n".join(texts).encode()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_players_page_renders_without_a_secret(
    page: Page,  # noqa: F811
    tmp_path: Path,
    width: int,
) -> None:
    bundle, glossary, config = secrets_case(tmp_path)
    players = tmp_path / "players.html"
    lanes = api.load_config(config).game_master_lanes()
    api.report(
        bundle, output=players, glossary=glossary, audience="players", game_master_lanes=lanes
    )
    page.set_viewport_size({"width": width, "height": 900})
    text = dom_text(page, players)
    assert leaks(text, PLANTED_ALL) == []
    opened(page, players)
    assert page.text_content("#status") == "9 of 9 units"
    page.click('[data-lane="npcs"] tr[data-record="0"]')  # Brenna: her unit u02 withheld
    row = page.locator('#view .unit[data-unit-id="u02"]')
    assert "[withheld]" in (row.text_content() or "")


@pytest.mark.skipif(not EPISODE.is_file(), reason="../shared/data/crd3 is not present")
def test_a_shared_episodes_players_page_renders_without_a_secret(
    page: Page,  # noqa: F811
    tmp_path: Path,
) -> None:
    pages = episode_pages(tmp_path)
    folder = Path(os.environ.get("STREAMER_REPORT_SCREENSHOTS", tmp_path))
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        assert leaks(dom_text(page, pages.players), pages.planted) == []
    page.set_viewport_size({"width": 1400, "height": 900})
    for audience, report in (("game-master", pages.game_master), ("players", pages.players)):
        opened(page, report)
        page.click('[data-lane="spells"] tr[data-record="1"]')  # Glacial Blast: t00789
        page.evaluate("window.scrollTo(0, 0)")
        target = folder / f"report-{audience}.png"
        page.screenshot(path=str(target))
        assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_game_masters_page_marks_the_secrets(
    page: Page,  # noqa: F811
    tmp_path: Path,
) -> None:
    bundle, glossary, _ = secrets_case(tmp_path)
    game_master = tmp_path / "game-master.html"
    api.report(bundle, output=game_master, glossary=glossary)
    opened(page, game_master)
    marked = page.eval_on_selector_all(
        "tr.record:has(.secret)",
        "rows => rows.map(r => r.closest('[data-lane]').dataset.lane + ':' + r.dataset.record)",
    )
    assert marked == ["npcs:1"]
    units = page.eval_on_selector_all(
        "#view .unit:has(.secret)", "rows => rows.map(r => r.dataset.unitId)"
    )
    assert units == ["u02", "u03", "u06", "u08", "u09", "u11"]
