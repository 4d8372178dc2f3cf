"""The project's scenarios (scenarios/*.json), played by `plugsmith scenario run` against the plugin
started here: `plugsmith emulator exec --deploy -- python3 -m unittest`. (In CI,
`plugsmith scenario run --start` plays them without this test: it starts everything itself.)"""

import os
import shlex
import subprocess
import unittest

from tests.harness import PROJECT, Harness

#: Where each kind of install of the manifest goes (as `plugsmith dev` makes them).
INSTALL_PATHS = {"agent": "/api/agents/{}/plugins", "repository": "/api/repositories/{}/data-providers", "app": "/api/apps/{}/plugins"}


class ScenariosTest(unittest.TestCase):
    def test_the_scenarios_pass(self) -> None:
        h = Harness()
        try:
            for install in h.manifest.get("installs", []):
                for kind, path in INSTALL_PATHS.items():
                    if kind in install:
                        extra = {"orgId": h.org_id} if kind == "app" else {}
                        h.install(path.format(install[kind]), install["name"], **extra)
            # PLUGSMITH_CLI: how to run plugsmith (`plugsmith emulator exec` sets it to itself).
            cli = shlex.split(os.environ.get("PLUGSMITH_CLI", "plugsmith"))
            run = subprocess.run([*cli, "scenario", "run", "scenarios", "--plugin", h.plugin_id], cwd=PROJECT, capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        finally:
            h.close()


if __name__ == "__main__":
    unittest.main()
