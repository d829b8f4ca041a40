"""Speculative decoding in `trit serve`, through HTTP and the official OpenAI client.

The bundled story model is served plainly, with `--spec lookup` and with a
q4_0 copy of itself as `--draft` model (written by `trit quantize` at test
time). The same requests, sent at once from threads (greedy and seeded,
streamed and not, some opting out with "speculative": false), get the same
answers from all three servers; /metrics shows drafts checked and kept.
Flags that cannot work together, a draft of another vocabulary and a
malformed "speculative" field are refused by name."""
import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.error
import urllib.request

import openai

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trit_server import TritServer, make_model, metric, server_test_args  # noqa: E402

ARGS = None
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "stories260K.gguf")
PROMPTS = ["Once upon a time", "Lily and Ben went to the park. Lily and Ben", "The cat sat",
           "One day, a little girl named Lily"]


def post(url, body):
    req = urllib.request.Request(url + "/v1/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def requests(opt_out):
    """Twelve requests of several kinds; with opt_out, every third says "speculative": false."""
    out = []
    for i in range(12):
        body = {"prompt": PROMPTS[i % 4], "max_tokens": 30 + 7 * i, "seed": 50 + i,
                "temperature": 0.0 if i < 6 else 0.9, "ignore_eos": i % 2 == 0}
        if i == 7:
            body["stop"] = ["park"]
        if i == 9:
            body["logprobs"] = 2
        if opt_out and i % 3 == 1:
            body["speculative"] = False
        out.append(body)
    return out


def answers(server, bodies):
    """Each body's answer, the requests sent at once; one of them streamed through the OpenAI client."""
    results = [None] * (len(bodies) + 1)

    def one(i):
        status, reply = post(server.url, bodies[i])
        assert status == 200, reply
        choice = reply["choices"][0]
        results[i] = (choice["text"], choice["finish_reason"], reply["usage"]["completion_tokens"],
                      choice.get("logprobs"))

    def streamed():
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="none")
        stream = client.completions.create(model="stories260K", prompt=PROMPTS[1], max_tokens=80, seed=3,
                                           temperature=0.7, stream=True, extra_body={"ignore_eos": True})
        results[-1] = "".join(chunk.choices[0].text for chunk in stream if chunk.choices)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(bodies))]
    threads.append(threading.Thread(target=streamed))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


class SpeculativeServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.draft = os.path.join(cls.tmp.name, "stories-q4_0.gguf")
        subprocess.run([ARGS.trit, "quantize", BUNDLED, cls.draft, "q4_0", "-q"], check=True)
        server = TritServer(ARGS.trit, BUNDLED, "--parallel", "4", "--threads", "2")
        try:
            server.wait_healthy()
            cls.reference = answers(server, requests(False))
        finally:
            server.stop()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_server(self, *flags, banner):
        server = TritServer(ARGS.trit, BUNDLED, "--parallel", "4", "--threads", "2", *flags)
        try:
            server.wait_healthy()
            self.assertIn(banner, "".join(server.stderr_lines))
            for opt_out in (False, True):
                self.assertEqual(answers(server, requests(opt_out)), self.reference, f"{flags}, opt out {opt_out}")
            drafted = metric(server.url, "trit_speculative_drafted_tokens_total")
            accepted = metric(server.url, "trit_speculative_accepted_tokens_total")
            self.assertGreater(accepted, 20, flags)
            self.assertLess(accepted, drafted, flags)
            self.assertGreater(metric(server.url, "trit_speculative_passes_total"), 0)
            # A malformed opt-out is refused by name.
            status, reply = post(server.url, {"prompt": "Hi", "speculative": "no"})
            self.assertEqual(status, 400)
            self.assertIn("speculative", reply["error"]["message"])
        finally:
            self.assertEqual(server.stop(), 0)

    def test_prompt_lookup_gives_the_plain_answers(self):
        self.check_server("--spec", "lookup", banner="drafts by prompt lookup")

    def test_a_draft_model_gives_the_plain_answers(self):
        self.check_server("--draft", self.draft, "--draft-max", "5", banner="drafts by " + self.draft)

    def test_refusals(self):
        other = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(self.tmp.name, "other.gguf"))
        cases = [
            ([BUNDLED, "--draft", other], "vocabulary differs from the model's at token"),
            ([BUNDLED, "--spec", "lookup", "--draft", self.draft], "two drafters"),
            (["--draft", self.draft], "name the MODEL"),
            ([BUNDLED, "--spec", "ngram"], "--spec"),
        ]
        for args, message in cases:
            r = subprocess.run([ARGS.trit, "serve", "--port", "0", *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(message, r.stderr, args)


if __name__ == "__main__":
    ARGS, rest = server_test_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
