"""Debian's chromium as the report's measurements and browser tests start it (shared with
``tests/test_report_browser.py``, so both open the page the same way): data only."""

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
