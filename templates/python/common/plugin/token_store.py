"""Installation tokens in a JSON file that only its owner may read or write."""

from __future__ import annotations

import json
import os
import threading
from typing import Optional


class TokenStore:
    """One installation of the plugin per instance id, as PLUGIN_INSTALLED announced it.

    The file is mode 0600 in a 0700 folder: anyone who reads a token can act as the plugin on that
    entity. Writes go to a temporary file first and are renamed into place, so a crash never leaves
    half a file; a lock keeps concurrent deliveries from interleaving.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._installations: Optional[dict[str, dict]] = None

    def get(self, instance_id: str) -> Optional[dict]:
        """The installation of a plugin instance (with its `accessToken`), if the plugin was told of it."""
        with self._lock:
            return self._load().get(instance_id)

    def list(self) -> list[dict]:
        """Every installation, oldest first."""
        with self._lock:
            return list(self._load().values())

    def save(self, installation: dict) -> None:
        """Keeps (or replaces) an installation and its token."""
        with self._lock:
            installations = self._load()
            installations[installation["instanceId"]] = installation
            self._persist(installations)

    def remove(self, instance_id: str) -> bool:
        """Forgets an installation; its token was revoked by the platform anyway."""
        with self._lock:
            installations = self._load()
            if instance_id not in installations:
                return False
            del installations[instance_id]
            self._persist(installations)
            return True

    def _load(self) -> dict[str, dict]:
        if self._installations is None:
            try:
                with open(self.path, encoding="utf-8") as file:
                    self._installations = json.load(file)
                # A file copied in with looser permissions is tightened at once.
                os.chmod(self.path, 0o600)
            except FileNotFoundError:
                self._installations = {}
        return self._installations

    def _persist(self, installations: dict[str, dict]) -> None:
        folder = os.path.dirname(self.path) or "."
        os.makedirs(folder, mode=0o700, exist_ok=True)
        temporary = f"{self.path}.{os.getpid()}.tmp"
        # Created 0600 (never readable by others, not even for a moment), whatever the umask.
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(installations, file, indent=2)
                file.write("\n")
                file.flush()
                os.fsync(file.fileno())
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
        os.replace(temporary, self.path)
