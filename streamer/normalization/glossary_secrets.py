"""The glossary's ``secrets:`` section, read (its meaning: ``streamer.framework.secrets``).

```yaml
secrets:
  names: [Sylas, "the Chroma Conclave's plan"]  # names and terms, with their glossary aliases
  units: [[t00120, t00134]]                     # ranges of units: [first ID, last ID]
  speakers: ["MATT (aside)"]
```

Every member is optional. Errors are configuration errors naming the glossary and a JSON
path, never a secret.
"""

from __future__ import annotations

from typing import Any

from streamer.framework.errors.types import ConfigurationError
from streamer.framework.names import name_key
from streamer.framework.secrets import Secrets, secrets_of
from streamer.normalization.names import Names

SECRETS = "secrets"
_MEMBERS = ("names", "units", "speakers")


def _strings(value: Any, where: str, path: str) -> list[str]:
    if not isinstance(value, list) or not all(
        isinstance(item, str) and item.strip() for item in value
    ):
        raise ConfigurationError(f"{where}: {path} must be a list of non-empty strings")
    return [item.strip() for item in value]


def _ranges(value: Any, where: str) -> list[tuple[str, str]]:
    path = f"$.{SECRETS}.units"
    if not isinstance(value, list):
        raise ConfigurationError(f"{where}: {path} must be a list of [first, last] unit IDs")
    ranges = []
    for index, item in enumerate(value):
        pair = _strings(item, where, f"{path}[{index}]")
        if len(pair) != 2:
            raise ConfigurationError(
                f"{where}: {path}[{index}] must be [first, last]: two unit IDs",
                hint="one unit is [t00120, t00120]",
            )
        ranges.append((pair[0], pair[1]))
    return ranges


def parse_secrets(value: Any, where: str, names: Names) -> Secrets:
    """The ``secrets`` member of a glossary (``None``: no secrets); ``names``: the
    glossary's names, whose aliases are a secret name's other spellings."""
    if value is None:
        return Secrets()
    if not isinstance(value, dict):
        raise ConfigurationError(f"{where}: $.{SECRETS} must be a mapping")
    for key in value:
        if key not in _MEMBERS:
            raise ConfigurationError(
                f"{where}: $.{SECRETS}: unknown member", hint="accepted: " + ", ".join(_MEMBERS)
            )
    secret_names = _strings(value.get("names", []), where, f"$.{SECRETS}.names")
    spellings = {name_key(name): names.spellings(names.canonical(name)) for name in secret_names}
    return secrets_of(
        secret_names,
        spellings,
        _ranges(value.get("units", []), where),
        _strings(value.get("speakers", []), where, f"$.{SECRETS}.speakers"),
    )
