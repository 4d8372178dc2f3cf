"""Standard Webhooks signature verification and dispatch by event kind, with `hmac` alone.

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
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

#: A delivery's timestamp may be this far from now, either way: an older one is a replay.
TOLERANCE_SECONDS = 5 * 60

#: At most this many handled webhook-ids are remembered; the oldest go first.
REMEMBERED_DELIVERIES = 10_000

#: How long a copy of a delivery waits for the first one's handler before answering 503 (retried).
WAIT_FOR_FIRST_SECONDS = 30

#: A handler gets the event (a dict) and returns a dict to answer with, or None for {"ok": true}.
Handler = Callable[[dict], Optional[dict]]


@dataclass
class Answer:
    """What the webhook answers: an HTTP status and a JSON body."""

    status: int
    body: dict


def ascii_digits(value: str) -> bool:
    """Whether `value` is 1 to 15 ASCII digits: `str.isdigit()` also takes '²' and '٣', which `int()` then refuses."""
    return re.fullmatch(r"[0-9]{1,15}", value) is not None


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
    if not webhook_id or not ascii_digits(timestamp) or not signatures:
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


def refusal_reason(headers: Mapping[str, str], now: Optional[float] = None) -> str:
    """Why `verify` refused a delivery, in the words of the plugin's log (never the secret)."""
    timestamp = headers.get("webhook-timestamp") or ""
    if not headers.get("webhook-id") or not timestamp or not headers.get("webhook-signature"):
        return "no webhook-id, webhook-timestamp or webhook-signature header"
    if ascii_digits(timestamp) and abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE_SECONDS:
        return f"webhook-timestamp more than {TOLERANCE_SECONDS} s from now (a replay, or a wrong clock)"
    return "no signature made with this plugin's secret (is PLUGSMITH_WEBHOOK_SECRET the plugin's webhookSecret?)"


class HandledDeliveries:
    """The answers of the deliveries handled in the signature window, by webhook-id.

    A delivery replayed within the window (or retried after its answer was lost) is answered again
    without its handler running twice. A webhook-id being handled is waited for, not handled again;
    one not answered 2xx is forgotten, so the platform's retry does the work.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: webhook-id -> (expires at, the answer); insertion order is age order.
        self._answers: dict[str, tuple[float, Answer]] = {}
        self._running: dict[str, threading.Event] = {}
        self._swept_at = 0.0

    def claim(self, webhook_id: str) -> Optional[Answer]:
        """The earlier answer of `webhook_id`; None when the caller is to handle it (then `settle` it)."""
        while True:
            with self._lock:
                self._sweep()
                earlier = self._answers.get(webhook_id)
                if earlier and earlier[0] > time.time():
                    return earlier[1]
                running = self._running.get(webhook_id)
                if running is None:
                    self._running[webhook_id] = threading.Event()
                    return None
            # A copy of a delivery still being handled waits for it, but holds its thread for a bounded time.
            if not running.wait(WAIT_FOR_FIRST_SECONDS):
                return failure(503, "SERVICE_UNAVAILABLE", "this delivery is still being handled: retry later")

    def settle(self, webhook_id: str, answer: Answer, expires_at: float) -> None:
        """Records the answer of a claimed webhook-id (when 2xx) and lets whoever waits for it go on."""
        with self._lock:
            if 200 <= answer.status <= 299:
                self._answers[webhook_id] = (expires_at, answer)
                if len(self._answers) > REMEMBERED_DELIVERIES:
                    del self._answers[next(iter(self._answers))]
            running = self._running.pop(webhook_id, None)
        if running:
            running.set()

    def _sweep(self) -> None:
        """Drops the expired answers, at most once a second (under the lock)."""
        now = time.time()
        if now - self._swept_at < 1:
            return
        self._swept_at = now
        for webhook_id in [key for key, (expires_at, _) in self._answers.items() if expires_at <= now]:
            del self._answers[webhook_id]


class Webhook:
    """Checks each delivery, answers the challenge, and runs the handler of the event's kind.

    Every delivery is verified first (401 when that fails, before any work; 400 for a
    webhook-timestamp that is not digits). A webhook-id already answered 2xx in the last 5
    minutes gets the same answer again, without its handler running twice. WEBHOOK_CHALLENGE is
    answered {"challenge": ...} (the platform verifies the URL with it). A type without a handler
    is answered {"ok": true} (the platform adds types over time). A handler that raises answers
    500, and the platform retries the delivery.
    """

    def __init__(
        self,
        secrets: list[str],
        handlers: Mapping[str, Handler],
        on_error: Optional[Callable[[BaseException, dict, str], None]] = None,
        on_handled: Optional[Callable[[dict, float], None]] = None,
        on_refused: Optional[Callable[[str, str], None]] = None,
        on_duplicate: Optional[Callable[[str], None]] = None,
    ) -> None:
        if not secrets:
            raise ValueError("the webhook needs the plugin's webhookSecret")
        # A mistyped secret fails here, at start-up, rather than on the first delivery.
        self.keys = [secret_key(s) for s in secrets]
        self.handlers = dict(handlers)
        self.on_error = on_error
        self.on_handled = on_handled
        #: Told of a delivery refused before any work: its webhook-id and why (never the secret).
        self.on_refused = on_refused
        #: Told of a delivery whose webhook-id was handled already: answered again, not handled again.
        self.on_duplicate = on_duplicate
        self.deliveries = HandledDeliveries()

    def answer(self, headers: Mapping[str, str], body: bytes) -> Answer:
        """The answer to one delivery: its headers (lower-case names) and its raw body."""
        webhook_id = headers.get("webhook-id") or ""
        timestamp = headers.get("webhook-timestamp") or ""
        if timestamp and not ascii_digits(timestamp):
            self._refused(webhook_id, "webhook-timestamp is not seconds since the epoch")
            return failure(400, "VALIDATION_ERROR", "webhook-timestamp must be seconds since the epoch, in ASCII digits")
        # The raw bytes as received: parsing and re-serialising the JSON first would change what was signed.
        if not verify(self.keys, headers, body):
            self._refused(webhook_id, refusal_reason(headers))
            return failure(401, "UNAUTHORIZED", "the delivery is not signed with this plugin's secret, or its timestamp is too old or too new")
        earlier = self.deliveries.claim(webhook_id)
        if earlier is not None:
            if self.on_duplicate:
                self.on_duplicate(webhook_id)
            return earlier
        answer = failure(500, "SERVER_ERROR", "the delivery could not be handled")
        try:
            answer = self._handle(body, webhook_id)
        finally:
            # Valid until its timestamp leaves the window; a retry of it within 5 minutes of now is caught too.
            expires_at = max(int(timestamp), time.time()) + TOLERANCE_SECONDS
            self.deliveries.settle(webhook_id, answer, expires_at)
        return answer

    def _refused(self, webhook_id: str, reason: str) -> None:
        if self.on_refused:
            self.on_refused(webhook_id, reason)

    def _handle(self, body: bytes, webhook_id: str) -> Answer:
        """Parses the verified body and runs the handler of its type."""
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
                    self.on_error(error, event, webhook_id)
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
