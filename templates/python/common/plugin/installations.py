"""Keeps each new installation's token, and forgets it when the plugin is uninstalled."""

from __future__ import annotations

from .event_types import PluginInstalledEvent, PluginUninstalledEvent
from .token_store import TokenStore


def installation_handlers(tokens: TokenStore) -> dict:
    """Handlers of PLUGIN_INSTALLED and PLUGIN_UNINSTALLED that keep `tokens` up to date."""

    def installed(event: PluginInstalledEvent) -> None:
        instance = event["data"]["instance"]
        tokens.save(
            {
                "instanceId": instance["id"],
                "entityType": instance["entityType"],
                "entityId": instance["entityId"],
                "scopes": instance.get("scopes", []),
                "accessToken": event["data"]["accessToken"],
                "installedAt": event.get("createdAt"),
            }
        )

    def uninstalled(event: PluginUninstalledEvent) -> None:
        tokens.remove(event["data"]["instance"]["id"])

    return {"PLUGIN_INSTALLED": installed, "PLUGIN_UNINSTALLED": uninstalled}
