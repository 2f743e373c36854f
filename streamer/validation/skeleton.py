"""Building the small part of a large JSON document from its events.

A ``Skeleton`` builds one JSON value (an object: the document, or one context) from ijson
``parse`` events, except:

* the items of the arrays named in ``streamed`` are not built: each of their events goes
  to that member's callback (the array itself is built, empty);
* the value of a member not in ``members`` is skipped: it is built as ``None``, enough for
  the schema to report the member, without holding what may be large;
* a value that is not an object is built only as far as its type (``[]`` for an array).

The part kept is what the schema checks with jsonschema; the streamed items are checked
one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

import ijson

from streamer.framework.json.events import Event

_OPENS = frozenset({"start_map", "start_array"})
_CLOSES = frozenset({"end_map", "end_array"})
_BUILD, _SKIP, _STREAM = range(3)


class Skeleton:
    """Feed the events of one value with ``event``; ``complete`` once it has ended."""

    def __init__(
        self,
        members: Collection[str],
        streamed: Mapping[str, Callable[[Event], None]] | None = None,
    ) -> None:
        self._builder = ijson.ObjectBuilder()
        self._members = members
        self._streamed = streamed or {}
        self._depth = 0  # containers open: 1 inside the object, 2 inside a member's value
        self._mode = _BUILD  # what to do with the current member's value
        self._target: Callable[[Event], None] | None = None
        self._flat = False  # not an object: the rest is ignored
        self.started = False

    @property
    def complete(self) -> bool:
        return self.started and self._depth == 0

    @property
    def streaming(self) -> bool:
        """Whether the events now are those of a streamed array's items."""
        return self._mode == _STREAM and self._depth >= 2

    @property
    def value(self) -> Any:
        """What is built so far (the object, filled as its members complete)."""
        return self._builder.value

    def member(self, name: str) -> Any:
        """A member built so far, or ``None``."""
        value = self._builder.value
        return value.get(name) if isinstance(value, dict) else None

    def event(self, item: Event) -> None:
        _, event, value = item
        opens, closes = event in _OPENS, event in _CLOSES
        if not self.started:
            self.started = True
            self._flat = event != "start_map"
            self._builder.event(event, value)
            self._depth = int(opens)
            return
        if self._flat:
            self._depth += opens - closes
            return
        depth, builder = self._depth, self._builder
        if depth == 1:
            if event == "map_key":
                builder.event(event, value)
                if value not in self._members:
                    builder.event("null", None)
                    self._mode = _SKIP
                elif value in self._streamed:
                    self._mode, self._target = _STREAM, self._streamed[value]
                else:
                    self._mode = _BUILD
            elif closes:  # the object ends
                builder.event(event, value)
                self._depth = 0
            elif self._mode == _SKIP:
                self._depth += opens
            else:
                if self._mode == _STREAM and event != "start_array":
                    self._mode = _BUILD  # not an array: built, for the schema to report
                builder.event(event, value)
                self._depth += opens
            return
        if closes and depth == 2:  # the member's value ends
            if self._mode != _SKIP:
                builder.event(event, value)
        elif self._mode == _STREAM:
            self._target(item)  # type: ignore[misc]
        elif self._mode == _BUILD:
            builder.event(event, value)
        self._depth += opens - closes
