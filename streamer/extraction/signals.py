"""Running the event loop so that a terminating signal ends it cleanly.

The CLI turns SIGTERM, SIGHUP and SIGQUIT into an exception raised by a signal handler
(as Ctrl-C raises ``KeyboardInterrupt``). Raised inside a running event loop, that
exception would surface in whichever task or loop internals it interrupted: wrapped in an
exception group, or leaving the loop unable to unwind. So while the loop runs, each such
signal instead cancels the run; once the run has unwound (requests cancelled, the
transport closed), the signal's own handler is called, outside the loop, and raises as it
would anywhere else. Ctrl-C is handled the same way by ``asyncio.run`` itself.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Coroutine
from typing import Any

TERMINATING = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def run_until_signal(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """``asyncio.run(main())``; a terminating signal with a Python handler cancels it,
    and that handler is then called once the loop has unwound. (Signals are delivered to
    the main thread only: run elsewhere, as the Python API may be, nothing is changed.)"""
    received: list[signal.Signals] = []

    async def guarded() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        handlers = {
            s: signal.getsignal(s)
            for s in TERMINATING
            if callable(signal.getsignal(s))
            and threading.current_thread() is threading.main_thread()
        }

        def cancel(signum: signal.Signals) -> None:
            received.append(signum)
            task.cancel()

        for signum in handlers:
            loop.add_signal_handler(signum, cancel, signum)
        try:
            await main()
        finally:
            for signum, handler in handlers.items():
                loop.remove_signal_handler(signum)
                signal.signal(signum, handler)

    try:
        asyncio.run(guarded())
    except asyncio.CancelledError:
        if not received:
            raise
    if received:
        handler = signal.getsignal(received[0])
        assert callable(handler)
        handler(received[0], None)
