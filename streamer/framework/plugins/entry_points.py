"""Entry-point registries: how streamer finds its artifact kinds, formats, engines and outputs.

streamer registers what it ships exactly as another package would: by entry points
(``importlib.metadata``) declared in its ``pyproject.toml``, one group per extension point:

    [project.entry-points."streamer.formats"]
    chatlog = "streamer_tavern.chatlog:FORMAT"

- ``streamer.kinds``: a family of artifact kinds (an ``ArtifactKind`` or a sequence of them);
- ``streamer.formats``: a transcript format (``importers.formats.TranscriptFormat``);
- ``streamer.engines``: an extraction engine (``framework.kinds.engines.Engine``);
- ``streamer.outputs``: an output module (``output.modules.OutputModule``).

A ``Plugins`` object is one group: ``names()`` reads the installed metadata without importing
anything; ``get(name)`` imports one plugin, checks what it declares and keeps it; ``load_all()``
imports every plugin of the group. A plugin that cannot be imported, or that declares
something else than its group takes, is a ``PluginError`` naming the plugin, its group and
the package that installed it, never its data. ``docs/plugins.md`` has the recipe.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, EntryPoints, entry_points
from typing import Any, Generic, Protocol, TypeVar

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import ConfigurationError

T = TypeVar("T")

KINDS_GROUP = "streamer.kinds"
FORMATS_GROUP = "streamer.formats"
ENGINES_GROUP = "streamer.engines"
OUTPUTS_GROUP = "streamer.outputs"


_INSTALLED: dict[tuple[str, ...], Any] = {}  # entry_points(): EntryPoints from Python 3.12


def installed_entry_points(group: str) -> EntryPoints:
    """The installed entry points of ``group``. Every group's are read at once, once for a
    given ``sys.path``: a read goes through every installed package's metadata (2 to 8 ms
    here, the same work whichever group is asked), and a run asks for four groups."""
    path = tuple(sys.path)
    if path not in _INSTALLED:
        _INSTALLED.clear()
        _INSTALLED[path] = entry_points()
    selected: EntryPoints = _INSTALLED[path].select(group=group)
    return selected


class PluginError(ConfigurationError):
    """A plugin that cannot be loaded or declares something its group does not take."""


def _package(entry: EntryPoint) -> str:
    dist = entry.dist
    return "an unknown package" if dist is None else f"package {dist.name}"


class _Named(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=_Named)


def named(cls: type[N]) -> Callable[[str, Any], N]:
    """The ``check`` of a group whose plugins are ``cls`` instances named as their entry
    point (``chatlog = "pkg.chatlog:FORMAT"`` and ``FORMAT.name == "chatlog"``)."""

    def check(name: str, loaded: Any) -> N:
        if not isinstance(loaded, cls):
            raise TypeError(f"{type(loaded).__name__} is not a {cls.__name__}")
        if loaded.name != name:
            raise ValueError(f"it declares the name {loaded.name!r}")
        return loaded

    return check


@dataclass
class Plugins(Generic[T]):
    """The plugins of one entry-point group.

    ``what`` names one plugin in messages (``import format``). ``check(name, loaded)``
    returns the plugin ``loaded`` declares, or raises ``TypeError`` / ``ValueError`` with
    a one-line reason (it must not quote data: it names members and types)."""

    group: str
    what: str
    check: Callable[[str, Any], T]
    _loaded: dict[str, T] = field(default_factory=dict, init=False, repr=False)
    _scanned: tuple[tuple[str, ...], dict[str, EntryPoint]] | None = field(
        default=None, init=False, repr=False
    )

    def _entries(self) -> dict[str, EntryPoint]:
        """The group's entry points by name, read from the installed metadata once for a
        given ``sys.path`` (reading it again takes about 10 ms)."""
        path = tuple(sys.path)
        if self._scanned is None or self._scanned[0] != path:
            self._scanned = (path, self._scan())
        return self._scanned[1]

    def _scan(self) -> dict[str, EntryPoint]:
        found: dict[str, EntryPoint] = {}
        for entry in installed_entry_points(self.group):
            known = found.get(entry.name)
            if known is not None and known.value != entry.value:
                raise PluginError(
                    f"{self.what} {quoted(entry.name)} is registered twice ({self.group}, by "
                    f"{_package(known)} and {_package(entry)})",
                    hint="uninstall one of the two packages",
                )
            found[entry.name] = entry
        return found

    def names(self) -> tuple[str, ...]:
        """Every installed plugin's name, sorted (nothing is imported)."""
        return tuple(sorted(self._entries()))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._entries()

    def unknown(self, name: str, where: str) -> PluginError:
        """The error of a name no installed plugin has (``where``: what the user typed)."""
        known = self.names()
        return PluginError(
            f"{where}unknown {self.what} {quoted(name)}",
            hint=f"{self.what}s: " + ", ".join(known) if known else self._not_installed(),
        )

    def _not_installed(self) -> str:
        return f"no {self.group} plugin is installed (is streamer installed? pip install -e .)"

    def get(self, name: str, where: str = "") -> T:
        """The plugin ``name``, imported and checked once (``where``: a prefix for the
        unknown-name error, e.g. ``"$.pipeline.lanes[0].engine: "``)."""
        if name in self._loaded:
            return self._loaded[name]
        entry = self._entries().get(name)
        if entry is None:
            raise self.unknown(name, where)
        plugin = self._load(entry)
        self._loaded[name] = plugin
        return plugin

    def load_all(self) -> tuple[T, ...]:
        """Every installed plugin, in name order."""
        return tuple(self.get(name) for name in self.names())

    def _load(self, entry: EntryPoint) -> T:
        origin = f"{self.what} plugin {quoted(entry.name)} ({self.group}, from {_package(entry)})"
        try:
            loaded = entry.load()
        except Exception as error:  # any failure to import a third party's module
            raise PluginError(
                f"{origin} cannot be loaded: {type(error).__name__} importing {entry.value}",
                hint="reinstall or uninstall the package that provides it",
            ) from None
        try:
            return self.check(entry.name, loaded)
        except (TypeError, ValueError) as error:
            raise PluginError(
                f"{origin} is not valid: {error}",
                hint="see docs/plugins.md for what each group takes",
            ) from None
