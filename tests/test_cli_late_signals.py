"""A signal arriving once a command is over (while the interpreter shuts down) must not
kill the process by that signal, without its line and its status: ``main()`` run as the
program ignores them just before it exits; called in-process with arguments, it leaves the
caller's handlers alone."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from streamer.cli.main import TERMINATING, main

SIGNALS = (signal.SIGINT, *TERMINATING)


@pytest.fixture
def saved_handlers() -> Iterator[None]:
    saved = {signum: signal.getsignal(signum) for signum in SIGNALS}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


@pytest.mark.usefixtures("saved_handlers")
def test_the_program_ignores_signals_once_its_status_is_decided(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.argv", ["streamer", "--version"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("streamer ")
    assert {signum: signal.getsignal(signum) for signum in SIGNALS} == dict.fromkeys(
        SIGNALS, signal.SIG_IGN
    )


@pytest.mark.usefixtures("saved_handlers")
def test_an_in_process_call_keeps_ctrl_c(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
