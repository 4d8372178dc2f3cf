"""The plugin started in-process against an emulator that `plugsmith emulator exec --deploy` runs.

`plugsmith emulator exec --deploy -- python3 -m unittest` starts an in-memory emulator, deploys
plugsmith.json to it, and runs the tests with its URLs and credentials in the environment:
PLUGSMITH_BASE_URL (management API), PLUGSMITH_MESSAGING_URL (messaging API, a second server),
PLUGSMITH_TOKEN (the emulator's default user, OWNER of its org), PLUGSMITH_API_KEY (the messaging
API's key), PLUGSMITH_ORG_ID, PLUGSMITH_PLUGIN_ID and PLUGSMITH_WEBHOOK_SECRET (the deployed plugin).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Optional

from plugin.config import PluginConfig
from plugin.events import Plugin, start_plugin

#: Faults the real platform produces, injected into every delivery but the challenge: each event sent
#: twice (same webhook-id, possibly at once), delays, events overtaking each other, lost attempts, and
#: answers lost after the plugin gave them (so the event comes again), as the TypeScript template's
#: tests have them. The seed makes a failure reproducible. plugsmith's docs/fault-injection.md.
FAULTS = {"profile": "duplicate=1,delay=0-100ms,reorder=0.3:300ms,drop=0.3,timeout-after-answer=0.3", "seed": "7"}

NEEDED = ("PLUGSMITH_BASE_URL", "PLUGSMITH_MESSAGING_URL", "PLUGSMITH_TOKEN", "PLUGSMITH_API_KEY", "PLUGSMITH_ORG_ID", "PLUGSMITH_PLUGIN_ID", "PLUGSMITH_WEBHOOK_SECRET")
PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def call(base_url: str, credential: str, method: str, path: str, body: Any = None, raw: Optional[bytes] = None, content_type: str = "application/json", headers: Optional[dict] = None) -> Any:
    """One call to the emulator: the `data` of its envelope; AssertionError with its message on an error."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    headers = {"accept": "application/json", **(headers or {})}
    if credential:
        headers["authorization"] = f"Bearer {credential}"
    if data is not None:
        headers["content-type"] = content_type
    request = urllib.request.Request(base_url.rstrip("/") + path if path.startswith("/") else path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {path} answered HTTP {error.code}: {error.read().decode()[:500]}") from None
    if not text:
        return None
    parsed = json.loads(text)
    return parsed.get("data") if isinstance(parsed, dict) and "data" in parsed else parsed


def wait_until(what: str, check: Callable[[], Any], timeout: float = 30) -> Any:
    """Polls `check` until it returns something truthy (deliveries are asynchronous)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.1)


class Harness:
    """The plugin on a free port with a fresh data folder, its webhook URL pointed at it and verified;
    with `faults`, the emulator's deliveries get them until `close()`."""

    def __init__(self, faults: Optional[dict] = None) -> None:
        missing = [name for name in NEEDED if not os.environ.get(name)]
        if missing:
            raise RuntimeError(f"{', '.join(missing)} not set: run the tests with `plugsmith emulator exec --deploy -- python3 -m unittest`")
        env = os.environ
        self.base_url = env["PLUGSMITH_BASE_URL"]
        self.messaging_url = env["PLUGSMITH_MESSAGING_URL"]
        self.token = env["PLUGSMITH_TOKEN"]
        self.api_key = env["PLUGSMITH_API_KEY"]
        self.org_id = env["PLUGSMITH_ORG_ID"]
        self.plugin_id = env["PLUGSMITH_PLUGIN_ID"]
        self.admin_token = env.get("PLUGSMITH_ADMIN_TOKEN", "")
        self.faults = faults
        with open(os.path.join(PROJECT, "plugsmith.json"), encoding="utf-8") as file:
            self.manifest = json.load(file)
        self._installed: list[str] = []
        self.data_dir = tempfile.mkdtemp(prefix="plugin-test-")
        self.plugin: Plugin = start_plugin(
            PluginConfig(
                port=0,
                host="127.0.0.1",
                webhook_secrets=env["PLUGSMITH_WEBHOOK_SECRET"].replace(",", " ").split(),
                platform_url=self.base_url,
                data_dir=self.data_dir,
                token_file=os.path.join(self.data_dir, "tokens.json"),
            )
        )
        try:
            # The manifest's webhook URL names a fixed port; the test's server listens on a free
            # one, so the URL is set once the server is up, then verified (WEBHOOK_CHALLENGE).
            self.management("PUT", f"/api/plugins/{self.plugin_id}", {"webhookUrl": self.plugin.webhook_url})
            verification = self.management("POST", f"/api/plugins/{self.plugin_id}/verify-webhook")
            if not verification.get("verified"):
                raise AssertionError(f"the webhook was not verified: {verification.get('reason')}")
            if faults:
                self.admin("PUT", "/_emulator/faults", faults)
        except BaseException:
            self.close()
            raise

    def management(self, method: str, path: str, body: Any = None) -> Any:
        """The management API as the emulator's default user."""
        return call(self.base_url, self.token, method, path, body)

    def messaging(self, method: str, path: str, body: Any = None) -> Any:
        """The messaging API (its own server), with the API key."""
        return call(self.messaging_url, self.api_key, method, path, body)

    def admin(self, method: str, path: str, body: Any = None) -> Any:
        """The emulator's own admin surface (/_emulator/...), with its admin credential."""
        return call(self.base_url, "", method, path, body, headers={"x-plugsmith-admin": self.admin_token})

    def install(self, collection_path: str, name: str, **extra: Any) -> dict:
        """Installs the plugin (POST <entity>/plugins or /data-providers) with the manifest's events and
        scopes; `close()` uninstalls it, so that the next test's plugin is not sent its events."""
        plugin = self.manifest["plugin"]
        instance = self.management("POST", collection_path, {"name": name, "pluginId": self.plugin_id, "events": plugin["events"], "scopes": plugin["scopes"], **extra})
        self._installed.append(f"{collection_path}/{instance['id']}")
        return instance

    def close(self) -> None:
        try:
            if self.faults:
                self.admin("PUT", "/_emulator/faults", {"profile": "off"})
            for path in self._installed:
                try:
                    self.management("DELETE", path)
                except AssertionError:
                    pass  # removed by the test already
        finally:
            self.plugin.close()
            shutil.rmtree(self.data_dir, ignore_errors=True)
