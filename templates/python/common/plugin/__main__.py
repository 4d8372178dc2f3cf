"""`python3 -m plugin`: reads the environment, serves until stopped (Ctrl+C or SIGTERM)."""

from __future__ import annotations

import signal
import sys
import threading

from .config import config_from_env
from .events import start_plugin


def main() -> int:
    try:
        config = config_from_env()
    except ValueError as error:
        # A configuration mistake gets its message, not a traceback.
        print(error, file=sys.stderr)
        return 1
    config.log = lambda line: print(line, flush=True)
    plugin = start_plugin(config)
    print(f"{{name}} is listening at {plugin.webhook_url} (platform: {config.platform_url})", flush=True)
    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stop.set())
    while not stop.wait(1):
        pass
    plugin.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
