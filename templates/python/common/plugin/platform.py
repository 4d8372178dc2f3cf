"""The platform's management API as one installation of the plugin, on urllib."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Optional
from urllib.parse import quote

#: How long one call to the platform may take, in seconds.
TIMEOUT_SECONDS = 10


class PlatformError(Exception):
    """A call to the platform failed; the message names the call and the platform's reason, never the token."""


class Platform:
    """Every call carries the installation token (from PLUGIN_INSTALLED), so it may do what the
    instance's scopes allow. Only the calls this plugin makes; add the ones you need the same way
    (the paths are in the platform's API reference).
    """

    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token

    def call(self, method: str, path: str, body: Any = None) -> tuple[Any, Optional[dict]]:
        """One call: (data, pagination) of the platform's envelope `{ ok, data, meta }`."""
        headers = {"authorization": f"Bearer {self._token}", "accept": "application/json"}
        data = None
        if body is not None:
            headers["content-type"] = "application/json"
            data = json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                status, text = response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode("utf-8", "replace")
        except (urllib.error.URLError, OSError) as error:
            raise PlatformError(f"{method} {path.split('?')[0]} failed: {getattr(error, 'reason', error)} (is PLUGSMITH_BASE_URL right?)") from None
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        if status >= 400 or not isinstance(parsed, dict) or parsed.get("ok") is False:
            reason = parsed.get("error", {}).get("message") if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) else (text[:200] or "no body")
            raise PlatformError(f"{method} {path.split('?')[0]} answered HTTP {status}: {reason}")
        return parsed.get("data"), (parsed.get("meta") or {}).get("pagination")

    def write_agent_message(self, agent_id: str, conversation_id: str, content: str) -> dict:
        """Writes a character's message into an agent's conversation (scope AGENT_MESSAGE_WRITE).

        The whole reply in one message: `isStreaming: false`, or the message stays streaming and
        the platform ends it with a TIMEOUT. To stream a long answer, send `isStreaming: true` and
        then more packets with its `messageId`.
        """
        path = f"/api/agents/{quote(agent_id, safe='')}/conversations/{quote(conversation_id, safe='')}/messages"
        message, _ = self.call("POST", path, {"content": content, "isStreaming": False})
        return message

    def list_repository_files(self, repository_id: str) -> list[dict]:
        """Every file of a repository, page after page (scope REPOSITORY_FILES_READ)."""
        files: list[dict] = []
        query = "@limit=100"
        # Bounded, and stopped by an empty page, so that a confused server cannot keep it looping.
        for _ in range(1000):
            data, pagination = self.call("GET", f"/api/repositories/{quote(repository_id, safe='')}/files?{query}")
            files.extend(data)
            if not pagination or not pagination.get("hasNext") or not data:
                break
            if pagination.get("type") == "cursor":
                if not pagination.get("nextCursor"):
                    break
                query = f"@limit=100&@cursor={quote(pagination['nextCursor'], safe='')}"
            else:
                query = f"@limit=100&@page={pagination['page'] + 1}"
        return files

    def access_url(self, file_id: str) -> dict:
        """A short-lived URL to a file's bytes (GET /api/access/:fileId): `{ url, ... }`."""
        data, _ = self.call("GET", f"/api/access/{quote(file_id, safe='')}")
        return data
