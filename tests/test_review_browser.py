"""The game master's review in the session page, in a real headless browser (as
``test_report_browser``): marking records, saving the review (the download), and the page
written again with it, at 420 and 1400 px."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page

from streamer import api
from streamer.validation.review import review_path
from tests import test_report_browser as browsing
from tests.report_support import demo_bundle
from tests.support import invoke
from tests.test_report_browser import OVERFLOW, opened

# the browser's fixtures (one browser a module, one page a test, no request leaves)
playwright, browser = browsing.playwright, browsing.browser
requests, page = browsing.requests, browsing.page

SPELL = '[data-lane="spells"] tr[data-record="1"]'  # spell-2
TURN = '[data-lane="combat-turns"] tr[data-record="0"]'  # turn-1
NOTE = 'a misheard "name" \u00e9 \u2028 \\ end'


def row_classes(page: Page, selector: str) -> set[str]:
    return set((page.get_attribute(selector, "class") or "").split())


@pytest.mark.parametrize("width", [420, 1400])
def test_marks_saved_in_the_page_are_the_bytes_streamer_review_writes(
    page: Page, tmp_path: Path, width: int
) -> None:
    """docs/report.md shows these screenshots; STREAMER_REPORT_SCREENSHOTS=docs writes
    docs/report-review-420.png and docs/report-review-1400.png there."""
    page.set_viewport_size({"width": width, "height": 900})
    (tmp_path / "browser").mkdir()
    (tmp_path / "shell").mkdir()
    in_browser = demo_bundle(tmp_path / "browser" / "session")
    blank = tmp_path / "blank.html"
    api.report(in_browser, output=blank)
    opened(page, blank)
    page.click(SPELL)
    page.fill("#review-note", NOTE)
    page.click("#review-reject")
    assert "rejected" in row_classes(page, SPELL)
    page.click(TURN)
    page.click("#review-accept")
    assert page.text_content("#save-review") == "save review (2)"
    with page.expect_download() as caught:
        page.click("#save-review")
    download = caught.value
    assert download.suggested_filename == "demo-slayers-take.review.json"
    saved = tmp_path / "saved.review.json"
    download.save_as(saved)
    # the same marks from a shell, on another copy of the bundle
    in_shell = demo_bundle(tmp_path / "shell" / "session")
    done = invoke(
        [
            *("review", str(in_shell), "--reject", "spell-2"),
            "--note",
            "spell-2",
            NOTE,
            "--accept",
            "turn-1",
        ]
    )
    assert done.status == 0
    assert saved.read_bytes() == review_path(in_shell).read_bytes()
    # given back to streamer report: the same page as the shell's review beside its bundle
    from_browser, from_shell = tmp_path / "from-browser.html", tmp_path / "from-shell.html"
    api.report(in_browser, output=from_browser, review=saved)
    api.report(in_shell, output=from_shell)
    assert from_browser.read_bytes() == from_shell.read_bytes()
    # reloaded: the marks are the review's
    opened(page, from_browser)
    assert "rejected" in row_classes(page, SPELL)
    assert "accepted" in row_classes(page, TURN)
    assert page.get_attribute(SPELL, "title") == f"rejected: {NOTE}"
    page.click(SPELL)
    assert page.text_content("#view .review .verdict") == "rejected"
    assert page.input_value("#review-note") == NOTE
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate(OVERFLOW) == [0, []], width
    folder = Path(os.environ.get("STREAMER_REPORT_SCREENSHOTS", tmp_path))
    page.screenshot(path=str(folder / f"report-review-{width}.png"), full_page=width < 800)


def test_canon_marks_the_records_not_reviewed_and_clear_unmarks(page: Page, tmp_path: Path) -> None:
    bundle = demo_bundle(tmp_path / "session")
    assert invoke(["review", str(bundle), "--accept", "spell-1"]).status == 0
    report = tmp_path / "canon.html"
    api.report(bundle, output=report, canon=True)
    opened(page, report)
    first, second = (f'[data-lane="spells"] tr[data-record="{r}"]' for r in (0, 1))
    assert ("accepted" in row_classes(page, first), "unreviewed" in row_classes(page, second)) == (
        True,
        True,
    )
    assert page.get_attribute(second, "title") == "not reviewed"
    page.click(first)
    page.click("#review-clear")
    assert "unreviewed" in row_classes(page, first)
    assert page.text_content("#save-review") == "save review (0)"
