"""The Python API's names: each is its module's object, however the modules were
imported, and a command imports only what it uses."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types

import pytest

from streamer import api
from tests.support import REPO


@pytest.mark.parametrize("name", api.__all__)
def test_every_name_is_the_object_of_its_module(name: str) -> None:
    """Even once every submodule has been imported, the name is its module's object, as
    the documentation's examples call it (no submodule is named as a function)."""
    module = importlib.import_module(api.MODULE_OF[name])
    assert getattr(api, name) is getattr(module, name)
    assert not isinstance(getattr(api, name), types.ModuleType)


def test_the_api_lists_exactly_its_names() -> None:
    assert api.__all__ == sorted(api.MODULE_OF)
    assert set(api.__all__) <= set(dir(api))
    with pytest.raises(AttributeError):
        _ = api.no_such_name  # type: ignore[attr-defined]


def test_the_type_checker_reads_the_same_names_from_the_same_modules() -> None:
    """The imports a type checker reads (under ``TYPE_CHECKING``) are exactly the names
    and modules the package imports when a name is first used."""
    tree = ast.parse((REPO / "streamer" / "api" / "__init__.py").read_text(encoding="utf-8"))
    (block,) = [node for node in tree.body if isinstance(node, ast.If)][:1]
    imported = {
        alias.asname or alias.name: statement.module
        for statement in block.body
        if isinstance(statement, ast.ImportFrom)
        for alias in statement.names
    }
    assert imported == api.MODULE_OF


def test_no_submodule_of_the_api_is_named_as_a_function() -> None:
    modules = {path.stem for path in (REPO / "streamer" / "api").glob("*.py")}
    assert modules & set(api.__all__) == set()


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
