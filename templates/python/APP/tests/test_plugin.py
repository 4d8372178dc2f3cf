"""End to end: `plugsmith emulator exec --deploy -- python3 -m unittest`."""

import os
import unittest

from tests.harness import FAULTS, Harness, wait_until

# Apps are named by their id; the first install binds the app to an org.
APP = "app_demo"


class AppTest(unittest.TestCase):
    faults = None

    @classmethod
    def setUpClass(cls) -> None:
        cls.h = Harness(cls.faults)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.h.close()

    def test_records_an_install_and_an_uninstall(self) -> None:
        plugin = self.h.plugin
        instance = self.h.install(f"/api/apps/{APP}/plugins", "demo app (test)", orgId=self.h.org_id)
        installation = wait_until("PLUGIN_INSTALLED", lambda: plugin.tokens.get(instance["id"]))
        self.assertEqual((installation["entityType"], installation["entityId"]), ("APP", APP))
        self.assertEqual(os.stat(plugin.tokens.path).st_mode & 0o777, 0o600)
        [entry] = wait_until("the install in the history", plugin.history.list)
        self.assertEqual((entry["change"], entry["instanceId"], entry["appId"]), ("installed", instance["id"], APP))

        self.h.management("DELETE", f"/api/apps/{APP}/plugins/{instance['id']}")
        wait_until("PLUGIN_UNINSTALLED", lambda: len(plugin.history.list()) == 2)
        self.assertIsNone(plugin.tokens.get(instance["id"]))
        self.assertEqual([e["change"] for e in plugin.history.list()], ["installed", "uninstalled"])


class AppTestUnderFaults(AppTest):
    """The same tests under the faults the platform produces (duplicates, delays, reordering, retries)."""

    faults = FAULTS


if __name__ == "__main__":
    unittest.main()
