#!/usr/bin/env python3
"""`trit pull` and `trit models` end to end, against a real HTTP server on
loopback (model_server.py) that behaves well or badly on demand.

Each test gets its own TRIT_HOME. Checks what a user would see (exit codes,
messages, `trit models list --json`) and what is left in the models
directory. Nothing here contacts anything but 127.0.0.1.

  store_pull_test.py --trit build/trit --model models/stories260K.gguf
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_server import ModelServer  # noqa: E402

ARGS = None
MODEL = b""
SHA = ""


class StoreTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ModelServer({"/m/stories260K.gguf": MODEL, "/m/other.gguf": MODEL,
                                  "/notmodel.gguf": b"PK\x03\x04 this is a zip, not a model" * 10})

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="trit-store-test-")
        self.env = dict(os.environ, TRIT_HOME=self.home)
        self.models = os.path.join(self.home, "models")
        # Each test serves its own path so modes and request logs do not mix.
        self.path = f"/m/{self._testMethodName}/stories260K.gguf"
        self.server.httpd.files[self.path] = MODEL
        self.url = self.server.url(self.path)

    def tearDown(self):
        shutil.rmtree(self.home, ignore_errors=True)

    def trit(self, *args, timeout=60):
        return subprocess.run([ARGS.trit, *args], env=self.env, capture_output=True, text=True, timeout=timeout)

    def spawn(self, *args):
        return subprocess.Popen([ARGS.trit, *args], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    def listed(self):
        r = self.trit("models", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return {m["name"]: m for m in json.loads(r.stdout)["models"]}

    def assert_listed_models_are_whole(self):
        """Whatever list reports is the complete file with the recorded sha256."""
        for name, m in self.listed().items():
            with open(m["path"], "rb") as f:
                data = f.read()
            self.assertEqual(len(data), m["size"], name)
            self.assertEqual(hashlib.sha256(data).hexdigest(), m["sha256"], name)
            self.assertEqual(m["sha256"], SHA, name)

    def files(self):
        return sorted(os.listdir(self.models)) if os.path.isdir(self.models) else []

    def events(self, stdout):
        return [json.loads(line) for line in stdout.splitlines() if line.strip()]

    # --- the normal path ----------------------------------------------------

    def test_full_download_list_show_run_rm(self):
        r = self.trit("pull", self.url, "--sha256", SHA.upper())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("pull stories260k: done", r.stderr)  # plain lines: stderr is not a terminal
        models = self.listed()
        self.assertEqual(list(models), ["stories260k"])
        m = models["stories260k"]
        self.assertEqual(m["sha256"], SHA)
        self.assertEqual(m["size"], len(MODEL))
        self.assertEqual(m["source"], self.url)
        self.assertEqual(m["architecture"], "llama")
        self.assertTrue(m["path"].startswith(self.models))
        self.assertEqual(self.files(), ["stories260k.gguf", "stories260k.lock", "stories260k.manifest.json"])
        # Names resolve in show and run.
        r = self.trit("show", "stories260k", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["path"], m["path"])
        r = self.trit("run", "stories260k", "Once upon", "-n", "4", "--temp", "0", "--raw")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.strip(), r.stderr)  # the continuation
        r = self.trit("models", "show", "stories260k")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(SHA, r.stdout)
        # Pulling again is a no-op that says so.
        n_requests = len(self.server.requests(self.path))
        r = self.trit("pull", self.url, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.events(r.stdout)[-1]["event"], "already_present")
        self.assertEqual(len(self.server.requests(self.path)), n_requests)
        # rm refuses to ask a non-terminal; -y removes.
        r = self.trit("models", "rm", "stories260k")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("-y", r.stderr)
        r = self.trit("models", "rm", "stories260k", "-y")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.listed(), {})
        self.assertNotIn("stories260k.gguf", self.files())

    def test_json_events(self):
        r = self.trit("pull", self.url, "--name", "s", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        ev = self.events(r.stdout)
        kinds = [e["event"] for e in ev]
        self.assertEqual(kinds[0], "start")
        self.assertIn("progress", kinds)
        self.assertEqual(kinds[-2:], ["verify", "done"])
        self.assertEqual(ev[0]["total"], len(MODEL))
        self.assertEqual(ev[-1]["bytes"], len(MODEL))

    def test_run_pulls_a_url_first(self):
        r = self.trit("run", self.url, "Once", "-n", "2", "--temp", "0", "--raw")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("pull stories260k: done", r.stderr)
        self.assertEqual(list(self.listed()), ["stories260k"])

    def test_local_file(self):
        r = self.trit("pull", ARGS.model, "--name", "local")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = self.listed()["local"]
        self.assertEqual(m["sha256"], SHA)
        self.assertEqual(m["source"], os.path.abspath(ARGS.model))

    def test_name_taken_by_another_source(self):
        self.assertEqual(self.trit("pull", self.url, "--name", "x").returncode, 0)
        r = self.trit("pull", self.server.url("/m/other.gguf"), "--name", "x")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("taken", r.stderr)

    def test_stale_manifest_is_reported_and_cleaned(self):
        self.assertEqual(self.trit("pull", self.url).returncode, 0)
        os.remove(os.path.join(self.models, "stories260k.gguf"))
        r = self.trit("models", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["models"], [])
        self.assertIn("stale manifest of 'stories260k'", r.stderr)
        self.assertIn("gone", r.stderr)
        self.assertNotIn("stories260k.manifest.json", self.files())
        r = self.trit("show", "stories260k")
        self.assertEqual(r.returncode, 1)
        # A pull after the file vanished fetches it again.
        self.assertEqual(self.trit("pull", self.url).returncode, 0)
        self.assert_listed_models_are_whole()

    # --- interrupted transfers ----------------------------------------------

    def test_resume_after_dropped_connection(self):
        self.server.set_mode(self.path, "truncate")
        r = self.trit("pull", self.url)
        self.assertEqual(r.returncode, 1)
        self.assertIn("connection closed", r.stderr)
        self.assertIn("resume", r.stderr)
        partial = os.path.join(self.models, "stories260k.gguf.partial")
        self.assertEqual(os.path.getsize(partial), len(MODEL) // 2)
        self.assertEqual(self.listed(), {})
        self.server.set_mode(self.path, "normal")
        r = self.trit("pull", self.url, "--json", "--sha256", SHA)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("resume", [e["event"] for e in self.events(r.stdout)])
        self.assertEqual(self.server.requests(self.path)[-1][1], f"bytes={len(MODEL) // 2}-")
        self.assert_listed_models_are_whole()
        self.assertNotIn("stories260k.gguf.partial", self.files())

    def test_complete_partial_is_not_fetched_again(self):
        # As a pull killed after the last byte, before the rename, leaves it.
        os.makedirs(self.models)
        with open(os.path.join(self.models, "stories260k.gguf.partial"), "wb") as f:
            f.write(MODEL)
        with open(os.path.join(self.models, "stories260k.gguf.partial.source"), "w") as f:
            f.write(self.url + "\n")
        r = self.trit("pull", self.url, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("complete", self.events(r.stdout)[0]["message"])
        self.assertEqual(self.server.requests(self.path), [(self.path, f"bytes={len(MODEL)}-")])
        self.assert_listed_models_are_whole()

    def test_ctrl_c_keeps_the_partial_for_resuming(self):
        self.server.set_mode(self.path, "slow")
        self.server.httpd.slow_pause = 0.02  # ~1.5 s for the whole file
        try:
            p = self.spawn("pull", self.url)
            partial = os.path.join(self.models, "stories260k.gguf.partial")
            deadline = time.time() + 20
            while time.time() < deadline and not (os.path.exists(partial) and os.path.getsize(partial) > 0):
                time.sleep(0.01)
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=30)
        finally:
            self.server.httpd.slow_pause = 0.005
        self.assertNotEqual(p.returncode, 0)
        kept = os.path.getsize(partial)
        self.assertGreater(kept, 0)
        self.assertEqual(self.listed(), {})
        self.server.set_mode(self.path, "normal")
        self.assertEqual(self.trit("pull", self.url).returncode, 0)
        self.assertEqual(self.server.requests(self.path)[-1][1], f"bytes={kept}-")
        self.assert_listed_models_are_whole()

    def test_server_without_range_support(self):
        self.server.set_mode(self.path, "truncate")
        self.assertEqual(self.trit("pull", self.url).returncode, 1)
        self.server.set_mode(self.path, "no-range")
        r = self.trit("pull", self.url)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ignored the Range request", r.stderr)
        self.assert_listed_models_are_whole()

    def test_resume_of_another_url_starts_over(self):
        self.server.set_mode(self.path, "truncate")
        self.assertEqual(self.trit("pull", self.url, "--name", "n").returncode, 1)
        r = self.trit("pull", self.server.url("/m/other.gguf"), "--name", "n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIsNone(self.server.requests("/m/other.gguf")[-1][1])  # no Range: a fresh download
        self.assert_listed_models_are_whole()

    def test_server_that_keeps_the_connection_open(self):
        # Complete after Content-Length bytes and a short wait for extra ones,
        # not when the server hangs up 60 s later (or the 60 s stall timeout).
        self.server.set_mode(self.path, "keep-open")
        r = self.trit("pull", self.url, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_listed_models_are_whole()

    def test_kill_9_at_random_points_never_lists_a_broken_model(self):
        self.server.set_mode(self.path, "slow")  # ~0.4 s a pull
        rng = random.Random(1234)
        for _ in range(8):
            p = self.spawn("pull", self.url)
            time.sleep(rng.uniform(0.0, 0.6))
            p.send_signal(signal.SIGKILL)
            p.communicate()
            self.assert_listed_models_are_whole()
        self.server.set_mode(self.path, "normal")
        r = self.trit("pull", self.url)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(list(self.listed()), ["stories260k"])
        self.assert_listed_models_are_whole()

    def test_concurrent_pulls_of_the_same_model(self):
        self.server.set_mode(self.path, "slow")
        first = self.spawn("pull", self.url, "--json")
        partial = os.path.join(self.models, "stories260k.gguf.partial")
        deadline = time.time() + 10
        while not os.path.exists(partial) and time.time() < deadline:
            time.sleep(0.01)
        second = self.spawn("pull", self.url, "--json")
        out1, err1 = first.communicate(timeout=30)
        out2, err2 = second.communicate(timeout=30)
        self.assertEqual(first.returncode, 0, err1)
        self.assertEqual(second.returncode, 0, err2)
        kinds2 = [e["event"] for e in self.events(out2)]
        self.assertEqual(kinds2[0], "waiting")
        self.assertEqual(kinds2[-1], "already_present")
        self.assertEqual(self.events(out1)[-1]["event"], "done")
        self.assertEqual(len([r for r in self.server.requests(self.path)]), 1)
        self.assert_listed_models_are_whole()

    # --- refusals -------------------------------------------------------------

    def assert_refused(self, r, *needles, partial_kept=False):
        self.assertEqual(r.returncode, 1, r.stderr)
        for n in needles:
            self.assertIn(n, r.stderr)
        self.assertEqual(self.listed(), {})
        left = [f for f in self.files() if f.endswith(".gguf")]
        self.assertEqual(left, [])
        self.assertEqual(any(f.endswith(".partial") for f in self.files()), partial_kept, self.files())

    def test_wrong_sha256(self):
        r = self.trit("pull", self.url, "--sha256", "0" * 64)
        self.assert_refused(r, "sha256 mismatch", SHA)

    def test_truncated_body(self):
        self.server.set_mode(self.path, "truncate")
        self.assert_refused(self.trit("pull", self.url), "connection closed after", partial_kept=True)

    def test_lying_content_length(self):
        self.server.set_mode(self.path, "lying-length")
        self.assert_refused(self.trit("pull", self.url), f"{len(MODEL) + 1000} bytes the server announced",
                            partial_kept=True)

    def test_more_bytes_than_announced(self):
        for mode in ("extra", "short-length"):
            self.server.set_mode(self.path, mode)
            self.assert_refused(self.trit("pull", self.url), "more bytes than its Content-Length")

    def test_html_instead_of_a_model(self):
        self.server.set_mode(self.path, "html")
        self.assert_refused(self.trit("pull", self.url), "HTML page", "text/html")
        self.server.set_mode(self.path, "html-bare")
        self.assert_refused(self.trit("pull", self.url), "HTML page", "<!DOCTYPE")

    def test_not_a_gguf_file(self):
        self.assert_refused(self.trit("pull", self.server.url("/notmodel.gguf")), "not a GGUF model")

    def test_redirect_loop(self):
        self.server.set_mode(self.path, "redirect-loop")
        self.assert_refused(self.trit("pull", self.url), "redirect loop")

    def test_http_404(self):
        self.assert_refused(self.trit("pull", self.server.url("/nothing/here.gguf")), "HTTP 404")

    def test_disk_full(self):
        """A 700 KiB tmpfs as TRIT_HOME: refused before writing when the size
        is announced, and at the write that fails when it is not."""
        small = os.path.join(self.home, "small")
        os.makedirs(small)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=700k", "tmpfs", small], capture_output=True, text=True)
        if r.returncode != 0:
            self.skipTest(f"cannot mount a small tmpfs here (needs root): {r.stderr.strip()}")
        try:
            self.env["TRIT_HOME"] = small
            self.models = os.path.join(small, "models")
            self.assert_refused(self.trit("pull", self.url), "not enough free space")
            self.server.set_mode(self.path, "no-length")
            self.assert_refused(self.trit("pull", self.url), "disk full writing", "kept", partial_kept=True)
        finally:
            subprocess.run(["umount", small], check=False)

    def test_names_cannot_escape_the_models_directory(self):
        for bad in ("../evil", "..", "a/b", ".hidden", ""):
            r = self.trit("pull", self.url, "--name", bad)
            self.assertEqual(r.returncode, 2, (bad, r.stderr))
            self.assertIn("--name", r.stderr)
        r = self.trit("models", "rm", "../evil", "-y")
        self.assertEqual(r.returncode, 2, r.stderr)
        r = self.trit("models", "show", "../evil")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.home, "evil.gguf")))
        self.assertEqual([f for f in self.files() if not f.endswith(".lock")], [])


def main():
    global ARGS, MODEL, SHA
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trit", required=True)
    parser.add_argument("--model", required=True, help="a GGUF file to serve (the bundled model)")
    ARGS, rest = parser.parse_known_args()
    with open(ARGS.model, "rb") as f:
        MODEL = f.read()
    SHA = hashlib.sha256(MODEL).hexdigest()
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
