"""The event loop of an extraction run and the CLI's signal handlers: outside the main
thread (the Python API called from a worker thread) nothing about signals is changed,
even when the CLI's handlers are installed in the process."""

from __future__ import annotations

import signal
import threading

from streamer.cli import main as cli_main
from streamer.extraction.signals import run_until_signal


def test_a_run_in_another_thread_leaves_signals_alone() -> None:
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, cli_main._terminate)
    try:
        ran: list[str] = []
        errors: list[BaseException] = []

        async def work() -> None:
            ran.append(threading.current_thread().name)

        def target() -> None:
            try:
                run_until_signal(work)
            except BaseException as error:
                errors.append(error)

        thread = threading.Thread(target=target, name="api-worker")
        thread.start()
        thread.join()
        assert (ran, errors) == (["api-worker"], [])
        assert signal.getsignal(signal.SIGTERM) is cli_main._terminate
    finally:
        signal.signal(signal.SIGTERM, previous)
