"""The project's scenarios (scenarios/*.json), one test each, played by `plugsmith scenario run`
against the plugin started here: `plugsmith emulator exec --deploy -- python3 -m unittest`. (In CI,
`plugsmith scenario run --start` plays them without this test: it starts everything itself.)"""

import os
import re
import shlex
import subprocess
import unittest

from tests.harness import PROJECT, Harness

#: Where each kind of install of the manifest goes (as `plugsmith dev` makes them).
INSTALL_PATHS = {"agent": "/api/agents/{}/plugins", "repository": "/api/repositories/{}/data-providers", "app": "/api/apps/{}/plugins"}
SCENARIOS = os.path.join(PROJECT, "scenarios")


class ScenariosTest(unittest.TestCase):
    """One test per file of scenarios/ (added below), each standing alone; the plugin and the
    manifest's installs are set up once for them all."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.h = Harness()
        try:
            for install in cls.h.manifest.get("installs", []):
                for kind, path in INSTALL_PATHS.items():
                    if kind in install:
                        extra = {"orgId": cls.h.org_id} if kind == "app" else {}
                        cls.h.install(path.format(install[kind]), install["name"], **extra)
        except BaseException:
            cls.h.close()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        cls.h.close()

    def run_scenario(self, file: str) -> None:
        # PLUGSMITH_CLI: how to run plugsmith (`plugsmith emulator exec` sets it to itself).
        cli = shlex.split(os.environ.get("PLUGSMITH_CLI", "plugsmith"))
        run = subprocess.run([*cli, "scenario", "run", os.path.join("scenarios", file), "--plugin", self.h.plugin_id], cwd=PROJECT, capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)


def _add_test(file: str) -> None:
    name = "test_" + re.sub(r"\W+", "_", file[: -len(".json")]).strip("_").lower()
    setattr(ScenariosTest, name, lambda self: self.run_scenario(file))


for _file in sorted(os.listdir(SCENARIOS)):
    if _file.endswith(".json"):
        _add_test(_file)


if __name__ == "__main__":
    unittest.main()
