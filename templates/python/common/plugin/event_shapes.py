"""The shapes of the events the plugin receives, kept when PLUGSMITH_EVENT_SHAPES names a file."""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from typing import Any, Iterator

#: Fields whose keys are the installation's own (its inputs, its dispatch condition): only their own type is kept.
OPAQUE = {"data.instance.inputs", "data.instance.eventDispatchCondition"}


class EventShapes:
    """With PLUGSMITH_EVENT_SHAPES=<file>, the plugin keeps the shape of every verified event it receives.

    In that file, by event type: field paths and JSON types (`string`, `number`, `boolean`, `null`,
    `object`, `array`; `null|string` where deliveries differ), never a value, id or text. Run the
    deployed plugin with it for a while, then `npx plugsmith parity check --event-shapes <file>`
    compares what the platform sent with the events of plugsmith's emulator. Same file as the
    TypeScript template writes.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._events = _read_shapes(path)

    def add(self, event: dict) -> None:
        """Adds an event's shape to its type's; writes the file when a path or a type is new."""
        kind = event.get("type")
        if not isinstance(kind, str) or re.fullmatch(r"[A-Z][A-Z0-9_]{0,99}", kind) is None:
            return
        with self._lock:
            shape = self._events.setdefault(kind, {})
            changed = False
            for path, type_name in _shape_of(event):
                types = set(shape[path].split("|")) if path in shape else set()
                if type_name not in types:
                    shape[path] = "|".join(sorted(types | {type_name}))
                    changed = True
            if changed:
                self._write()

    def _write(self) -> None:
        events = {kind: dict(sorted(shape.items())) for kind, shape in sorted(self._events.items())}
        try:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            with open(f"{self.path}.tmp", "w", encoding="utf-8") as out:
                out.write(json.dumps({"version": 1, "events": events}, indent=2) + "\n")
            os.replace(f"{self.path}.tmp", self.path)
        except OSError as error:
            # Keeping shapes never fails a delivery.
            print(f"PLUGSMITH_EVENT_SHAPES: cannot write {self.path}: {error}", file=sys.stderr)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _shape_of(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every path of a parsed JSON value with its JSON type; nothing of its values."""
    if path:
        yield path, _json_type(value)
    if path in OPAQUE:
        return
    if isinstance(value, list):
        for item in value:
            yield from _shape_of(item, f"{path}[]")
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _shape_of(child, f"{path}.{key}" if path else key)


def _read_shapes(path: str) -> dict[str, dict[str, str]]:
    """The shapes kept so far (none when the file does not exist yet); a file of something else stops the plugin at start."""
    try:
        with open(path, encoding="utf-8") as source:
            text = source.read()
    except FileNotFoundError:
        return {}
    try:
        file = json.loads(text)
    except ValueError:
        file = None
    if not isinstance(file, dict) or file.get("version") != 1 or not isinstance(file.get("events"), dict):
        raise ValueError(f'PLUGSMITH_EVENT_SHAPES: {path} is not an event-shapes file ({{ "version": 1, "events": ... }}): name another file, or remove it')
    return file["events"]
