"""The webhook server, on the standard library's ThreadingHTTPServer."""

from __future__ import annotations

import json
import sys
import threading
import traceback
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Mapping, Optional

from .event_shapes import EventShapes
from .webhooks import Answer, Handler, Webhook, ascii_digits, failure

#: Larger bodies are answered 413.
MAX_BODY_BYTES = 1024 * 1024
#: A connection that sends nothing (or stalls in a request) for this long is closed.
SOCKET_TIMEOUT_SECONDS = 15


class WebhookHTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer with a listen backlog for bursts of deliveries."""

    # The standard library listens with a backlog of 5: under the platform's 16 concurrent
    # deliveries (and `plugsmith check`'s burst) the rest waited for a SYN retry, a second or more.
    request_queue_size = 128
    daemon_threads = True


def _shown(webhook_id: str) -> str:
    """A webhook-id as the log shows it: quoted, control characters escaped, at most 100 characters."""
    return json.dumps(webhook_id[:100]) if webhook_id else "(no webhook-id)"


class WebhookServer:
    """Serves POST /webhook and GET /health on a thread of its own until `close()`.

    The webhook (plugin/webhooks.py) checks each delivery's signature with the plugin's secrets,
    answers WEBHOOK_CHALLENGE and runs the handler of the event's kind; a handler that raises
    answers 500, so the platform retries. GET /health answers 200 for whoever waits for the
    server to be up (a load balancer, a container's health check, `plugsmith dev`).
    """

    def __init__(
        self,
        port: int,
        host: str,
        secrets: list[str],
        handlers: Mapping[str, Handler],
        log: Optional[Callable[[str], None]] = None,
        socket_timeout: float = SOCKET_TIMEOUT_SECONDS,
        event_shapes: Optional[str] = None,
    ) -> None:
        # PLUGSMITH_EVENT_SHAPES: a file to keep the shape of every verified event in (plugin/event_shapes.py).
        shapes = EventShapes(event_shapes) if event_shapes else None

        # Every failure, with its event id, webhook-id and traceback: plugsmith links these lines to the delivery attempt.
        def on_error(error: BaseException, event: dict, webhook_id: str) -> None:
            print(f"{event['type']} {event['id']} failed (webhook-id {_shown(webhook_id)}): {error}", file=sys.stderr)
            traceback.print_exception(error, file=sys.stderr)
            sys.stderr.flush()

        def now() -> str:
            return datetime.now(timezone.utc).isoformat(timespec="milliseconds")

        def on_handled(event: dict, ms: float) -> None:
            if log:
                log(f"{now()} {event['type']} {event['id']} handled in {ms:.0f} ms")
            if shapes:
                shapes.add(event)

        # A refused delivery leaves a line, so a wrong secret can be seen from the plugin's side too (never the secret).
        def on_refused(webhook_id: str, reason: str) -> None:
            if log:
                log(f"{now()} refused delivery {_shown(webhook_id)}: {reason}")

        def on_duplicate(webhook_id: str) -> None:
            if log:
                log(f"{now()} delivery {_shown(webhook_id)} was handled already: answered again, not handled twice")

        webhook = Webhook(secrets, handlers, on_error=on_error, on_handled=on_handled, on_refused=on_refused, on_duplicate=on_duplicate)

        class RequestHandler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # On the connection's socket: a read or write that waits longer ends the connection.
            timeout = socket_timeout

            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                if self.path.split("?")[0] != "/webhook":
                    return self.not_found()
                length = self.headers.get("content-length")
                if length is None:
                    return self.reply(failure(411, "LENGTH_REQUIRED", "send the body with a Content-Length"), close=True)
                # ASCII digits only: '²'.isdigit() is True, and int() would then raise with no answer sent.
                if not ascii_digits(length):
                    return self.reply(failure(400, "VALIDATION_ERROR", "Content-Length must be a number of bytes, in ASCII digits"), close=True)
                if int(length) > MAX_BODY_BYTES:
                    return self.reply(failure(413, "PAYLOAD_TOO_LARGE", f"the body is larger than {MAX_BODY_BYTES} bytes"), close=True)
                body = self.rfile.read(int(length))
                headers = {name: self.headers.get(name, "") for name in ("webhook-id", "webhook-timestamp", "webhook-signature")}
                self.reply(webhook.answer(headers, body))

            def do_GET(self) -> None:  # noqa: N802
                path = self.path.split("?")[0]
                if path == "/health":
                    return self.reply(Answer(200, {"ok": True}))
                if path == "/webhook":
                    return self.not_allowed()
                self.not_found()

            def do_PUT(self) -> None:  # noqa: N802
                self.not_allowed() if self.path.split("?")[0] == "/webhook" else self.not_found()

            do_DELETE = do_PATCH = do_PUT  # noqa: N815

            def not_allowed(self) -> None:
                self.reply(failure(405, "METHOD_NOT_ALLOWED", f"webhooks are delivered with POST, not {self.command}"), allow="POST")

            def not_found(self) -> None:
                self.reply(failure(404, "NOT_FOUND", "the webhook is at POST /webhook"))

            def reply(self, answer: Answer, close: bool = False, allow: Optional[str] = None) -> None:
                data = json.dumps(answer.body).encode()
                self.send_response(answer.status)
                self.send_header("content-type", "application/json; charset=utf-8")
                self.send_header("content-length", str(len(data)))
                if allow:
                    self.send_header("allow", allow)
                if close:
                    self.send_header("connection", "close")
                    self.close_connection = True
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                # One line per handled event comes from on_handled; the access log stays quiet.
                pass

        self._server = WebhookHTTPServer((host, port), RequestHandler)
        self.port: int = self._server.server_address[1]
        shown = f"[{host}]" if ":" in host else ("127.0.0.1" if host == "0.0.0.0" else host)
        #: Where the platform posts events: http://host:port/webhook.
        self.webhook_url = f"http://{shown}:{self.port}/webhook"
        self._thread = threading.Thread(target=self._server.serve_forever, name="webhook-server", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stops accepting deliveries and frees the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
