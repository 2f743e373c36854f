"""The tests never import the benchmark harness: of ``benchmarks/`` they may use only the
data generators and constants shared with them (``SHARED``), and the launcher as a program
(``benchmarks/launch.py``, run as a subprocess for exact peak RSS). A test that needs more
of the harness is testing the harness, not the product."""

from __future__ import annotations

import ast

from tests.support import REPO

SHARED = frozenset(
    {"benchmarks.generate", "benchmarks.transcripts", "benchmarks.browser", "benchmarks.profiles"}
)


def _imported_modules(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _harness_imports(path_text: str) -> list[str]:
    found = _imported_modules(ast.parse(path_text))
    modules = {name for name in found if name == "benchmarks" or name.startswith("benchmarks.")}
    # "from benchmarks.generate import generate" names benchmarks.generate.generate too
    return sorted(
        name
        for name in modules
        if not any(name == shared or name.startswith(shared + ".") for shared in SHARED)
        and name != "benchmarks"
    )


def test_no_test_imports_the_benchmark_harness() -> None:
    offenders = {
        path.name: _harness_imports(path.read_text(encoding="utf-8"))
        for path in sorted((REPO / "tests").glob("*.py"))
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_boundary_check_sees_a_harness_import() -> None:
    assert _harness_imports("from benchmarks.run import main\nimport benchmarks.measure\n") == [
        "benchmarks.measure",
        "benchmarks.run",
        "benchmarks.run.main",
    ]
    assert _harness_imports("from benchmarks.generate import Dataset, generate\n") == []
