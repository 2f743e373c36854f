"""``streamer report`` in a real headless browser: Debian's chromium driven by Playwright.

One browser a module (a fresh profile folder), one page a test. The tests skip, with one
line, only when no browser is installed, and never when ``CI`` is set. Speed is measured
by ``benchmarks/report_load.py``, not here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from benchmarks.report_load import ARGS
from benchmarks.report_load import CHROMIUM as BENCH_CHROMIUM
from streamer import api
from tests.report_support import (
    PLANTED,
    XSS,
    XSS_FLAG,
    big_case,
    build,
    demo_bundle,
    hostile_case,
)

CHROMIUM = Path(BENCH_CHROMIUM)
BIG_UNITS = 100_000
PAGE = 100  # rows a unit list shows at once (report.js)

try:
    from playwright.sync_api import BrowserContext, Dialog, Page, sync_playwright
except ImportError:  # pragma: no cover - the lock file installs it
    sync_playwright = None  # type: ignore[assignment]
if (sync_playwright is None or not CHROMIUM.exists()) and not os.environ.get("CI"):
    pytest.skip(
        "browser tests: no chromium at /usr/bin/chromium or no playwright "
        "(apt-get install -y chromium; make venv)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=ARGS,
            viewport={"width": 1400, "height": 900},
        )
        yield context
        context.close()


class Requests:
    """Every request the browser makes, recorded by a route on ``**/*``; any request but
    for a ``file:`` URL is aborted (nothing leaves the machine)."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def handle(self, route: Any) -> None:
        self.urls.append(route.request.url)
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            route.abort()


@pytest.fixture
def requests(browser: BrowserContext) -> Iterator[Requests]:
    recorded = Requests()
    browser.route("**/*", recorded.handle)
    yield recorded
    browser.unroute("**/*")


@pytest.fixture
def page(browser: BrowserContext, requests: Requests) -> Iterator[Page]:
    opened = browser.new_page()
    errors: list[str] = []
    dialogs: list[str] = []

    def on_dialog(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("dialog", on_dialog)
    yield opened
    opened.close()
    assert errors == []
    assert dialogs == []


def report_of(bundle: Path, output: Path, **options: Any) -> Path:
    api.report(bundle, output=output, **options)
    return output


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("demo")
    bundle = demo_bundle(root / "bundle")
    return bundle, report_of(bundle, root / "report.html")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    bundle = build(hostile_case(root / "case"), root / "bundle")
    return report_of(bundle, root / "report.html", title=XSS)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big")
    bundle = build(big_case(root / "case", BIG_UNITS), root / "bundle")
    shutil.rmtree(root / "case")
    return report_of(bundle, root / "report.html")


def opened(page: Page, report: Path) -> Page:
    page.goto(report.as_uri())
    page.wait_for_selector("html[data-ready=true]", state="attached")
    return page


def shown_units(page: Page, scope: str = "#view") -> list[tuple[str, str]]:
    """The unit rows in ``scope``: unit ID and mark (direct, window or none)."""
    rows: list[tuple[str, str]] = page.eval_on_selector_all(
        f"{scope} .unit",
        """rows => rows.map(row => [row.dataset.unitId,
            row.classList.contains('direct') ? 'direct'
            : row.classList.contains('window') ? 'window' : ''])""",
    )
    return [tuple(row) for row in rows]  # type: ignore[misc]


def search(page: Page, query: str) -> str:
    page.fill("#search", query)
    return page.text_content("#status") or ""


def evidence_units(bundle: Path) -> list[list[dict[str, Any]]]:
    document = orjson.loads((bundle / "evidence-context.json").read_bytes())
    return [context["units"] for context in document["contexts"]]


def clock(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


# -- the demo bundle --------------------------------------------------------------------


def test_the_record_count_of_each_lane_matches_the_bundle(
    page: Page, demo: tuple[Path, Path]
) -> None:
    bundle, report = demo
    opened(page, report)
    index = orjson.loads((bundle / "index.json").read_bytes())
    assert [d["lane_id"] for d in index["lanes"]] == page.eval_on_selector_all(
        "#records .lane", "lanes => lanes.map(lane => lane.dataset.lane)"
    )
    for descriptor in index["lanes"]:
        lane = f'#records [data-lane="{descriptor["lane_id"]}"]'
        count = descriptor["record_count"]
        assert page.locator(f"{lane} tr.record").count() == count
        assert page.text_content(f"{lane} h2 .count") == f"{count} record{'s' * (count != 1)}"
    payload = orjson.loads((bundle / "lanes" / "item-events.json").read_bytes())
    cells = page.locator('[data-lane="item-events"] tr.record td').all_text_contents()
    record = payload["records"][0]
    assert cells == ["1", record["item_event_id"], record["item"], record["event"],
                     record["holder"], "t0118 \u2013 t0119"]  # fmt: skip


def test_clicking_a_record_marks_its_direct_units_apart_from_its_window_units(
    page: Page, demo: tuple[Path, Path]
) -> None:
    bundle, report = demo
    opened(page, report)
    second = evidence_units(bundle)[1]  # t0099b .. t0122
    ids = [unit["unit_id"] for unit in second]
    page.click('[data-lane="spells"] tr[data-record="1"]')  # spell-2: t0116 - t0117
    direct = {"t0116", "t0117"}
    assert shown_units(page) == [(i, "direct" if i in direct else "window") for i in ids]
    row = page.locator('#view .unit[data-unit-id="t0116"]')
    unit = second[ids.index("t0116")]
    assert row.locator(".time").text_content() == clock(unit["metadata"]["start_ms"]) == "0:01:19"
    assert row.locator(".speaker").text_content() == unit["metadata"]["speaker"] == "SAM"
    assert row.locator(".text").text_content() == "cited" + unit["text"]
    assert page.locator('[data-lane="spells"] tr.selected').get_attribute("data-record") == "1"

    page.click('[data-lane="npcs"] tr[data-record="0"] button.ref >> nth=1')  # t0102; t0120-t0121
    first = [unit["unit_id"] for unit in evidence_units(bundle)[0]]
    direct = {"t0102", "t0120", "t0121"}
    assert shown_units(page) == [(i, "direct" if i in direct else "window") for i in first + ids]


def test_a_record_whose_lane_is_not_published_shows_its_unit_ids(
    page: Page, demo: tuple[Path, Path]
) -> None:
    opened(page, demo[1])
    page.click('[data-lane="scene-descriptions"] tr[data-record="0"]')
    assert shown_units(page) == []
    assert page.locator("#view .unresolved").all_text_contents() == [
        "t0100 \u2013 t0122: not in the evidence context (the lane is not allowlisted)"
    ]


def test_from_a_unit_to_every_record_that_cites_it(page: Page, demo: tuple[Path, Path]) -> None:
    opened(page, demo[1])
    page.click('#view .unit[data-unit-id="t0116"] button.cited-by')
    assert page.text_content("#citations > div") == "Unit t0116 is cited by 2 records:"
    items = page.eval_on_selector_all(
        "#citations li", "items => items.map(li => [li.dataset.lane, li.dataset.record])"
    )
    assert items == [["combat-turns", "2"], ["spells", "1"]]  # turn-3 and spell-2
    page.click('#citations li[data-lane="spells"] button')
    assert page.locator('[data-lane="spells"] tr.selected').get_attribute("data-record") == "1"
    assert ("t0116", "direct") in shown_units(page)


def test_filters_by_lane_and_by_speaker(page: Page, demo: tuple[Path, Path]) -> None:
    bundle, report = demo
    opened(page, report)
    first, second = evidence_units(bundle)
    page.select_option("#lane-filter", "item-events")
    lanes = page.eval_on_selector_all("#records .lane", "l => l.map(x => x.dataset.lane)")
    assert lanes == ["item-events"]
    assert [i for i, _ in shown_units(page)] == [unit["unit_id"] for unit in second]
    page.select_option("#lane-filter", "")
    page.select_option("#speaker-filter", label="SAM")
    sam = [u["unit_id"] for u in first + second if u["metadata"]["speaker"] == "SAM"]
    assert [i for i, _ in shown_units(page)] == sam == ["t0103", "t0116", "t0122"]
    shown = page.eval_on_selector_all(
        "#records .lane",
        "l => l.map(x => [x.dataset.lane, x.querySelectorAll('tr.record').length])",
    )
    # the records citing one of SAM's units: int-1 (t0101 - t0104), turn-3 and spell-2 (t0116)
    assert [(lane, count) for lane, count in shown if count] == [
        ("combat-turns", 1), ("npc-interactions", 1), ("spells", 1)
    ]  # fmt: skip
    assert search(page, "table") == "0 units match"  # MATT's t0113, not SAM's
    assert search(page, "coin") == "1 unit matches"
    assert shown_units(page) == [("t0103", "")]


# -- search, payloads and requests --------------------------------------------------------


def test_search_finds_the_planted_phrase_and_only_it(page: Page, hostile: Path) -> None:
    opened(page, hostile)
    assert search(page, "QUARTZ lantern") == "1 unit matches"
    assert shown_units(page) == [("u05", "")]
    assert page.locator("#view mark").all_text_contents() == ["quartz lantern"]
    assert page.locator("#view .unit .time").all_text_contents() == ["1:02:05"]
    assert search(page, "keyleth") == "1 unit matches"
    assert shown_units(page) == [("u05", "")]
    assert search(page, "line 1") == "2 units match"  # line 10 and line 11 (u03 to u11 shown)
    assert [i for i, _ in shown_units(page)] == ["u10", "u11"]
    assert search(page, "lantern quartz") == "0 units match"


def test_the_payload_in_text_speaker_record_and_title_runs_nothing_and_shows_as_text(
    page: Page, hostile: Path
) -> None:
    opened(page, hostile)
    page.click('[data-lane="spells"] tr[data-record="1"]')
    assert search(page, "onerror") == "1 unit matches"
    page.click('#view .unit[data-unit-id="u07"] button.cited-by')
    assert page.evaluate("window.__xss") is None
    assert page.evaluate("document.images.length + document.scripts.length") == 2
    row = page.locator('#view .unit[data-unit-id="u07"]')
    assert row.locator(".text").text_content() == XSS
    assert row.locator(".speaker").text_content() == XSS_FLAG
    cells = page.locator('[data-lane="spells"] tr[data-record="1"] td').all_text_contents()
    assert cells[2:4] == [XSS_FLAG, XSS]
    assert page.text_content("h1") == XSS
    assert page.title() == XSS


def test_no_request_is_made_but_for_the_file_itself(
    page: Page, requests: Requests, demo: tuple[Path, Path], hostile: Path, tmp_path: Path
) -> None:
    control = tmp_path / "control.html"
    control.write_text(
        '<img src="x.png"><script>fetch("http://127.0.0.1:9/y").catch(() => 0)</script>'
    )
    page.goto(control.as_uri())
    page.wait_for_load_state("networkidle")
    # the recorder sees every request, whatever the order they are made in
    assert sorted(requests.urls) == sorted(
        [control.as_uri(), (tmp_path / "x.png").as_uri(), "http://127.0.0.1:9/y"]
    )
    for report in (demo[1], hostile):
        requests.urls.clear()
        opened(page, report)
        page.click('[data-lane="spells"] tr[data-record="1"]')
        search(page, "the")
        page.click("#view button.cited-by >> nth=0")
        page.select_option("#speaker-filter", index=1)
        page.wait_for_load_state("networkidle")
        assert requests.urls == [report.as_uri()]


# -- a large evidence document ------------------------------------------------------------


def test_a_100000_unit_evidence_document_loads_a_page_at_a_time_and_is_searchable(
    page: Page, big: Path
) -> None:
    opened(page, big)
    assert page.text_content("#status") == f"{BIG_UNITS} of {BIG_UNITS} units"
    assert page.locator("#view .unit").count() == PAGE
    assert page.evaluate("document.getElementsByTagName('*').length") < 2000
    assert page.text_content("#view .pager .page") == f"page 1 of {BIG_UNITS // PAGE}"
    assert search(page, PLANTED) == "1 unit matches"
    assert shown_units(page) == [("t077777", "")]
    assert page.locator("#view .unit .time").all_text_contents() == ["21:36:17"]
    assert search(page, "oracle") == "1 unit matches"
    assert search(page, "text of unit 4242") == "11 units match"  # 4242 and 42420 .. 42429
    assert [i for i, _ in shown_units(page)] == ["t004242", *[f"t04242{d}" for d in range(10)]]
    assert search(page, "text of unit") == f"{BIG_UNITS - 1} units match"
    assert page.locator("#view .unit").count() == PAGE
    page.fill("#search", "")
    page.click('[data-lane="spells"] tr[data-record="1"]')  # spell-one: t077777
    marks = shown_units(page)
    assert len(marks) == 200  # the context's page holding the cited unit
    assert [i for i, mark in marks if mark == "direct"] == ["t077777"]
    assert marks[0] == ("t077600", "window")


def test_the_screenshot_of_the_documentation(
    page: Page, demo: tuple[Path, Path], tmp_path: Path
) -> None:
    """docs/report.md shows this screenshot; STREAMER_REPORT_SCREENSHOT=docs/report.png
    writes it there."""
    opened(page, demo[1])
    page.click('[data-lane="spells"] tr[data-record="1"]')
    target = Path(os.environ.get("STREAMER_REPORT_SCREENSHOT", tmp_path / "report.png"))
    page.screenshot(path=str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
