"""Standard Webhooks signature verification and dispatch by event type, with `hmac` alone.

The platform signs every delivery as Standard Webhooks (https://www.standardwebhooks.com) has it:

- `webhook-id`: the delivery's id (the same on every retry of it);
- `webhook-timestamp`: seconds since the epoch when it was sent;
- `webhook-signature`: space-separated `v1,<base64>` signatures, each the HMAC-SHA256 of
  `<webhook-id>.<webhook-timestamp>.<raw body>` keyed by the secret's bytes (the base64 after `whsec_`).

To use the Standard Webhooks library instead (`pip install standardwebhooks`), see README.md.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

#: A delivery's timestamp may be this far from now, either way: an older one is a replay.
TOLERANCE_SECONDS = 5 * 60

#: A handler gets the event (a dict) and returns a dict to answer with, or None for {"ok": true}.
Handler = Callable[[dict], Optional[dict]]


@dataclass
class Answer:
    """What the webhook answers: an HTTP status and a JSON body."""

    status: int
    body: dict


def secret_key(secret: str) -> bytes:
    """The HMAC key of a `whsec_...` secret; ValueError when it is not one."""
    encoded = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f'invalid webhook secret (expected "whsec_" and base64, the plugin\'s webhookSecret): {error}') from None
    if not key:
        raise ValueError("invalid webhook secret: it is empty")
    return key


def sign(key: bytes, webhook_id: str, timestamp: str, body: bytes) -> str:
    """The `v1,<base64>` signature of a delivery (tests use it to sign their own)."""
    signed = webhook_id.encode() + b"." + timestamp.encode() + b"." + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def verify(keys: list[bytes], headers: Mapping[str, str], body: bytes, now: Optional[float] = None) -> bool:
    """Whether one of `keys` signed this delivery, and its timestamp is within 5 minutes of now."""
    webhook_id = headers.get("webhook-id") or ""
    timestamp = headers.get("webhook-timestamp") or ""
    signatures = (headers.get("webhook-signature") or "").split()
    if not webhook_id or not timestamp.isdigit() or not signatures:
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    for key in keys:
        expected = sign(key, webhook_id, timestamp, body).encode()
        for signature in signatures:
            # Compared in constant time: timing must not tell how much of a guess was right.
            if signature.startswith("v1,") and hmac.compare_digest(signature.encode(), expected):
                return True
    return False


class Webhook:
    """Checks each delivery, answers the challenge, and runs the handler of the event's type.

    Every delivery is verified first (401 when that fails, before any work). WEBHOOK_CHALLENGE is
    answered {"challenge": ...} (the platform verifies the URL with it). A type without a handler
    is answered {"ok": true} (the platform adds types over time). A handler that raises answers
    500, and the platform retries the delivery.
    """

    def __init__(
        self,
        secrets: list[str],
        handlers: Mapping[str, Handler],
        on_error: Optional[Callable[[BaseException, dict], None]] = None,
        on_handled: Optional[Callable[[dict, float], None]] = None,
    ) -> None:
        if not secrets:
            raise ValueError("the webhook needs the plugin's webhookSecret")
        # A mistyped secret fails here, at start-up, rather than on the first delivery.
        self.keys = [secret_key(s) for s in secrets]
        self.handlers = dict(handlers)
        self.on_error = on_error
        self.on_handled = on_handled

    def answer(self, headers: Mapping[str, str], body: bytes) -> Answer:
        """The answer to one delivery: its headers (lower-case names) and its raw body."""
        # The raw bytes as received: parsing and re-serialising the JSON first would change what was signed.
        if not verify(self.keys, headers, body):
            return failure(401, "UNAUTHORIZED", "the delivery is not signed with this plugin's secret, or its timestamp is too old or too new")
        try:
            event: Any = json.loads(body)
        except ValueError:
            return failure(400, "VALIDATION_ERROR", "the body is not JSON")
        if not isinstance(event, dict) or not isinstance(event.get("id"), str) or not isinstance(event.get("type"), str):
            return failure(400, "VALIDATION_ERROR", 'the body is not an event with a string "id" and "type"')

        started = time.monotonic()
        handler = self.handlers.get(event["type"])
        try:
            result = handler(event) if handler else None
        except Exception as error:  # noqa: BLE001 - any failure is answered 500, so the platform retries
            if self.on_error:
                try:
                    self.on_error(error, event)
                except Exception:  # noqa: BLE001 - a failing reporter must not change the answer
                    pass
            # The handler's message may hold internals; the platform's delivery log shows only the type.
            return failure(500, "SERVER_ERROR", f"the {event['type']} handler failed")
        if self.on_handled:
            self.on_handled(event, (time.monotonic() - started) * 1000)
        if result is not None:
            return Answer(200, result)
        if event["type"] == "WEBHOOK_CHALLENGE":
            data = event.get("data") if isinstance(event.get("data"), dict) else {}
            return Answer(200, {"challenge": data.get("challenge")})
        return Answer(200, {"ok": True})


def failure(status: int, error: str, message: str) -> Answer:
    """An error answer in the platform's envelope."""
    return Answer(status, {"ok": False, "error": {"error": error, "message": message}})
