"""Every small input read whole (configuration, glossary, batch manifest) goes through
one bounded reader: a FIFO is refused at once instead of hanging, a missing file and
non-UTF-8 bytes give their own lines, each naming the file and never its content."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from streamer.api.batch_manifest import read_manifest
from streamer.framework.errors.types import ConfigurationError
from streamer.normalization.glossary import load_glossary


def _glossary(path: Path) -> object:
    return load_glossary(path, ("party", "names"))


READERS: list[tuple[str, Callable[[Path], object]]] = [
    ("glossary", _glossary),
    ("manifest", read_manifest),
]


@pytest.mark.parametrize(("what", "read"), READERS)
def test_a_fifo_is_refused_without_blocking(
    tmp_path: Path, what: str, read: Callable[[Path], object]
) -> None:
    fifo = tmp_path / "input.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigurationError) as caught:
        read(fifo)
    assert caught.value.one_line() == (
        f"{what} {fifo} is not a regular file (hint: name a regular file)"
    )


@pytest.mark.parametrize(("what", "read"), READERS)
def test_missing_and_undecodable_files(
    tmp_path: Path, what: str, read: Callable[[Path], object]
) -> None:
    absent = tmp_path / "absent.yaml"
    with pytest.raises(
        ConfigurationError, match=rf"^{what} {re.escape(str(absent))} does not exist"
    ):
        read(absent)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"SECRET \xe9\n")
    with pytest.raises(ConfigurationError) as caught:
        read(latin)
    assert caught.value.one_line() == f"{what} {latin} cannot be read (not UTF-8 text)"
