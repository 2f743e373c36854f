"""``pipeline.extraction``: how ``streamer extract`` asks for candidates.

Every key is optional here and checked for its type and range when the configuration is
loaded (exit status 2). What only extraction needs (``base_url`` and ``model`` for a lane
whose engine is ``openai``, the key's variable being set, a rules extractor for a lane
whose engine is ``rules``) is checked by ``streamer extract`` for the lanes it runs, still
before the source is read or any request is sent: other commands never need them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.engines import ENGINES

# ``auto`` tries the others in this order (``streamer/extraction/negotiation.py``).
STRUCTURED_OUTPUTS = ("auto", "json_schema", "json_object_schema", "json_object", "none")
DEFAULT_ENGINE = "openai"
DEFAULT_STRUCTURED_OUTPUT = "auto"
# ``per-lane``: one request per chunk and lane; ``combined``: one per chunk for every model
# lane (``streamer/extraction/combined.py``), the default by measurement (fewer prompt tokens
# evaluated, a third of the requests, less time: docs/extraction.md, "Which mode is the
# default").
REQUESTS = ("per-lane", "combined")
DEFAULT_REQUESTS = "combined"
# The largest answer a lane may get, in tokens: about 25 records, far above a valid answer
# for a default chunk (100 units); a model that keeps generating stops here.
DEFAULT_MAX_TOKENS = 1024
DEFAULT_CONCURRENCY = 4
AUTO_CONCURRENCY = "auto"
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_RETRIES = 4
DEFAULT_TEMPERATURE = 0.0
MAX_TEMPERATURE = 2.0
KEYS = frozenset(
    {
        "engine",
        "base_url",
        "model",
        "api_key_env",
        "structured_output",
        "requests",
        "concurrency",
        "timeout_s",
        "max_retries",
        "requests_per_minute",
        "temperature",
        "max_tokens",
        "stop_repeats",
    }
)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
PATH = "$.pipeline.extraction"


@dataclass(frozen=True)
class ExtractionConfig:
    """``pipeline.extraction``, with its defaults. ``api_key_env`` names the environment
    variable holding the key (never the key); ``None`` sends no key."""

    engine: str = DEFAULT_ENGINE
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    structured_output: str = DEFAULT_STRUCTURED_OUTPUT
    requests: str = DEFAULT_REQUESTS
    concurrency: int = DEFAULT_CONCURRENCY  # under ``auto``: where the server says nothing
    concurrency_auto: bool = False  # ``concurrency: auto``: the server's parallel slots
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    requests_per_minute: int | None = None
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    stop_repeats: bool = True  # stream answers, stop one at its first repeated record


def max_tokens_value(value: Any, path: str) -> int:
    """``max_tokens`` (of ``pipeline.extraction`` or of one lane)."""
    if type(value) is not int or value < 1:
        raise ConfigurationError(f"{path} must be an integer >= 1")
    return value


def engine_name(value: Any, path: str) -> str:
    """``value``, when an installed engine has that name (``ENGINES``, nothing imported)."""
    if value not in ENGINES:
        raise ConfigurationError(f"{path} must be one of: {', '.join(ENGINES.names())}")
    return str(value)


def lane_engines(value: Any, path: str) -> tuple[str, ...]:
    """A lane's ``engine``: one installed engine's name, or a list of distinct ones (the
    lane runs on each: ``engine: [rules, openai]``)."""
    if not isinstance(value, list):
        return (engine_name(value, path),)
    if not value:
        raise ConfigurationError(
            f"{path} must be an engine or a non-empty list of engines",
            hint="e.g. engine: rules, or engine: [rules, openai]",
        )
    engines = tuple(engine_name(item, f"{path}[{index}]") for index, item in enumerate(value))
    for index, engine in enumerate(engines):
        if engine in engines[:index]:
            raise ConfigurationError(f"{path}[{index}]: engine {engine} is named twice")
    return engines


def resolve_extraction(value: Any) -> ExtractionConfig:
    """``pipeline.extraction`` (``None`` when absent: every default)."""
    if value is None:
        return ExtractionConfig()
    if not isinstance(value, dict):
        raise ConfigurationError(f"{PATH} must be a mapping")
    for key in value:
        if key not in KEYS:
            shown = quoted(key) if isinstance(key, str) else "(a non-string key)"
            raise ConfigurationError(
                f"{PATH}: unknown member {shown}", hint="accepted: " + ", ".join(sorted(KEYS))
            )
    defaults = ExtractionConfig()
    engine = engine_name(value.get("engine", defaults.engine), f"{PATH}.engine")
    structured = value.get("structured_output", defaults.structured_output)
    if structured not in STRUCTURED_OUTPUTS:
        raise ConfigurationError(
            f"{PATH}.structured_output must be one of: {', '.join(STRUCTURED_OUTPUTS)}",
            hint="auto (the default) finds what the server takes",
        )
    requests = value.get("requests", defaults.requests)
    if requests not in REQUESTS:
        raise ConfigurationError(
            f"{PATH}.requests must be one of: {', '.join(REQUESTS)}",
            hint="combined asks every model lane of a chunk in one request",
        )
    rpm = value.get("requests_per_minute")
    concurrency = value.get("concurrency", defaults.concurrency)
    auto = concurrency == AUTO_CONCURRENCY
    return ExtractionConfig(
        engine=engine,
        base_url=_base_url(value.get("base_url")),
        model=_text(value.get("model"), f"{PATH}.model"),
        api_key_env=_env_name(value.get("api_key_env")),
        structured_output=str(structured),
        requests=str(requests),
        concurrency=DEFAULT_CONCURRENCY if auto else _integer(concurrency, "concurrency", 1),
        concurrency_auto=auto,
        timeout_s=_number(value.get("timeout_s", defaults.timeout_s), "timeout_s"),
        max_retries=_integer(value.get("max_retries", defaults.max_retries), "max_retries", 0),
        requests_per_minute=None if rpm is None else _integer(rpm, "requests_per_minute", 1),
        temperature=_temperature(value.get("temperature", defaults.temperature)),
        max_tokens=max_tokens_value(
            value.get("max_tokens", defaults.max_tokens), f"{PATH}.max_tokens"
        ),
        stop_repeats=_flag(value.get("stop_repeats", defaults.stop_repeats), "stop_repeats"),
    )


def _flag(value: Any, key: str) -> bool:
    if type(value) is not bool:
        raise ConfigurationError(f"{PATH}.{key} must be true or false")
    return value


def _text(value: Any, path: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"{path} must be a non-empty string")
    return value.strip()


def _base_url(value: Any) -> str | None:
    url = _text(value, f"{PATH}.base_url")
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigurationError(
            f"{PATH}.base_url must be an http:// or https:// URL",
            hint="the server's OpenAI-compatible root, e.g. http://localhost:11434/v1",
        )
    if parts.username is not None or parts.password is not None or parts.query:
        raise ConfigurationError(
            f"{PATH}.base_url must not carry credentials or a query",
            hint="name the key's environment variable in api_key_env",
        )
    return url.rstrip("/")


def _env_name(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _ENV_NAME.match(value):
        raise ConfigurationError(
            f"{PATH}.api_key_env must be the name of an environment variable",
            hint="the variable's name (e.g. OPENAI_API_KEY), never the key itself",
        )
    return value


def _integer(value: Any, key: str, minimum: int) -> int:
    if type(value) is not int or value < minimum:
        raise ConfigurationError(f"{PATH}.{key} must be an integer >= {minimum}")
    return value


def _number(value: Any, key: str) -> float:
    if type(value) not in (int, float) or not 0 < value < float("inf"):
        raise ConfigurationError(f"{PATH}.{key} must be a number > 0")
    return float(value)


def _temperature(value: Any) -> float:
    if type(value) not in (int, float) or not 0 <= value <= MAX_TEMPERATURE:
        raise ConfigurationError(f"{PATH}.temperature must be a number from 0 to 2")
    return float(value)
