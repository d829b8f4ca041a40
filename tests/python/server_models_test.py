"""Several models from the model store through the official OpenAI Python client.

`trit serve` without MODEL serves the store of $TRIT_HOME: two models pulled
there (different shapes, so different answers) are loaded on their first
request and, with --max-models 1, evicted in turn. Each answer is the one
the same model gives when served alone; a model a request is still streaming
from is never unloaded under it (the other model's request waits); an alias
names a store model; an unknown model gets a 404 listing the models;
/v1/models says which are loaded; /metrics counts loads and unloads; flags
that make no sense together are refused by name.

The models are written at test time: a real vocabulary (llama SentencePiece)
and chat template (zephyr) with random weights."""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

import openai

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trit_server import SLOW_MODEL_DIMS, TritServer, make_model, server_test_args  # noqa: E402

ARGS = None
QUESTION = [{"role": "user", "content": "Name three rivers."}]


def ask(client, model, seed=7, max_tokens=10):
    r = client.chat.completions.create(model=model, messages=QUESTION, max_tokens=max_tokens, seed=seed,
                                       temperature=0.8, extra_body={"ignore_eos": True})
    return r.choices[0].message.content


def loaded(client):
    return {m.id: m.model_extra["loaded"] for m in client.models.list().data}


class ModelsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.env = dict(os.environ, TRIT_HOME=os.path.join(cls.tmp.name, "home"))
        files = {
            # Slow enough (hundreds of tokens a second) that a long stream from it is watched while it runs.
            "alpha": make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(cls.tmp.name, "a.gguf"),
                                dims=SLOW_MODEL_DIMS),
            "beta": make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(cls.tmp.name, "b.gguf"),
                               dims=["128", "2", "256", "f32"]),
        }
        cls.reference = {}
        for name, path in files.items():
            subprocess.run([ARGS.trit, "pull", path, "--name", name], env=cls.env, check=True,
                           stderr=subprocess.DEVNULL)
            # What each model answers when served alone.
            server, client = cls.serve(path)
            try:
                cls.reference[name] = ask(client, os.path.basename(path)[:-len(".gguf")])
            finally:
                server.stop()
        assert cls.reference["alpha"] != cls.reference["beta"]
        # A store entry whose file went bad after the pull (same size, no GGUF magic).
        subprocess.run([ARGS.trit, "pull", files["beta"], "--name", "broken"], env=cls.env, check=True,
                       stderr=subprocess.DEVNULL)
        with open(os.path.join(cls.env["TRIT_HOME"], "models", "broken.gguf"), "r+b") as f:
            f.write(b"XXXX")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def serve(cls, model, *args):
        server = TritServer(ARGS.trit, model, "--parallel", "2", "--ctx", "1200", "--threads", "2", *args, env=cls.env)
        server.wait_healthy()
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="none", max_retries=0, timeout=120)
        return server, client

    def test_models_load_on_demand_and_the_least_recent_is_evicted(self):
        server, client = self.serve(None, "--max-models", "1", "--alias", "gpt-4o-mini=beta")
        try:
            ids = [m.id for m in client.models.list().data]
            for name in ("alpha", "beta", "gpt-4o-mini", "stories260K"):
                self.assertIn(name, ids)
            self.assertFalse(any(loaded(client).values()))

            self.assertEqual(ask(client, "alpha"), self.reference["alpha"])
            self.assertEqual(loaded(client)["alpha"], True)
            self.assertEqual(ask(client, "beta"), self.reference["beta"])
            state = loaded(client)
            self.assertEqual((state["alpha"], state["beta"], state["gpt-4o-mini"]), (False, True, True))
            # Loaded again after its eviction, alpha answers as before, bit for bit.
            self.assertEqual(ask(client, "alpha"), self.reference["alpha"])
            self.assertEqual(client.models.retrieve("beta").model_extra["loaded"], False)
            # The alias reaches beta; streamed, from a model still being loaded.
            stream = client.chat.completions.create(model="gpt-4o-mini", messages=QUESTION, max_tokens=10, seed=7,
                                                    temperature=0.8, stream=True, extra_body={"ignore_eos": True})
            text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
            self.assertEqual(text, self.reference["beta"])

            with self.assertRaises(openai.NotFoundError) as e:
                ask(client, "gamma")
            message = str(e.exception)
            for name in ("gamma", "alpha", "beta", "gpt-4o-mini"):
                self.assertIn(name, message)

            with urllib.request.urlopen(server.url + "/metrics") as r:
                metrics = r.read().decode()
            unloads = [ln for ln in metrics.splitlines() if ln.startswith("trit_model_unloads_total ")]
            self.assertEqual(unloads, ["trit_model_unloads_total 3"])
            self.assertIn("trit_models_loaded 1\n", metrics)
            self.assertIn("trit_model_load_seconds_count 4\n", metrics)
        finally:
            self.assertEqual(server.stop(), 0)

    def test_a_model_in_use_is_not_unloaded_under_its_request(self):
        server, client = self.serve(None, "--max-models", "1")
        try:
            ask(client, "alpha", max_tokens=1)  # alpha resident
            other = {}

            def ask_beta():
                other["text"] = ask(client, "beta")

            beta = threading.Thread(target=ask_beta)
            stream = client.chat.completions.create(model="alpha", messages=QUESTION, max_tokens=1000, seed=3,
                                                    stream=True, stream_options={"include_usage": True},
                                                    extra_body={"ignore_eos": True})
            pieces, finish, usage = 0, None, None
            for chunk in stream:
                if not chunk.choices:
                    usage = chunk.usage
                    continue
                if chunk.choices[0].delta.content:
                    pieces += 1
                finish = chunk.choices[0].finish_reason or finish
                if pieces == 1 and not beta.is_alive() and "text" not in other:
                    beta.start()  # beta must wait: alpha is streaming and only one model may be resident
                    time.sleep(0.3)  # for beta's request to arrive; alpha has seconds of tokens to go
                    state = loaded(client)
                    self.assertEqual((state["alpha"], state["beta"]), (True, False))
            beta.join(timeout=120)
            self.assertEqual(finish, "length")
            self.assertEqual(usage.completion_tokens, 1000)  # the stream ran to its end
            self.assertEqual(other.get("text"), self.reference["beta"])
            self.assertEqual(loaded(client)["beta"], True)
        finally:
            self.assertEqual(server.stop(), 0)

    def test_conflicting_flags_are_refused_by_name(self):
        cases = [
            ([ARGS.trit, "serve", os.path.join(self.tmp.name, "a.gguf"), "--max-models", "2"], "--max-models"),
            ([ARGS.trit, "serve", "--alias", "gpt-4o-mini"], "--alias gpt-4o-mini=MODEL"),
            ([ARGS.trit, "serve", "--alias", "x=nothere"], "no model 'nothere'"),
            ([ARGS.trit, "serve", "--memory-budget", "lots"], "--memory-budget"),
        ]
        for argv, expected in cases:
            r = subprocess.run(argv + ["--port", "0"], env=self.env, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, (argv, r.stderr))
            self.assertIn(expected, r.stderr, argv)

    def test_a_model_that_fails_to_load_fails_its_request_alone(self):
        server, client = self.serve(None)
        try:
            with self.assertRaises(openai.InternalServerError) as e:
                ask(client, "broken")
            self.assertIn("model 'broken' could not be loaded", str(e.exception))
            self.assertEqual(ask(client, "beta"), self.reference["beta"])
            with self.assertRaises(openai.InternalServerError):  # tried again, fails again
                ask(client, "broken")
            with urllib.request.urlopen(server.url + "/metrics") as r:
                self.assertIn("trit_model_load_failures_total 2\n", r.read().decode())
        finally:
            self.assertEqual(server.stop(), 0)

    def test_tokenize_names_its_model(self):
        server, _ = self.serve(None)
        try:
            req = urllib.request.Request(server.url + "/tokenize", data=json.dumps(
                {"model": "beta", "content": "Hello"}).encode(), headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req) as r:
                self.assertTrue(json.load(r)["tokens"])
        finally:
            self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    ARGS, rest = server_test_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
