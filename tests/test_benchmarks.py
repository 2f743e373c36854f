"""The benchmark harness on tiny inputs: the profiles are deterministic, every contender's
output checks identical to ``streamer evidence``, a wrong answer is reported as wrong, and
the writers write. No timing is asserted (speed belongs in ``make bench``)."""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import orjson
import pytest

from benchmarks import contenders as registry
from benchmarks.cases import Case, Result, Settings
from benchmarks.checks import check_same, check_units, wrong
from benchmarks.contenders import Script
from benchmarks.contenders.floor import JSON_VARIANTS, digest, json_units, jsonl_floor
from benchmarks.generate import Dataset, generate
from benchmarks.measure import Child
from benchmarks.plot import plot
from benchmarks.profiles import PROFILES
from benchmarks.report import write_json, write_markdown
from benchmarks.runner import run_contender
from streamer.framework.canonical_json import SemanticDigest

TINY = 200_000
PEERS = {"polars": "polars", "duckdb": "duckdb"}


def _present(profile: str) -> None:
    absent = PROFILES[profile].missing()
    if absent:
        pytest.skip(absent)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("profile", list(PROFILES))
def test_a_profile_writes_the_same_bytes_every_time(tmp_path: Path, profile: str) -> None:
    _present(profile)
    first = generate(tmp_path / "a", TINY, profile=profile)
    second = generate(tmp_path / "b", TINY, profile=profile)
    for name in (
        "source.json",
        "source.jsonl",
        "streamer.yaml",
        *(f"lanes/{lane}.json" for lane in ("spells", "npcs")),
    ):
        assert _sha(first.root / name) == _sha(second.root / name), name
    assert (first.units, first.digest) == (second.units, second.digest)
    assert first.sizes["jsonl"] >= TINY
    # The header's digest is the semantic digest of the units written.
    lines = (first.root / "source.jsonl").read_bytes().splitlines()
    header = orjson.loads(lines[0])
    semantic = SemanticDigest()
    for line in lines[1:]:
        unit = orjson.loads(line)
        unit.pop("source_ref", None)
        semantic.add(unit)
    assert header["semantic_digest"] == semantic.hexdigest() == first.digest
    assert len(lines) - 1 == first.units


@pytest.mark.parametrize("profile", list(PROFILES))
def test_a_unit_is_the_same_whatever_the_size(tmp_path: Path, profile: str) -> None:
    _present(profile)
    small = generate(tmp_path / "small", TINY // 2, profile=profile, forms=["jsonl"])
    large = generate(tmp_path / "large", TINY, profile=profile, forms=["jsonl"])
    small_units = (small.root / "source.jsonl").read_bytes().splitlines()[1:]
    large_units = (large.root / "source.jsonl").read_bytes().splitlines()[1:]
    assert large.units > small.units
    assert large_units[: len(small_units)] == small_units


def test_the_short_ascii_profile_is_short_and_ascii() -> None:
    units = [unit for unit, _ in islice(PROFILES["short-ascii"].iter_units(7), 5000)]
    sizes = [len(orjson.dumps(unit)) for unit in units]
    assert 250 <= sum(sizes) / len(sizes) <= 350
    assert all(orjson.dumps(unit).isascii() for unit in units)
    assert len({unit["unit_id"] for unit in units}) == len(units)


def test_the_crd3_profile_repeats_the_episodes_with_fresh_ids() -> None:
    _present("crd3")
    from benchmarks.profiles.crd3 import imported_units

    pool = imported_units()
    units = [unit for unit, _ in islice(PROFILES["crd3"].iter_units(7), 2 * len(pool) + 3)]
    assert len({unit["unit_id"] for unit in units}) == len(units)
    strip = [{k: v for k, v in unit.items() if k != "unit_id"} for unit in units]
    assert strip[: len(pool)] == list(pool)
    assert strip[len(pool) : 2 * len(pool)] == list(pool)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return generate(tmp_path_factory.mktemp("tiny"), TINY)


@pytest.mark.parametrize("form", ["json", "jsonl"])
def test_every_json_floor_variant_finds_the_digest(tiny: Dataset, form: str) -> None:
    path = str(tiny.source(form))
    if form == "jsonl":
        assert jsonl_floor(path) == (tiny.units, tiny.digest)
        return
    for read, buffer in JSON_VARIANTS:
        assert digest(json_units(path, read, buffer)) == (tiny.units, tiny.digest)


EXPECTED = {
    "floor": "digest and count right",
    "evidence": "reference output",
    "evidence-stdin": "identical to evidence",
    "bundle": "identical to evidence",
    "naive": "identical to evidence",
    "validate": "bundle valid",
}


def _published(tiny: Dataset, case: Case) -> int:
    document = orjson.loads(case.outputs["evidence"].read_bytes())
    return sum(len(context["units"]) for context in document["contexts"])


@pytest.mark.parametrize("form", ["json", "jsonl"])
def test_every_contender_checks_identical_on_a_tiny_input(
    tiny: Dataset, tmp_path: Path, form: str
) -> None:
    case = Case(tiny, form, tmp_path, Settings(floor_variants="first"))
    # Standalone benchmarks (a browser; a data set of their own) are tested by their owners.
    chosen = [c for c in registry.load() if c.name not in ("report-load", "validate-bench")]
    results = {c.name: run_contender(c, case) for c in chosen}
    assert list(results) == [
        "floor",
        "evidence",
        "evidence-stdin",
        "bundle",
        "validate",
        "naive",
        "jq",
        "polars",
        "duckdb",
        *list(results)[9:],
    ]
    published = _published(tiny, case)
    assert published > 0
    for name, result in results.items():
        if name in PEERS and importlib.util.find_spec(PEERS[name]) is None:
            assert (result.state, result.note) == (
                "skipped",
                f"{PEERS[name]} is not installed (make bench installs it)",
            )
            continue
        assert result.state == "ok", (name, result.note)
        assert result.wall and result.peak_rss, name
        if name in EXPECTED:
            assert result.check == EXPECTED[name], name
        elif name in ("jq", *PEERS):
            assert result.check == f"same {published} units as evidence", name
        assert not wrong(result.check), (name, result.check)


def test_a_wrong_answer_is_reported_as_wrong(tiny: Dataset, tmp_path: Path) -> None:
    """A standalone script registers in a few lines; here one that digests the wrong file."""
    other = generate(tmp_path / "other", TINY // 2)
    floor = registry.load()[0]
    impostor = Script(
        name="impostor",
        summary="the floor, on another transcript",
        module="benchmarks.contenders.floor",
        args=lambda case: ["--form", "jsonl", str(other.source("jsonl"))],
        checker=floor.check,
        capture=True,
    )
    case = Case(tiny, "jsonl", tmp_path)
    result = run_contender(impostor, case)
    assert (result.state, result.check) == ("ok", "DIGEST OR COUNT WRONG")
    assert wrong(result.check)
    assert "impostor" not in case.outputs


def test_the_checks_tell_a_difference(tiny: Dataset, tmp_path: Path) -> None:
    case = Case(tiny, "jsonl", tmp_path, Settings(floor_variants="first"))
    evidence = next(c for c in registry.load() if c.name == "evidence")
    assert run_contender(evidence, case).state == "ok"
    reference = case.outputs["evidence"]
    document = orjson.loads(reference.read_bytes())
    units = [unit for context in document["contexts"] for unit in context["units"]]
    lines = tmp_path / "units.jsonl"
    lines.write_bytes(b"".join(orjson.dumps(unit) + b"\n" for unit in units))
    assert check_units(lines, reference) == f"same {len(units)} units as evidence"
    units[-1] = {**units[-1], "text": units[-1]["text"] + "!"}
    lines.write_bytes(b"".join(orjson.dumps(unit) + b"\n" for unit in units))
    assert check_units(lines, reference) == (
        f"DIFFERENT units from evidence ({len(units)}, expected {len(units)})"
    )
    lines.write_bytes(b"".join(orjson.dumps(unit) + b"\n" for unit in units[::-1]))
    assert wrong(check_units(lines, reference))
    copy = tmp_path / "copy.json"
    copy.write_bytes(reference.read_bytes())
    assert check_same(copy, reference, "evidence") == "identical to evidence"
    copy.write_bytes(reference.read_bytes().replace(b'"window_units":3', b'"window_units":4'))
    assert check_same(copy, reference, "evidence") == "DIFFERS from evidence"


def _results() -> Iterator[Result]:
    for profile, scale in (("synthetic", 1), ("short-ascii", 2)):
        for size, mb in (("10MB", 10), ("30MB", 30)):
            for contender, seconds in (("floor", 0.5), ("evidence", 0.6)):
                yield Result(
                    profile,
                    size,
                    "jsonl",
                    contender,
                    mb * 10**6,
                    "ok",
                    wall=seconds * mb * scale / 10,
                    cpu=seconds,
                    peak_rss=40 << 20,
                    check="digest and count right",
                )
    yield Result("synthetic", "10MB", "jsonl", "jq", 10**7, "skipped", note="jq is not installed")


def test_the_writers_write(tiny: Dataset, tmp_path: Path) -> None:
    results = list(_results())
    env = {"CPU": "test", "polars": "2.1.0"}
    baseline = Child(0, 0.2, 30 << 20, "")
    markdown = tmp_path / "RESULTS.md"
    write_markdown(
        markdown,
        results=results,
        datasets=[(tiny, {"contexts": 3})],
        skipped_profiles={"crd3": "absent"},
        contenders=registry.load(),
        command="python -m benchmarks.run",
        baselines=(baseline, baseline),
        env=env,
        plotted=True,
    )
    text = markdown.read_text()
    assert (
        "| short-ascii | 30MB | jsonl | evidence | 3.60 | 0.60 | 8.3 | 40 | 1.20 | 1.20 | 1.00 |"
        in text
    )
    assert "| synthetic | 10MB | jsonl | jq | skipped | | | | | | | jq is not installed |" in text
    assert "- polars: 2.1.0" in text
    assert "Profile `crd3` skipped: absent." in text
    write_json(tmp_path / "results.json", results=results, datasets=[], command="c", env=env)
    raw = orjson.loads((tmp_path / "results.json").read_bytes())
    assert [r["contender"] for r in raw["results"]][:2] == ["floor", "evidence"]
    assert raw["results"][0]["mb_per_s"] == 10 / 0.5
    png = tmp_path / "results.png"
    assert plot(png, results, ["floor", "evidence", "jq"], "test")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_crd3_profile_is_skipped_cleanly_when_the_episodes_are_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STREAMER_SHARED_DIR", str(tmp_path))
    episodes = tmp_path / "data" / "crd3" / "episodes"
    assert PROFILES["crd3"].missing() == f"the CRD3 episodes are absent ({episodes})"
    assert PROFILES["synthetic"].missing() is None


def test_a_contender_without_what_it_needs_is_skipped_and_says_why(
    tiny: Dataset, tmp_path: Path
) -> None:
    case = Case(tiny, "jsonl", tmp_path, Settings(naive_max=TINY // 2))
    by_name = {c.name: c for c in registry.load()}
    result = run_contender(by_name["evidence-stdin"], case)
    assert (result.state, result.note) == ("skipped", "needs evidence")
    case.outputs["evidence"] = tmp_path / "evidence.json"
    result = run_contender(by_name["naive"], case)
    assert (result.state, result.note) == ("skipped", "input above --naive-max")
