"""End to end: `plugsmith emulator exec --deploy -- python3 -m unittest`."""

import os
import unittest

from tests.harness import FAULTS, Harness, wait_until

# The emulator's default workspace: an agent and one of its characters.
AGENT = "agent_nova"
CHARACTER = "char_nova"


class EventHandlerTest(unittest.TestCase):
    """Each test stands alone (any order, or run by itself with -k): the class installs the plugin
    and waits for its PLUGIN_INSTALLED before any test."""

    faults = None

    @classmethod
    def setUpClass(cls) -> None:
        cls.h = Harness(cls.faults)
        try:
            cls.instance = cls.h.install(f"/api/agents/{AGENT}/plugins", "replies (test)")
            wait_until("PLUGIN_INSTALLED", lambda: cls.h.plugin.tokens.get(cls.instance["id"]))
        except BaseException:
            cls.h.close()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        cls.h.close()

    def test_keeps_its_installation_token_owner_only(self) -> None:
        tokens = self.h.plugin.tokens
        installation = wait_until("PLUGIN_INSTALLED", lambda: tokens.get(self.instance["id"]))
        self.assertEqual((installation["entityType"], installation["entityId"]), ("AGENT", AGENT))
        self.assertTrue(installation["accessToken"])
        self.assertEqual(os.stat(tokens.path).st_mode & 0o777, 0o600)

    def test_answers_a_users_message_as_the_character(self) -> None:
        conversation = self.h.messaging("POST", "/conversations", {"characterId": CHARACTER})
        sent = self.h.messaging("POST", f"/conversations/{conversation['id']}/messages", {"content": "hello"})
        reply_id = wait_until("the reply", lambda: self.h.plugin.replies.get(sent["id"]))

        messages = self.h.messaging("GET", f"/conversations/{conversation['id']}/messages?after={sent['id']}")
        reply = next(m for m in messages if m["id"] == reply_id)
        self.assertEqual((reply["sender"], reply["content"], reply["isStreaming"]), ("CHARACTER", "You said: hello", False))
        # Answered once, even when the platform sends the message again (retries, duplicates).
        self.assertEqual(len([m for m in messages if m["content"] == "You said: hello"]), 1)


class EventHandlerTestUnderFaults(EventHandlerTest):
    """The same tests under the faults the platform produces (duplicates, delays, reordering, retries)."""

    faults = FAULTS


if __name__ == "__main__":
    unittest.main()
