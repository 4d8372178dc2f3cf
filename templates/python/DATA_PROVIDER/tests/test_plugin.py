"""End to end: `plugsmith emulator exec --deploy -- python3 -m unittest`."""

import os
import unittest

from tests.harness import FAULTS, Harness, call, wait_until

# The emulator's default workspace has this repository in the default user's org.
REPOSITORY = "repo_docs"


class DataProviderTest(unittest.TestCase):
    """Each test stands alone (any order, or run by itself with -k): the class installs the plugin
    and waits for its PLUGIN_INSTALLED before any test."""

    faults = None

    @classmethod
    def setUpClass(cls) -> None:
        cls.h = Harness(cls.faults)
        try:
            cls.instance = cls.h.install(f"/api/repositories/{REPOSITORY}/data-providers", "docs provider (test)")
            wait_until("PLUGIN_INSTALLED", lambda: cls.h.plugin.tokens.get(cls.instance["id"]))
        except BaseException:
            cls.h.close()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        cls.h.close()

    def add_file(self, file_name: str, text: str) -> str:
        """Uploads a text file and adds it to the repository, as a user of the org would."""
        body = text.encode()
        urls = self.h.management("POST", "/api/generate-upload-url", {"files": [{"fileName": file_name, "contentType": "text/plain", "fileSize": len(body)}]})
        [upload] = urls["files"]
        call(upload["signedUrl"], "", "PUT", upload["signedUrl"], raw=body, content_type="text/plain")
        file_id = upload["fileRecord"]["id"]
        self.h.management("PATCH", "/api/status", {"fileId": file_id, "status": "UPLOADED"})
        self.h.management("POST", f"/api/repositories/{REPOSITORY}/files", {"fileId": file_id})
        return file_id

    def test_keeps_its_installation_token_owner_only(self) -> None:
        tokens = self.h.plugin.tokens
        installation = wait_until("PLUGIN_INSTALLED", lambda: tokens.get(self.instance["id"]))
        self.assertEqual((installation["entityType"], installation["entityId"]), ("REPOSITORY", REPOSITORY))
        self.assertEqual(os.stat(tokens.path).st_mode & 0o777, 0o600)

    def test_reads_a_file_added_then_forgets_it_removed(self) -> None:
        documents = self.h.plugin.documents
        file_id = self.add_file("welcome.txt", "Hello from the repository.")
        document = wait_until("the file read", lambda: documents.get(file_id))
        self.assertEqual((document["fileName"], document["repositoryId"], document["text"]), ("welcome.txt", REPOSITORY, "Hello from the repository."))

        self.h.management("DELETE", f"/api/repositories/{REPOSITORY}/files/{file_id}")
        wait_until("the file forgotten", lambda: file_id not in documents)


class DataProviderTestUnderFaults(DataProviderTest):
    """The same tests under the faults the platform produces (duplicates, delays, reordering, retries)."""

    faults = FAULTS


if __name__ == "__main__":
    unittest.main()
