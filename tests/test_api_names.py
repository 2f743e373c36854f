"""The Python API's names: each is its module's object, however the modules were
imported, and a command imports only what it uses."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from streamer import api
from tests.support import REPO


@pytest.mark.parametrize("name", api.__all__)
def test_every_name_is_the_object_of_its_module(name: str) -> None:
    """Even once the submodule of the same name (``api.run``, ``api.report``...) has been
    imported, the name is the function, as the documentation's examples call it."""
    module = importlib.import_module(api._MODULE_OF[name])
    assert getattr(api, name) is getattr(module, name)


def test_the_api_lists_exactly_its_names() -> None:
    assert sorted(api.__all__) == sorted(api._MODULE_OF)
    assert set(api.__all__) <= set(dir(api))
    with pytest.raises(AttributeError):
        _ = api.no_such_name  # type: ignore[attr-defined]


def _imported_after(code: str) -> list[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
    )
    return result.stdout.split()


def test_the_command_line_starts_without_the_stages() -> None:
    """Start-up imports the commands' declarations, not their work: no stage, no
    configuration, no YAML."""
    modules = _imported_after("import streamer.cli.main")
    heavy = ("streamer.extraction", "streamer.normalization", "streamer.report", "yaml")
    assert [m for m in modules if m.startswith(heavy)] == []


def test_evidence_imports_neither_extraction_nor_report() -> None:
    modules = _imported_after("from streamer import api\napi.evidence")
    heavy = ("streamer.extraction", "streamer.normalization", "streamer.report", "httpx")
    assert [m for m in modules if m.startswith(heavy)] == []
