"""An APP plugin: installed on apps, it keeps each installation's token while installed
(PLUGIN_INSTALLED, PLUGIN_UNINSTALLED) and records every install and uninstall."""

from __future__ import annotations

import os
from typing import Union

from .config import PluginConfig
from .event_types import PluginInstalledEvent, PluginUninstalledEvent
from .history import InstallHistory
from .installations import installation_handlers
from .server import WebhookServer
from .token_store import TokenStore


class Plugin:
    """The running app plugin."""

    def __init__(self, config: PluginConfig) -> None:
        self.tokens = TokenStore(config.token_file)
        #: Every install and uninstall, kept in DATA_DIR/history.json.
        self.history = InstallHistory(os.path.join(config.data_dir, "history.json"))
        self._installations = installation_handlers(self.tokens)
        self.server = WebhookServer(
            config.port,
            config.host,
            config.webhook_secrets,
            {"PLUGIN_INSTALLED": self.installed, "PLUGIN_UNINSTALLED": self.uninstalled},
            log=config.log,
            event_shapes=config.event_shapes,
        )
        self.webhook_url = self.server.webhook_url
        self.port = self.server.port

    def installed(self, event: PluginInstalledEvent) -> None:
        self._installations["PLUGIN_INSTALLED"](event)
        self._record("installed", event)

    def uninstalled(self, event: PluginUninstalledEvent) -> None:
        self._installations["PLUGIN_UNINSTALLED"](event)
        self._record("uninstalled", event)

    def _record(self, change: str, event: Union[PluginInstalledEvent, PluginUninstalledEvent]) -> None:
        instance = event["data"]["instance"]
        self.history.record(
            {"change": change, "instanceId": instance["id"], "appId": instance["entityId"], "orgId": instance.get("orgId"), "at": event.get("createdAt"), "eventId": event["id"]}
        )

    def close(self) -> None:
        self.server.close()


def start_plugin(config: PluginConfig) -> Plugin:
    """Starts the webhook server with this plugin's handlers."""
    return Plugin(config)
