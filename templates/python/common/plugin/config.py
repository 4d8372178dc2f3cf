"""The plugin's configuration, read from the environment (the one place that does)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Optional


@dataclass
class PluginConfig:
    """What the plugin needs to run; `config_from_env` reads it from the environment."""

    #: Port of the webhook server; 0 picks a free one (tests).
    port: int
    host: str
    #: The plugin's webhookSecret (`whsec_...`), printed by `plugsmith plugins secret <pluginId>`;
    #: during a secret rotation several (new and old), any of which may sign a delivery.
    webhook_secrets: list[str]
    #: Management API of the platform (or the emulator) that installation tokens are used against.
    platform_url: str
    #: Folder of the plugin's own state.
    data_dir: str
    #: JSON file of the installation tokens, written owner-only (0600).
    token_file: str
    #: Receives one line per event handled; silent when None (tests).
    log: Optional[Callable[[str], None]] = None
    #: A file to keep the shape of every event received in (field paths and types, never values),
    #: for `plugsmith parity check --event-shapes`.
    event_shapes: Optional[str] = None


def config_from_env(env: Mapping[str, str] = os.environ) -> PluginConfig:
    """Reads PORT, HOST, PLUGSMITH_WEBHOOK_SECRET, PLUGSMITH_BASE_URL, DATA_DIR, TOKEN_FILE, PLUGSMITH_EVENT_SHAPES.

    PLUGSMITH_WEBHOOK_SECRET may list several secrets, separated by commas or spaces
    (`whsec_new,whsec_old`): after `plugsmith plugins secret rotate`, deploy with both, then drop
    the old one. Raises ValueError with a message for the person running it.
    """
    secrets = [s for s in re.split(r"[\s,]+", env.get("PLUGSMITH_WEBHOOK_SECRET", "")) if s]
    if not secrets:
        raise ValueError(
            "PLUGSMITH_WEBHOOK_SECRET is not set: set it to the plugin's webhookSecret (`plugsmith plugins secret <pluginId>` prints it; "
            "`plugsmith deploy` prints the id), with PORT and PLUGSMITH_BASE_URL beside it. `plugsmith dev` sets all three for you."
        )
    # A value that is no webhookSecret (whsec_...) would start a plugin that refuses every delivery; it is never printed.
    if any(re.fullmatch(r"whsec_[A-Za-z0-9+/]+={0,2}", secret) is None for secret in secrets):
        raise ValueError(
            "PLUGSMITH_WEBHOOK_SECRET is not the plugin's webhookSecret: each secret is whsec_ and base64 "
            "(`plugsmith plugins secret <pluginId>` prints it)"
        )
    raw_port = env.get("PORT") or "{{port}}"
    # ASCII digits only: '²'.isdigit() is True, and int() refuses it.
    if re.fullmatch(r"[0-9]{1,5}", raw_port) is None or int(raw_port) > 65535:
        raise ValueError(f'PORT must be a port number, not "{raw_port}"')
    data_dir = env.get("DATA_DIR") or ".data"
    return PluginConfig(
        port=int(raw_port),
        host=env.get("HOST") or "127.0.0.1",
        webhook_secrets=secrets,
        platform_url=env.get("PLUGSMITH_BASE_URL") or "http://127.0.0.1:4010",
        data_dir=data_dir,
        token_file=env.get("TOKEN_FILE") or os.path.join(data_dir, "tokens.json"),
        event_shapes=env.get("PLUGSMITH_EVENT_SHAPES") or None,
    )
