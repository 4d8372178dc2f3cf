"""The installs and uninstalls of the plugin, oldest first, in a JSON file that survives restarts."""

from __future__ import annotations

import json
import os
import threading


class InstallHistory:
    """Each entry: change ('installed' or 'uninstalled'), instanceId, appId, orgId, at (when the
    platform says it happened), eventId (the delivery's event: a retried delivery is recorded once)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._entries: list[dict] | None = None

    def list(self) -> list[dict]:
        """Every recorded change, oldest first."""
        with self._lock:
            return list(self._load())

    def record(self, entry: dict) -> None:
        """Appends a change unless its event was recorded already."""
        with self._lock:
            entries = self._load()
            if any(e["eventId"] == entry["eventId"] for e in entries):
                return
            entries.append(entry)
            os.makedirs(os.path.dirname(self.path) or ".", mode=0o700, exist_ok=True)
            temporary = f"{self.path}.{os.getpid()}.tmp"
            with open(temporary, "w", encoding="utf-8") as file:
                json.dump(entries, file, indent=2)
                file.write("\n")
            os.replace(temporary, self.path)

    def _load(self) -> list[dict]:
        if self._entries is None:
            try:
                with open(self.path, encoding="utf-8") as file:
                    self._entries = json.load(file)
            except FileNotFoundError:
                self._entries = []
        return self._entries
