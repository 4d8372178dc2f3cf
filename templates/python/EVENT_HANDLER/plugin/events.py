"""An EVENT_HANDLER: installed on an agent, it is told of every message a user sends to one of the
agent's characters (AGENT_MESSAGE_RECEIVED) and answers it by writing the character's message with
the installation's token (scope AGENT_MESSAGE_WRITE)."""

from __future__ import annotations

import threading

from .config import PluginConfig
from .event_types import AgentMessageReceivedEvent
from .installations import installation_handlers
from .platform import Platform
from .reply import reply_to
from .server import WebhookServer
from .token_store import TokenStore


class Plugin:
    """The running event handler."""

    def __init__(self, config: PluginConfig) -> None:
        self.config = config
        self.tokens = TokenStore(config.token_file)
        #: Ids of the messages this plugin wrote, by the id of the user message they answer.
        self.replies: dict[str, str] = {}
        self._answering: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self.server = WebhookServer(
            config.port,
            config.host,
            config.webhook_secrets,
            {**installation_handlers(self.tokens), "AGENT_MESSAGE_RECEIVED": self.message_received},
            log=config.log,
            event_shapes=config.event_shapes,
        )
        self.webhook_url = self.server.webhook_url
        self.port = self.server.port

    def message_received(self, event: AgentMessageReceivedEvent) -> dict:
        data = event["data"]
        message = data["message"]
        # Deliveries run on threads: the same message delivered twice at once (a retry, a duplicate)
        # waits for the first to finish, then finds its answer.
        with self._lock:
            lock = self._answering.setdefault(message["id"], threading.Lock())
        with lock:
            earlier = self.replies.get(message["id"])
            if earlier:
                return {"ok": True, "messageId": earlier}
            # The token of the instance the event is for: a plugin may be installed on several agents.
            installation = self.tokens.get(event["pluginInstanceId"])
            # Unknown instance: answering 500 makes the platform retry once PLUGIN_INSTALLED has arrived.
            if installation is None:
                raise LookupError(f"no installation token for {event['pluginInstanceId']}")
            platform = Platform(self.config.platform_url, installation["accessToken"])
            written = platform.write_agent_message(data["agentId"], data["conversationId"], reply_to(message["content"]))
            self.replies[message["id"]] = written["id"]
        with self._lock:
            self._answering.pop(message["id"], None)
        return {"ok": True, "messageId": written["id"]}

    def close(self) -> None:
        self.server.close()


def start_plugin(config: PluginConfig) -> Plugin:
    """Starts the webhook server with this plugin's handlers."""
    return Plugin(config)
