"""A DATA_PROVIDER: installed on a repository, it is told of every file added to it
(REPOSITORY_FILE_ADDED), lists the repository's files and reads the new one with the
installation's token (scope REPOSITORY_FILES_READ), and forgets removed files."""

from __future__ import annotations

import threading
import urllib.request
from datetime import datetime, timezone

from .config import PluginConfig
from .event_types import RepositoryFileAddedEvent, RepositoryFileRemovedEvent
from .installations import installation_handlers
from .platform import TIMEOUT_SECONDS, Platform
from .server import WebhookServer
from .token_store import TokenStore

#: Files larger than this are listed but not read.
MAX_READ_BYTES = 5 * 1024 * 1024


class Plugin:
    """The running data provider."""

    def __init__(self, config: PluginConfig) -> None:
        self.config = config
        self.tokens = TokenStore(config.token_file)
        #: What the plugin has read, by file id: replace this with your index, search engine, vector store...
        self.documents: dict[str, dict] = {}
        self._lock = threading.Lock()
        self.server = WebhookServer(
            config.port,
            config.host,
            config.webhook_secrets,
            {**installation_handlers(self.tokens), "REPOSITORY_FILE_ADDED": self.file_added, "REPOSITORY_FILE_REMOVED": self.file_removed},
            log=config.log,
            event_shapes=config.event_shapes,
        )
        self.webhook_url = self.server.webhook_url
        self.port = self.server.port

    def file_added(self, event: RepositoryFileAddedEvent) -> dict:
        installation = self.tokens.get(event["pluginInstanceId"])
        # Unknown instance: answering 500 makes the platform retry once PLUGIN_INSTALLED has arrived.
        if installation is None:
            raise LookupError(f"no installation token for {event['pluginInstanceId']}")
        repository_id = event["data"]["repositoryId"]
        file = event["data"]["file"]
        platform = Platform(self.config.platform_url, installation["accessToken"])
        # The repository's files, as the instance may see them (GET /api/repositories/:id/files).
        files = platform.list_repository_files(repository_id)
        listed = next((f for f in files if f["id"] == file["id"]), None)
        if listed is None:
            return {"ok": True, "skipped": "the file is no longer in the repository"}
        if (listed.get("fileSize") or 0) > MAX_READ_BYTES:
            return {"ok": True, "skipped": "too large to read"}
        # A short-lived URL to the file's bytes (GET /api/access/:fileId); it needs no token.
        access = platform.access_url(file["id"])
        if not access.get("url"):
            raise LookupError(f"no access URL for {file['id']}")
        with urllib.request.urlopen(access["url"], timeout=TIMEOUT_SECONDS) as response:
            text = response.read(MAX_READ_BYTES + 1).decode("utf-8", "replace")
        with self._lock:
            self.documents[file["id"]] = {
                "fileId": file["id"],
                "fileName": listed["fileName"],
                "repositoryId": repository_id,
                "contentType": listed.get("contentType") or "application/octet-stream",
                "text": text,
                "readAt": datetime.now(timezone.utc).isoformat(),
            }
        return {"ok": True, "filesInRepository": len(files), "bytesRead": len(text.encode())}

    def file_removed(self, event: RepositoryFileRemovedEvent) -> None:
        with self._lock:
            self.documents.pop(event["data"]["file"]["id"], None)

    def close(self) -> None:
        self.server.close()


def start_plugin(config: PluginConfig) -> Plugin:
    """Starts the webhook server with this plugin's handlers."""
    return Plugin(config)
