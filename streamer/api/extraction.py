"""``streamer extract``: the raw candidates of every lane, asked of a model or the rules.

    result = api.extract(config, "session.jsonl", "candidates/")
    result.receipt()         # what each lane did: chunks, candidates, requests, tokens...
    result.failed_lanes      # lanes one of whose chunks failed: they wrote no file

Everything that can be checked without reading the source is checked first (exit status
2): the lanes, their engines, ``base_url`` and ``model`` for model lanes, the key's
variable. The source document is then read and validated whole (exit status 3) before
the first request.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamer.api.config import default_registry
from streamer.api.lanes import effective_lanes
from streamer.api.normalization import glossary_of
from streamer.api.sources import Source, check_jobs, open_source
from streamer.configuration import Configuration, LaneConfig
from streamer.extraction.cache import ResponseCache
from streamer.extraction.chunks import ChunkPlan, accepted_chunk_plan, chunk_plan
from streamer.extraction.lane_files import write_lane_files
from streamer.extraction.run import ChunkProgress, LanePlan
from streamer.framework.errors.safe_text import quoted, shown_path
from streamer.framework.errors.types import ConfigurationError, ExitStatus
from streamer.framework.kinds.engines import ENGINES, Engine
from streamer.framework.kinds.extraction_spec import ExtractionSpec, RulesContext
from streamer.framework.party import Party
from streamer.framework.source.accepted import AcceptedSource
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE
from streamer.normalization.glossary import Glossary, party_of
from streamer.output.publication import DIRECTORY_MODE, PRIVATE_DIRECTORY_MODE

CACHE_FOLDER = ".cache"


@dataclass(frozen=True)
class LaneFailure:
    """A lane that failed: its first failed chunk, why (content-safe), and how to fix it
    when that is known."""

    lane_id: str
    chunk_id: str
    reason: str
    hint: str | None = None
    # a lane on several engines of which another wrote its part: the engine that failed
    engine: str | None = None

    @property
    def partial(self) -> bool:
        return self.engine is not None


@dataclass(frozen=True)
class ExtractResult:
    """What an extraction run did, lane by lane (``receipt()`` is the CLI's stdout)."""

    document_id: str
    semantic_digest: str
    chunk_count: int
    lanes: tuple[dict[str, Any], ...]
    skipped: tuple[str, ...]

    @property
    def failed_lanes(self) -> tuple[str, ...]:
        """The lanes that wrote no candidates file: every engine of theirs failed."""
        ok = {lane["lane_id"] for lane in self.lanes if lane["status"] != "failed"}
        failed = [lane["lane_id"] for lane in self.lanes if lane["lane_id"] not in ok]
        return tuple(dict.fromkeys(failed))

    @property
    def lane_failures(self) -> tuple[LaneFailure, ...]:
        """Each failed lane (or engine of a lane whose other engines wrote their part:
        ``LaneFailure.engine``) with its first failed chunk, in the lanes' order."""
        whole = set(self.failed_lanes)
        return tuple(
            LaneFailure(
                lane["lane_id"],
                failure["chunk_id"],
                failure["reason"],
                failure.get("hint"),
                None if lane["lane_id"] in whole else lane["engine"],
            )
            for lane in self.lanes
            for failure in lane["failures"][:1]
        )

    @property
    def failures(self) -> tuple[str, ...]:
        """One error line per failed lane (its first failed chunk), as the CLI prints it."""
        return tuple(
            (
                f"lane {failed.lane_id} failed, no candidates file: "
                if not failed.partial
                else f"lane {failed.lane_id}: engine {failed.engine} failed, its candidates "
                "file holds the other engines' candidates: "
            )
            + f"{failed.chunk_id}: {failed.reason}"
            + ("" if failed.hint is None else f" (hint: {failed.hint})")
            for failed in self.lane_failures
        )

    @property
    def exit_status(self) -> ExitStatus:
        """``OK``, or ``INCOMPLETE`` (4) when a lane, or an engine of one, failed."""
        return ExitStatus.INCOMPLETE if self.lane_failures else ExitStatus.OK

    def receipt(self) -> dict[str, Any]:
        return {
            "status": "failed" if self.lane_failures else "ok",
            "document_id": self.document_id,
            "chunks": self.chunk_count,
            "lanes": list(self.lanes),
            "skipped_lanes": list(self.skipped),
        }


def _plan_lanes(
    config: Configuration, selection: Sequence[str] | None
) -> tuple[list[LanePlan], list[str]]:
    """One plan per lane and engine (a lane with several engines has one for each, in the
    order the lane names them), and the lanes skipped (never extracted)."""
    plans: list[LanePlan] = []
    skipped: list[str] = []
    for lane_id in effective_lanes(config, selection):
        lane = config.lane(lane_id)
        spec = lane.kind.extraction
        if spec is None:
            if selection:
                raise ConfigurationError(
                    f"--lane {quoted(lane_id)}: artifact kind {lane.kind.name} is never extracted",
                    hint="its records come from the group's own reference, not the transcript",
                )
            skipped.append(lane_id)
            continue
        for name in lane.engine_names(config.extraction.engine):
            plans.append(_lane_plan(config, lane, spec, ENGINES.get(name)))
    return plans, skipped


def _lane_plan(
    config: Configuration, lane: LaneConfig, spec: ExtractionSpec, engine: Engine
) -> LanePlan:
    """How ``engine`` extracts ``lane``: a local engine's chunk extractor, or the model."""
    lane_id = lane.id
    settings = config.extraction
    if not engine.asks_model:
        assert engine.extractor is not None
        extractor = engine.extractor(lane.kind)
        if extractor is None:
            raise ConfigurationError(
                f"lane {quoted(lane_id)}: engine {engine.name} does not extract artifact "
                f"kind {lane.kind.name}",
                hint=f"engine {engine.name} extracts: "
                + (", ".join(_kinds_of(engine)) or "no installed kind")
                + "; give this lane engine: "
                + " or ".join(name for name in ENGINES.names() if name != engine.name),
            )
        return LanePlan(
            lane_id, lane.kind, spec, engine.name, None, extractor.version, {}, extractor
        )
    for key, value in (("base_url", settings.base_url), ("model", settings.model)):
        if value is None:
            raise ConfigurationError(
                f"$.pipeline.extraction.{key} is required: lane {quoted(lane_id)} uses "
                f"engine {engine.name}",
                hint="see docs/extraction.md for each server, or give the lane engine: "
                + " or ".join(_local_engines()),
            )
    # The structured-output mode an answer was asked in joins these in its cache key.
    # max_tokens does not: it cuts an answer, and a cut answer is never cached. An answer
    # stopped at a repeated record is one a run without stop_repeats never gets: keyed
    # apart (only when set, so that the keys of every other answer stay as they were).
    parameters: dict[str, Any] = {"temperature": settings.temperature}
    if settings.stop_repeats:
        parameters["stop_repeats"] = True
    max_tokens = lane.max_tokens or settings.max_tokens
    return LanePlan(
        lane_id,
        lane.kind,
        spec,
        engine.name,
        settings.model,
        spec.prompt.id,
        parameters,
        max_tokens=max_tokens,
    )


def _local_engines() -> list[str]:
    return [engine.name for engine in ENGINES.load_all() if not engine.asks_model]


def _kinds_of(engine: Engine) -> list[str]:
    """The installed kinds ``engine`` (a local engine) extracts."""
    assert engine.extractor is not None
    return [kind.name for kind in default_registry() if engine.extractor(kind) is not None]


def _api_key(config: Configuration) -> str | None:
    name = config.extraction.api_key_env
    if name is None:
        return None
    key = os.environ.get(name)
    if not key:
        raise ConfigurationError(
            f"environment variable {name} (pipeline.extraction.api_key_env) is not set or empty",
            hint=f"export {name} with the server's key, or remove api_key_env for a server "
            "without one",
        )
    return key


def _rules_glossary(
    config: Configuration, glossary: str | os.PathLike[str] | None, party: bool
) -> Glossary | None:
    """The glossary the rules read (``--glossary``, else
    ``pipeline.normalization.glossary``; ``None`` without one), its ``party`` checked
    whole (every session's entries) unless ``party`` is given: before the source is read."""
    if glossary is None and config.normalization.glossary is None:
        return None
    terms = glossary_of(config, glossary)
    if not party:
        party_of(terms)
    return terms


def _rules_context(
    terms: Glossary | None, party: Mapping[str, str] | None, session: str
) -> RulesContext:
    """What the rules read of the glossary: its ``party`` in ``session`` (the document
    ID) as speaker -> character (or ``party`` when given), its ``names`` and its alias
    sections; empty without one."""
    if terms is None:
        return RulesContext(Party(party or {}))
    return RulesContext(
        party_of(terms, session) if party is None else Party(party),
        dict(terms.names.items()),
        {section: dict(names.items()) for section, names in terms.aliases.items()},
    )


def _check_folder(folder: Path, option: str) -> None:
    if folder.exists() and not folder.is_dir():
        raise ConfigurationError(f"{option} {shown_path(folder)} is not a folder")
    parent = folder.parent if str(folder.parent) else Path(".")
    if not folder.exists() and not parent.is_dir():
        raise ConfigurationError(
            f"the folder holding {option} {shown_path(folder)} does not exist",
            hint="create it first",
        )


def extract(
    config: Configuration,
    source: Source | AcceptedSource,
    output_dir: str | os.PathLike[str],
    *,
    lanes: Sequence[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    no_cache: bool = False,
    glossary: str | os.PathLike[str] | None = None,
    party: Mapping[str, str] | None = None,
    progress: ChunkProgress | None = None,
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    jobs: int = 1,
) -> ExtractResult:
    """Extract the candidates of every configured lane (or of ``lanes``) from ``source``
    into ``output_dir/<lane_id>.jsonl``.

    ``cache_dir`` defaults to ``output_dir/.cache``; ``no_cache`` asks again for every
    chunk (the new answers replace the cached ones). The rules' casters come from the
    glossary's ``party`` (``glossary``, else ``pipeline.normalization.glossary``) in this
    session (the source's document ID), or from ``party`` (speaker -> character) when
    given. The key is read from the environment variable ``pipeline.extraction.api_key_env``
    names. A lane one of whose chunks fails
    writes no file: see ``ExtractResult.failed_lanes``.
    ``source`` may be the ``AcceptedSource`` ``streamer run`` imported: it is not validated
    again, and its chunks are cut from it each time they are read (the same chunks).
    ``jobs``: the processes that answer the rules lanes' chunks (``rules_pool``).
    """
    check_jobs(jobs)
    plans, skipped = _plan_lanes(config, lanes)
    model_lanes = [plan for plan in plans if plan.extractor is None]
    rules = len(model_lanes) < len(plans)
    terms = _rules_glossary(config, glossary, party is not None) if rules else None
    api_key = _api_key(config) if model_lanes else None
    output = Path(output_dir)
    cache_folder = output / CACHE_FOLDER if cache_dir is None else Path(cache_dir)
    _check_folder(output, "--output-dir")
    if cache_dir is not None:
        _check_folder(cache_folder, "--cache-dir")
    with _chunk_plan(config, source, buffer_size) as plan:
        os.makedirs(output, mode=DIRECTORY_MODE, exist_ok=True)
        os.makedirs(cache_folder, mode=PRIVATE_DIRECTORY_MODE, exist_ok=True)
        cache = ResponseCache(cache_folder)
        context = _rules_context(terms, party, plan.document_id) if rules else RulesContext()
        report = progress or (lambda lane_id, done, total: None)
        if model_lanes:  # the server's client, imported only here
            from streamer.api.model_answers import ask_models

            ask_models(
                config.extraction,
                plan,
                model_lanes,
                cache,
                api_key,
                reuse=not no_cache,
                progress=report,
            )
        write_lane_files(plan, plans, cache, output, context, report, jobs)
        return ExtractResult(
            plan.document_id,
            plan.semantic_digest,
            plan.chunk_count,
            tuple(lane.receipt() for lane in plans),
            tuple(skipped),
        )


@contextlib.contextmanager
def _chunk_plan(
    config: Configuration, source: Source | AcceptedSource, buffer_size: int
) -> Iterator[ChunkPlan]:
    if isinstance(source, AcceptedSource):
        yield accepted_chunk_plan(config, source)
        return
    with open_source(source) as stream, chunk_plan(config, stream, buffer_size) as plan:
        yield plan


def check_extraction(
    config: Configuration,
    *,
    lanes: Sequence[str] | None = None,
) -> None:
    """The checks ``extract`` makes before reading anything (``ConfigurationError``, exit
    status 2): the lanes, their engines, ``base_url`` and ``model`` for model lanes, the
    key's variable. ``streamer run`` and ``streamer batch`` make them before any stage."""
    plans, _ = _plan_lanes(config, lanes)
    if any(plan.extractor is None for plan in plans):
        _api_key(config)
