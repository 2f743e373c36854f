"""Test-suite settings: hypothesis never fails a test for being slow (the machine may be
shared; speed is measured by ``make bench``, not asserted here); and the terminating
signals start at their defaults.

A test run started in the background of a shell script (``make test &``, ``nohup``)
inherits SIGINT and SIGQUIT (or SIGHUP) ignored, and so would every streamer it starts:
streamer keeps an inherited ignored signal ignored, by design, so the tests that signal a
run would see it finish instead. The suite restores the defaults for itself and its
children (the tests of the ignored case set it up themselves).

The ``sleeps`` fixture records the backoff's sleeps of ``api.extract`` instead of sleeping.
"""

import functools
import signal
from typing import Any

import pytest
from hypothesis import settings

from streamer.api import model_answers
from streamer.extraction.transport import ChatTransport
from tests.extract_support import Sleeps

settings.register_profile("streamer", deadline=None, print_blob=True)
settings.load_profile("streamer")

for _signum in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(_signum) == signal.SIG_IGN:
        signal.signal(
            _signum,
            signal.default_int_handler if _signum == signal.SIGINT else signal.SIG_DFL,
        )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line when the real-server tests were skipped, saying why (read from their skip
    reports, which reach this process from pytest-xdist's workers too)."""
    for report in terminalreporter.stats.get("skipped", []):
        if not report.nodeid.startswith("tests/test_model_server.py"):
            continue
        reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        if not reason.startswith("CRD3 is not in"):  # no data: skipped like every CRD3 test
            terminalreporter.write_line(f"streamer: the real-server tests were skipped: {reason}")
            return


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> Sleeps:
    """The backoff's sleep of every transport ``api.extract`` builds, recorded instead of
    slept."""
    recorded = Sleeps()
    monkeypatch.setattr(
        model_answers, "ChatTransport", functools.partial(ChatTransport, sleep=recorded)
    )
    return recorded
