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

from benchmarks.browser import ARGS
from benchmarks.browser import CHROMIUM as BENCH_CHROMIUM
from streamer import api
from tests.bundle_support import DEMO
from tests.report_support import (
    PLANTED,
    XSS,
    XSS_FLAG,
    big_case,
    build,
    demo_bundle,
    hostile_case,
    rejections_file,
)
from tests.support import REPO

CHROMIUM = Path(BENCH_CHROMIUM)
BIG_UNITS = 100_000
PAGE = 100  # rows a unit list shows at once (report/assets/tables.js)

try:
    from playwright.sync_api import BrowserContext, Dialog, Page, Playwright, sync_playwright
except ImportError:  # pragma: no cover - the lock file installs it
    sync_playwright = None  # type: ignore[assignment]
if (sync_playwright is None or not CHROMIUM.exists()) and not os.environ.get("CI"):
    pytest.skip(
        "browser tests: no chromium at /usr/bin/chromium or no playwright "
        "(apt-get install -y chromium; make venv)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as started:
        yield started


def launched(
    playwright: Playwright, profile: Path, *, width: int = 1400, scripts: bool = True
) -> BrowserContext:
    """Debian's chromium, headless, with a profile of its own (``scripts``: JavaScript on)."""
    return playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(CHROMIUM),
        headless=True,
        args=ARGS,
        viewport={"width": width, "height": 900},
        java_script_enabled=scripts,
    )


@pytest.fixture(scope="module")
def browser(
    playwright: Playwright, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BrowserContext]:
    context = launched(playwright, tmp_path_factory.mktemp("profile"))
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


REJECTED = {"spells": {"outside_chunk": 2, "unsupported": 1}, "npcs": {"invalid_record": 1}}


@pytest.fixture(scope="module")
def party(tmp_path_factory: pytest.TempPathFactory, demo: tuple[Path, Path]) -> Path:
    """The demo bundle's report with the demo glossary's party and some rejections."""
    root = tmp_path_factory.mktemp("party")
    rejections = rejections_file(root / "rejections.jsonl", REJECTED)
    return report_of(
        demo[0], root / "report.html", glossary=DEMO / "campaign.yaml", rejections=rejections
    )


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    bundle = build(hostile_case(root / "case"), root / "bundle")
    rejections = rejections_file(root / "rejections.jsonl", {XSS: {XSS_FLAG: 1}})
    return report_of(bundle, root / "report.html", title=XSS, rejections=rejections)


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
    # the ID column is hidden until asked for
    assert cells == ["1", record["item"], record["event"], record["holder"],
                     "t0118 \u2013 t0119"]  # fmt: skip


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
    assert search(page, "alert(1)") == "1 unit matches"
    page.click('#view .unit[data-unit-id="u07"] button.cited-by')
    assert page.evaluate("window.__xss") is None
    assert page.evaluate("document.images.length + document.scripts.length") == 2
    row = page.locator('#view .unit[data-unit-id="u07"]')
    assert row.locator(".text").text_content() == XSS
    assert row.locator(".speaker").text_content() == XSS_FLAG
    cells = page.locator('[data-lane="spells"] tr[data-record="1"] td').all_text_contents()
    assert cells[1:3] == [XSS_FLAG, XSS]
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


# -- the page a game master reads ---------------------------------------------------------

WIDTHS = (420, 768, 1400)
OVERFLOW = """() => { const width = document.documentElement.clientWidth; const out = [];
    for (const node of document.querySelectorAll('body *')) {
      const box = node.getBoundingClientRect();
      if (box.width && (box.right > width + 0.5 || box.left < -0.5)) out.push(node.tagName);
    }
    return [document.documentElement.scrollWidth - width, out]; }"""


def text_columns(page: Page) -> list[float]:
    widths: list[float] = page.eval_on_selector_all(
        "#view .unit .text", "texts => texts.map(t => t.getBoundingClientRect().width)"
    )
    return widths


def test_at_each_width_nothing_is_wider_than_the_viewport_and_the_text_has_room(
    page: Page, party: Path, tmp_path: Path
) -> None:
    """docs/report.md shows these screenshots; STREAMER_REPORT_SCREENSHOTS=docs writes
    docs/report-420.png, docs/report-768.png and docs/report-1400.png there."""
    folder = Path(os.environ.get("STREAMER_REPORT_SCREENSHOTS", tmp_path))
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        opened(page, party)
        assert page.evaluate(OVERFLOW) == [0, []], width
        assert len(text_columns(page)) == 20 and min(text_columns(page)) >= 200, width
        page.click('[data-lane="spells"] tr[data-record="1"]')
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate(OVERFLOW) == [0, []], width
        assert len(text_columns(page)) == 14 and min(text_columns(page)) >= 200, width
        # one column below 800 px: the records, then the evidence below them
        records, evidence = (
            page.locator(f"#{id}").bounding_box() for id in ("records", "evidence")
        )
        assert records is not None and evidence is not None
        assert (evidence["y"] >= records["y"] + records["height"]) == (width < 800), width
        # a long unit ID is cut short, its whole value in its title (hover) and on focus
        uid = page.locator('#view .unit[data-unit-id="t0099b"] .uid')
        assert uid.get_attribute("title") == "t0099b"
        page.evaluate("document.getElementById('records').scrollTop = 0")
        target = folder / f"report-{width}.png"
        page.screenshot(path=str(target), full_page=width < 800)
        assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_select_then_show_all_escape_and_back_return_to_everything(page: Page, party: Path) -> None:
    opened(page, party)
    everything = shown_units(page)
    assert len(everything) == 20
    assert page.text_content("#status") == "20 of 20 units"
    assert page.is_hidden("#show-all")
    page.click('[data-lane="spells"] tr[data-record="1"]')
    assert page.text_content("#status") == "14 of 20 units: record 2 of spells"
    assert page.evaluate("location.hash") == "#record=spells%3A2"
    page.click("#show-all")
    assert shown_units(page) == everything and page.evaluate("location.hash") == ""
    assert page.text_content("#status") == "20 of 20 units"
    page.click('[data-lane="npcs"] tr[data-record="0"]')
    assert page.text_content("#status") == "20 of 20 units: record 1 of npcs"
    page.click('#view .unit[data-unit-id="t0116"] button.cited-by')
    assert page.locator("#citations li").count() == 2
    page.keyboard.press("Escape")  # closes the pop-up first
    assert page.locator("#citations li").count() == 0
    assert page.text_content("#status") == "20 of 20 units: record 1 of npcs"
    page.keyboard.press("Escape")
    assert shown_units(page) == everything and page.locator("tr.selected").count() == 0
    page.click('[data-lane="spells"] tr[data-record="0"]')
    page.click('[data-lane="spells"] tr[data-record="1"]')
    page.go_back()
    assert page.text_content("#status") == "14 of 20 units: record 1 of spells"
    page.go_back()
    assert page.text_content("#status") == "20 of 20 units"
    assert page.locator("tr.selected").count() == 0
    # the keyboard alone: a row takes the focus, Enter selects it
    page.focus('[data-lane="item-events"] tr[data-record="0"]')
    page.keyboard.press("Enter")
    assert page.text_content("#status") == "14 of 20 units: record 1 of item-events"
    # a search closes the selection and the pop-up, and says what it covers
    page.click('#view .unit[data-unit-id="t0116"] button.cited-by')
    assert search(page, "zzz") == "0 units match"
    assert page.locator("#citations li").count() == 0
    assert page.text_content("#view .empty") == (
        "No unit of the published evidence matches. The search covers the units the records "
        "cite and their windows: the transcript's other units are not in the bundle."
    )
    assert page.get_attribute("#search", "placeholder") == "Search the published evidence"


def test_labels_unknown_and_the_hidden_id_column(page: Page, party: Path, hostile: Path) -> None:
    opened(page, party)
    headers = page.locator('[data-lane="spells"] thead th').all_text_contents()
    assert headers == ["#", "Spell", "Caster", "Evidence"]
    page.check("#show-ids")
    headers = page.locator('[data-lane="spells"] thead th').all_text_contents()
    assert headers == ["#", "Spell cast", "Spell", "Caster", "Evidence"]
    cells = page.locator('[data-lane="spells"] tr[data-record="0"] td').all_text_contents()
    assert cells[:4] == ["1", "spell-1", "Hunter's Mark", "Vex'ahlia"]
    assert page.evaluate("location.hash") == "#ids=1"
    location = page.locator('[data-lane="scene-descriptions"] tr[data-record="1"] td.null')
    assert location.text_content() == "unknown"
    meta = page.text_content("header .source") or ""
    assert meta.startswith("demo-slayers-take, 2 min, 25 units")
    assert page.is_hidden("header details.digest code")
    page.click("header details.digest summary")
    assert page.text_content("header details.digest code") == (
        "sha256:5b92514bd76392fec3a98285ece31a5ef658ebee5f8b1f826ba5cd4dbf1c2ab6"
    )
    # a column no record fills is not shown (no round is known in the hostile bundle)
    opened(page, hostile)
    headers = page.locator('[data-lane="combat-turns"] thead th').all_text_contents()
    assert headers == ["#", "Combatant", "Evidence"]


def test_member_filters_combine_with_search_and_columns_sort(page: Page, party: Path) -> None:
    opened(page, party)
    lane = '[data-lane="combat-turns"]'
    options = page.locator(f'{lane} .member-filters select[data-column="combatant"] option')
    assert options.all_text_contents() == [
        "every Combatant", "Grog (1)", "Scanlan (1)", "Vex'ahlia (1)"
    ]  # fmt: skip
    page.select_option(f'{lane} .member-filters select[data-column="combatant"]', label="Grog (1)")
    assert page.locator(f"{lane} tr.record").count() == 1
    assert page.text_content(f"{lane} h2 .count") == "1 of 3 records"
    # the units: those of the contexts the filtered records cite; the search within them
    assert len(shown_units(page)) == 14
    assert search(page, "mark") == "1 unit matches"  # t0111, in the second context
    assert shown_units(page) == [("t0111", "")]
    assert search(page, "coin") == "0 units match"  # t0103 is in the first context only
    hash_ = page.evaluate("location.hash")
    page.fill("#search", "")
    # the view is in the fragment: a link opens it again
    page.goto(party.as_uri() + hash_)
    page.wait_for_selector("html[data-ready=true]", state="attached")
    assert page.locator(f"{lane} tr.record").count() == 1
    assert page.input_value("#search") == "coin"
    opened(page, party)
    page.click(f'{lane} thead th[data-column="combatant"] button')
    order = page.locator(f'{lane} td[data-column="combatant"]').all_text_contents()
    assert order == ["Grog", "Scanlan", "Vex'ahlia"]
    page.click(f'{lane} thead th[data-column="combatant"] button')
    order = page.locator(f'{lane} td[data-column="combatant"]').all_text_contents()
    assert order == ["Vex'ahlia", "Scanlan", "Grog"]
    assert page.get_attribute(f'{lane} thead th[data-column="combatant"]', "aria-sort") == (
        "descending"
    )
    # unknown stays last either way
    scenes = '[data-lane="scene-descriptions"]'
    page.click(f'{scenes} thead th[data-column="location"] button')
    page.click(f'{scenes} thead th[data-column="location"] button')
    order = page.locator(f'{scenes} td[data-column="location"]').all_text_contents()
    assert order == ["The Slayer's Take", "unknown"]
    page.click(f"{lane} thead th >> nth=0 >> button")
    order = page.locator(f'{lane} td[data-column="combatant"]').all_text_contents()
    assert order == ["Vex'ahlia", "Grog", "Scanlan"]  # the bundle's order


def test_the_timeline_has_a_mark_per_record_in_time_order_and_a_click_selects(
    page: Page, party: Path
) -> None:
    opened(page, party)
    marks = page.eval_on_selector_all(
        "#timeline .mark",
        "marks => marks.map(m => [m.dataset.lane, m.dataset.record, Number(m.dataset.x)])",
    )
    # scene-descriptions is not published: no mark; each other record at its first unit
    lanes = [(lane, record) for lane, record, _ in marks]
    assert lanes == [("combat-turns", "0"), ("combat-turns", "1"), ("combat-turns", "2"),
                     ("item-events", "0"), ("npc-interactions", "0"), ("npcs", "0"),
                     ("spells", "0"), ("spells", "1")]  # fmt: skip
    x = {(lane, record): value for lane, record, value in marks}
    # t0110 (0:00:50) < t0114 (1:08) < t0116 (1:19); t0102 (npcs) before all
    assert x[("npcs", "0")] < x[("combat-turns", "0")] < x[("combat-turns", "1")]
    assert x[("combat-turns", "1")] < x[("combat-turns", "2")] == x[("spells", "1")]
    assert x[("spells", "0")] < x[("combat-turns", "1")]
    page.click('#timeline .mark[data-lane="spells"][data-record="1"]', force=True)
    assert page.text_content("#status") == "14 of 20 units: record 2 of spells"
    assert page.get_attribute('#timeline .mark[data-lane="spells"][data-record="1"]', "class") == (
        "mark selected"
    )
    lines = page.locator("#glance ul.summary li").all_text_contents()
    assert lines[-1] == "spells 2 records \u00b7 Spell: 2 distinct \u00b7 Caster: 2 distinct"


def test_the_speaker_filter_offers_the_characters_of_the_glossary(page: Page, party: Path) -> None:
    opened(page, party)
    options = page.locator("#speaker-filter option").all_text_contents()
    assert options == ["all speakers", "LAURA (Vex'ahlia)", "LIAM (Vax'ildan)", "MATT",
                       "SAM (Scanlan)", "TRAVIS (Grog)"]  # fmt: skip
    page.select_option("#speaker-filter", label="SAM (Scanlan)")
    assert [i for i, _ in shown_units(page)] == ["t0103", "t0116", "t0122"]
    assert page.locator("#view .unit .speaker").all_text_contents() == ["SAM (Scanlan)"] * 3
    assert search(page, "scanlan") == "3 units match"  # the character is searchable


def test_the_rejected_candidates_are_counted_per_lane_by_reason(page: Page, party: Path) -> None:
    opened(page, party)
    items = page.eval_on_selector_all(
        "#rejections li",
        """items => items.map(li => [li.dataset.lane, li.dataset.rejected,
            Array.from(li.querySelectorAll('.reason')).map(r => [r.dataset.reason,
            r.dataset.count])])""",
    )
    assert items == [
        ["combat-turns", "0", []], ["item-events", "0", []], ["npc-interactions", "0", []],
        ["npcs", "1", [["invalid_record", "1"]]], ["scene-descriptions", "0", []],
        ["spells", "3", [["outside_chunk", "2"], ["unsupported", "1"]]],
    ]  # fmt: skip
    assert page.text_content('#rejections li[data-lane="spells"]') == (
        "spells 3 candidates: 2 outside chunk, 1 unsupported"
    )
    assert page.text_content('#rejections li[data-lane="npc-interactions"]') == (
        "npc-interactions none"
    )


def test_the_new_places_show_payloads_as_text(page: Page, hostile: Path) -> None:
    opened(page, hostile)
    # the party's character (from the bundle), the filters' values, the timeline's titles,
    # the rejections' lane and reason
    assert XSS_FLAG in page.locator("#speaker-filter option").all_text_contents()[2]
    page.select_option("#speaker-filter", index=2)
    page.select_option('[data-lane="spells"] .member-filters select >> nth=0', index=2)
    page.click('#timeline .mark[data-lane="spells"]', force=True)
    assert page.evaluate("window.__xss") is None
    assert page.evaluate("document.images.length + document.scripts.length") == 2
    assert page.text_content('#rejections li[data-rejected="1"]') == (
        f"{XSS} 1 candidate: 1 {XSS_FLAG.replace('_', ' ')}"  # a reason's _ reads as a space
    )
    titles = page.eval_on_selector_all("#timeline .mark title", "t => t.map(x => x.textContent)")
    assert any(XSS in title for title in titles)
    assert page.locator('#view .unit[data-unit-id="u03"] .speaker').text_content() == (
        f"GM ({XSS_FLAG})"
    )


# -- the campaign page --------------------------------------------------------------------


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A batch output folder of two sessions (the demo, then the hostile bundle), a failed
    third, and its campaign page."""
    root = tmp_path_factory.mktemp("campaign")
    out = root / "out"
    out.mkdir()
    demo_bundle(out / "demo-slayers-take")
    build(hostile_case(root / "case"), out / "doc-1")
    for document_id in ("demo-slayers-take", "doc-1"):
        report_of(out / document_id, out / f"{document_id}.html")
    lines = [
        {"row": 2, "document_id": "demo-slayers-take", "status": "ok"},
        {"row": 3, "document_id": "doc-1", "status": "skipped"},
        {"row": 4, "document_id": "lost", "status": "failed"},
    ]
    (out / "batch.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    result = api.campaign(out, glossary=DEMO / "campaign.yaml")
    assert result.receipt() == {
        "status": "ok", "campaign": "index.html", "sessions": 3, "linked": 2, "lanes": 7
    }  # fmt: skip
    return result.page


def test_the_campaign_page_joins_the_sessions_and_links_to_their_records(
    page: Page, campaign: Path
) -> None:
    """The page of the registry: sessions, NPCs, items, casts by character, each a link
    to the session's report at the record (by its ID). STREAMER_REPORT_SCREENSHOTS=docs
    writes docs/report-campaign.png (1000 px) and docs/report-campaign-phone.png."""
    page.set_viewport_size({"width": 1000, "height": 700})
    page.goto(campaign.as_uri())
    rows = page.eval_on_selector_all(
        "#sessions tbody tr",
        "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))",
    )
    assert rows == [
        ["1", "demo-slayers-take published", "combat-turns 3 item-events 1 npc-interactions 1 "
         "npcs 1 scene-descriptions 2 spells 2"],
        ["2", "doc-1 published", "combat-turns 1 npcs 1 party-roster 1 spells 2"],
        ["3", "lost failed", ""],
    ]  # fmt: skip
    assert page.locator("#sessions a").all_text_contents() == ["demo-slayers-take", "doc-1"]
    assert page.locator("nav.toc a").all_text_contents() == [
        "Items", "Non-player characters", "Spells by character"
    ]  # fmt: skip
    # Brenna is one NPC across both sessions; the payload stays text
    links = "Array.from(r.querySelectorAll('a')).map(a => [a.textContent, a.getAttribute('href')])"
    npcs = page.eval_on_selector_all(
        "#npcs tbody tr", f"rows => rows.map(r => [r.cells[0].textContent, {links}])"
    )
    assert npcs == [["Brenna", [["demo-slayers-take", "demo-slayers-take.html#record=npcs:npc-brenna"],
                                ["doc-1", "doc-1.html#record=npcs:npc-1"]]]]  # fmt: skip
    casts = page.eval_on_selector_all(
        "#casts tbody tr", f"rows => rows.map(r => [r.cells[0].textContent, {links}])"
    )
    assert casts == [
        [XSS, [[XSS_FLAG, "doc-1.html#record=spells:spell-x"]]],
        ["Scanlan", [["Thunderwave", "demo-slayers-take.html#record=spells:spell-2"]]],
        ["Vex'ahlia", [["Hunter's Mark", "demo-slayers-take.html#record=spells:spell-1"]]],
    ]
    assert page.evaluate("window.__xss") is None
    assert page.evaluate("document.images.length + document.scripts.length") == 0
    assert page.evaluate(OVERFLOW) == [0, []]
    folder = os.environ.get("STREAMER_REPORT_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / "report-campaign.png"), full_page=True)
    page.set_viewport_size({"width": 420, "height": 900})  # a phone: nothing overflows
    assert page.evaluate(OVERFLOW) == [0, []]
    if folder:
        page.screenshot(path=str(Path(folder) / "report-campaign-phone.png"), full_page=True)


def test_a_campaign_link_opens_the_session_page_at_its_record(
    page: Page, requests: Requests, campaign: Path
) -> None:
    page.goto(campaign.as_uri())
    page.click('#npcs a[data-session="doc-1"]')
    page.wait_for_selector("html[data-ready=true]", state="attached")
    assert page.text_content("#status") == "9 of 9 units: record 1 of npcs"
    assert page.locator('[data-lane="npcs"] tr.selected').count() == 1
    page.go_back()
    page.click('#casts a[data-session="doc-1"] >> nth=0')
    page.wait_for_selector("html[data-ready=true]", state="attached")
    assert page.text_content("#status") == "9 of 9 units: record 2 of spells"
    assert page.evaluate("window.__xss") is None
    assert sorted(set(requests.urls)) == sorted(
        {campaign.as_uri(), (campaign.parent / "doc-1.html").as_uri()}
    )


def test_a_lane_that_cites_no_unit_has_no_unpublished_note(page: Page, hostile: Path) -> None:
    opened(page, hostile)
    assert page.locator('[data-lane="party-roster"] .notice').count() == 0
    assert page.locator('[data-lane="party-roster"] thead th').all_text_contents() == [
        "#", "Player", "Character"
    ]  # fmt: skip


def test_an_empty_lane_says_why_and_the_lanes_not_run_are_named(page: Page, tmp_path: Path) -> None:
    session = REPO / "fixtures" / "quickstart" / "session.vtt"
    result = api.run(None, session, None, tmp_path / "out", warn=lambda _: None)
    opened(page, result.report)
    no_npc = (
        "the glossary names no non-player character (its names, less the party's) and the "
        "transcript names none the rules can tell"
    )
    assert page.text_content('#glance li[data-lane="npcs"]') == f"npcs 0 records: {no_npc}"
    assert page.text_content("#glance li.not-run") == (
        "not run combat-turns, npc-interactions, scene-descriptions (they need a model "
        "server: streamer run --model-url URL --model NAME)"
    )
    assert page.text_content('.lane[data-lane="npcs"] .empty') == f"no records: {no_npc}"


def test_the_timeline_places_records_along_the_whole_session(page: Page, tmp_path: Path) -> None:
    lines = [f"The road goes on, mile {n}." for n in range(1000)]
    lines[10] = "I cast Shield."
    lines[900] = "I cast Fireball at them."
    transcript = tmp_path / "session.txt"
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = api.run(None, transcript, None, tmp_path / "out", warn=lambda _: None)
    opened(page, result.report)
    marks = page.eval_on_selector_all(
        '#timeline .row[data-lane="spells"] .mark', "marks => marks.map(m => m.dataset.x)"
    )
    assert marks == ["10", "900.9"]  # units 11 and 901 of 1,000, not side by side
    assert page.text_content("#timeline .scale") == "unit 1unit 1,000"


def test_the_glance_and_the_tables_are_read_without_a_script(
    playwright: Playwright, tmp_path: Path
) -> None:
    session = REPO / "fixtures" / "quickstart" / "session.vtt"
    result = api.run(None, session, None, tmp_path / "out", warn=lambda _: None)
    context = launched(playwright, tmp_path / "profile", width=420, scripts=False)
    try:
        page = context.new_page()
        page.goto(result.report.as_uri())
        assert page.locator("#app").inner_html() == ""  # no script ran
        glance = page.locator(".static ul").first.inner_text().splitlines()
        rows = page.eval_on_selector_all(
            ".static table tbody tr",
            "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))",
        )
        headings = page.eval_on_selector_all(".static th", "cells => cells.map(c => c.textContent)")
    finally:
        context.close()
    assert glance[3:] == [
        "spells 2 records",
        "not run combat-turns, npc-interactions, scene-descriptions (they need a model "
        "server: streamer run --model-url URL --model NAME)",
    ]
    assert headings == ["#", "Spell", "Caster", "Evidence"]
    assert rows == [["1", "Shield", "JUNE", "u000002"], ["2", "Fireball", "OSKAR", "u000004"]]
