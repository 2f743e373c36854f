"""The benchmark harness on tiny inputs: the profiles are deterministic, every contender's
output checks identical to ``streamer evidence``, a wrong answer is reported as wrong, and
the writers write. No timing is asserted (speed belongs in ``make bench``)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from itertools import islice
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from benchmarks import contenders as registry
from benchmarks.cases import Case, Result, Settings
from benchmarks.checks import check_same, check_units, wrong
from benchmarks.contenders import Script
from benchmarks.contenders.evidence_jobs import has_jobs
from benchmarks.contenders.floor import VARIANTS, Variant, run_variant
from benchmarks.generate import Dataset, generate
from benchmarks.measure import Child
from benchmarks.plot import plot
from benchmarks.profiles import PROFILES
from benchmarks.report import write_json, write_markdown
from benchmarks.runner import run_contender
from benchmarks.skips import too_big
from benchmarks.targets import targets
from benchmarks.unit_profile import Profile, Row
from benchmarks.unit_profile import table as profile_table
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
def test_every_floor_variant_finds_the_digest(tiny: Dataset, form: str) -> None:
    path = str(tiny.source(form))
    assert VARIANTS[form][0].method == ("lines" if form == "jsonl" else "cut")
    for variant in VARIANTS[form]:
        # the variant's own block, and blocks smaller than a unit (and than the header)
        for block in (variant.block, 300, 7):
            found = run_variant(path, form, replace(variant, block=block))
            assert found == (tiny.units, tiny.digest), (variant.name, block)


_TRICKY = st.text(alphabet='{}[],:"\\ \n\tab\u00e9\U0001f600', max_size=24)
_UNIT = st.fixed_dictionaries(
    {"unit_id": st.from_regex(r"u[0-9]{1,4}", fullmatch=True), "kind": st.just("utterance")},
    optional={
        "text": _TRICKY,
        "metadata": st.fixed_dictionaries({}, optional={"speaker": _TRICKY}),
    },
).map(lambda unit: {"text": "", **unit})


@given(
    units=st.lists(_UNIT, max_size=12),
    layout=st.sampled_from([(",", ":"), (", ", ": "), (",\n", ":"), (" ,\n\t", " : ")]),
    block=st.integers(min_value=1, max_value=90),
    read=st.sampled_from(["raw", "buffered"]),
)
@hypothesis_settings(max_examples=150, deadline=None)
def test_the_json_cut_floor_is_right_whatever_the_strings_hold(
    tmp_path_factory: pytest.TempPathFactory,
    units: list[dict[str, object]],
    layout: tuple[str, str],
    block: int,
    read: str,
) -> None:
    """Texts full of ``},{``, quotes and escapes; any spacing; any block: the cut floor finds
    the count and the digest a brute-force reference computes."""
    expected = SemanticDigest()
    for unit in units:
        expected.add(unit)
    separator, colon = layout
    items = separator.join(
        json.dumps(unit, separators=(",", colon), ensure_ascii=False) for unit in units
    )
    document = f'{{"document_id":"d","semantic_digest":"x","units":[{items}]}}\n'
    path = tmp_path_factory.mktemp("cut") / "source.json"
    path.write_bytes(document.encode())
    for method in ("cut", "nesting"):
        found = run_variant(str(path), "json", Variant(method, read, block))
        assert found == (len(units), expected.hexdigest()), method


EXPECTED = {
    "floor": "digest and count right",
    "evidence": "reference output",
    "evidence-stdin": "identical to evidence",
    "evidence-jobs": "identical to evidence",
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
        "evidence-jobs",
        "bundle",
        "validate",
        "naive",
        "jq",
        "polars",
        "duckdb",
        *list(results)[10:],
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
        if name == "evidence-jobs" and not has_jobs():
            assert (result.state, result.note) == ("skipped", "streamer has no --jobs")
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
        sizes=[10**7, 3 * 10**7],
        settings=Settings(),
        unit_profile=True,
    )
    text = markdown.read_text()
    assert (
        "## Issue 14's targets\n\n4 met, 4 missed, 16 not measured (of 24 targets). Missed:" in text
    )
    assert (
        "\n- short-ascii 30MB jsonl: evidence / floor wall <= 1.15: 1.20 (3.60 s / 3.00 s)\n"
        in text
    )
    assert (
        "| short-ascii | 30MB | jsonl | evidence / floor wall <= 1.15 | 1.20 (3.60 s / 3.00 s) "
        "| MISSED (1.20 > 1.15) |" in text
    )
    assert "| synthetic | 10MB | jsonl | evidence peak RSS < 64 MiB | 40.0 MiB | MET |" in text
    assert (
        "| naive | both | `--naive-max 1GB` | 8x the input (1.2-2.3 GB at 300 MB) "
        "| runs (~80 MB) | runs (~0.2 GB) |" in text
    )
    assert "`unit-profile.md` (beside this file)" in text
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
    assert (result.state, result.note) == (
        "skipped",
        "200KB above --naive-max 100KB (would need ~0 GB: 8x the input)",
    )


def _run(
    contender: str, wall: float, rss_mib: float, form: str = "jsonl", size: str = "300MB"
) -> Result:
    rss = int(rss_mib * (1 << 20))
    return Result("synthetic", size, form, contender, 10**8, "ok", wall, wall, rss)


def test_the_targets_table_says_met_or_missed_with_the_figure() -> None:
    results = [
        _run("floor", 2.0, 30),
        _run("evidence", 2.4, 60),
        _run("evidence-jobs", 1.5, 40),
        _run("polars", 1.8, 700),
        _run("duckdb", 1.2, 500),
        _run("floor", 2.0, 30, form="json"),
        _run("evidence", 2.5, 70, form="json"),
        Result("synthetic", "300MB", "json", "polars", 10**8, "skipped", note="too big"),
    ]
    rows = [(t.form, t.target, t.measured, t.status) for t in targets(results)]
    assert rows == [
        (
            "jsonl",
            "evidence / floor wall <= 1.15",
            "1.20 (2.40 s / 2.00 s)",
            "MISSED (1.20 > 1.15)",
        ),
        ("jsonl", "evidence wall < polars wall", "evidence-jobs 1.50 s vs 1.80 s (0.83x)", "MET"),
        (
            "jsonl",
            "evidence wall < DuckDB wall",
            "evidence-jobs 1.50 s vs 1.20 s (1.25x)",
            "MISSED (1.25x DuckDB's time)",
        ),
        (
            "jsonl",
            "evidence peak RSS <= 1/10 of polars'",
            "60 MiB vs 700 MiB (1/11.7)",
            "MET",
        ),
        (
            "jsonl",
            "evidence peak RSS <= 1/10 of DuckDB's",
            "60 MiB vs 500 MiB (1/8.3)",
            "MISSED (1/8.3 of DuckDB's)",
        ),
        ("jsonl", "evidence peak RSS < 64 MiB", "60.0 MiB", "MET"),
        (
            "jsonl",
            "evidence-jobs / evidence wall <= 0.7 (JSON Lines, 3 GB)",
            "0.62 (1.50 s / 2.40 s)",
            "not a target here (met)",
        ),
        ("json", "evidence / floor wall <= 1.3", "1.25 (2.50 s / 2.00 s)", "MET"),
        ("json", "evidence wall < polars wall", "", "NOT MEASURED (polars skipped: too big)"),
        ("json", "evidence wall < DuckDB wall", "", "NOT MEASURED (duckdb did not run)"),
        (
            "json",
            "evidence peak RSS <= 1/10 of polars'",
            "",
            "NOT MEASURED (polars skipped: too big)",
        ),
        ("json", "evidence peak RSS <= 1/10 of DuckDB's", "", "NOT MEASURED (duckdb did not run)"),
        ("json", "evidence peak RSS < 64 MiB", "70.0 MiB", "MISSED (70.0 MiB)"),
        (
            "json",
            "evidence-jobs / evidence wall <= 0.7 (JSON Lines, 3 GB)",
            "",
            "not a target here (evidence-jobs did not run)",
        ),
    ]
    at_3gb = [
        _run("evidence", 10.0, 60, size="3GB"),
        _run("evidence-jobs", 8.0, 60, size="3GB"),
    ]
    jobs = [t for t in targets(at_3gb) if t.target.startswith("evidence-jobs")]
    assert [(t.measured, t.status) for t in jobs] == [
        ("0.80 (8.00 s / 10.00 s)", "MISSED (0.80 > 0.7)")
    ]


def test_the_skip_rules_say_the_size_and_guard_the_ram(tiny: Dataset, tmp_path: Path) -> None:
    case = Case(tiny, "json", tmp_path, Settings(peers_json_max=100_000))
    assert too_big(case, "polars") == (
        "200KB above --peers-json-max 100KB (would need ~0 GB: 9x the input)"
    )
    jsonl = Case(tiny, "jsonl", tmp_path)
    assert too_big(jsonl, "polars", ram=10**7) is None
    assert too_big(jsonl, "duckdb", ram=600_000) == (
        "would need ~0 GB (3x the input), more than 80% of the machine's 0 GB"
    )
    assert too_big(jsonl, "evidence", ram=1) is None  # streams: no rule


def test_a_unit_profile_table_sums_to_its_total() -> None:
    rows = [Row(f"f{i}", 0.01 * (20 - i), 1000 * i) for i in range(20)]
    profile = Profile("p", 10_000, rows, 3.0)
    lines = profile_table(profile, top=15)
    body = [line for line in lines if line.startswith("| ") and "---" not in line][1:]
    figures = [float(line.split("|")[2].strip().strip("*")) for line in body]
    assert len(body) == 15 + 2  # the top 15, the rest, the total
    assert figures[-1] == pytest.approx(sum(figures[:-1]), abs=0.01)
    assert figures[-1] == pytest.approx(sum(r.seconds for r in rows) * 1e6 / 10_000)
    assert "| the other 5 functions |" in lines[-2]


def test_the_unit_profile_script_runs_and_its_table_sums(tmp_path: Path) -> None:
    found = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.unit_profile",
            "--profile",
            "short-ascii",
            "--size",
            "200KB",
            "--forms",
            "jsonl",
            "--data-dir",
            str(tmp_path / "work"),
            "--top",
            "5",
        ],
        capture_output=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    text = found.stdout.decode()
    sections = text.split("\n### ")[1:]
    assert [s.splitlines()[0] for s in sections] == [
        "short-ascii 200KB jsonl: `streamer evidence`",
        "short-ascii 200KB jsonl: the floor (its first variant)",
    ]
    for section in sections:
        units = int(section.splitlines()[2].split(" units;")[0])
        assert units == generate_count(tmp_path)
        assert "the marginal cost of a unit is **" in section
        body = [line for line in section.splitlines() if line.startswith("| ")][2:]
        figures = [float(line.split("|")[2].strip().strip("*")) for line in body]
        assert len(body) == 5 + 2
        assert figures[-1] > 0
        assert figures[-1] == pytest.approx(sum(figures[:-1]), abs=0.01)
    assert list((tmp_path / "work").iterdir()) == []  # its data sets are removed


def generate_count(tmp_path: Path) -> int:
    return generate(tmp_path / "count", 200_000, profile="short-ascii", forms=["jsonl"]).units


def test_the_missed_targets_say_why_once_a_kind() -> None:
    from benchmarks.targets import WHY, why_lines

    assert why_lines([]) == []
    assert why_lines(["evidence / floor wall <= 1.15", "evidence / floor wall <= 1.3"]) == [
        "Why:",
        "",
        f"- `evidence / floor`: {WHY['evidence / floor']}.",
        "",
    ]
    every = why_lines([f"{kind} anything" for kind in WHY])
    assert len(every) == len(WHY) + 3
