"""Prompt reuse and n > 1 through the official OpenAI Python client.

- A multi-turn conversation (each turn resends the history) gives the same
  answers, bit for bit (text and logprobs), from a server with prompt reuse
  and one without (`--no-prompt-reuse`); with reuse, usage reports the
  resent history as cached.
- 1,000 requests of growing conversations leave the server's memory where
  it was after the first hundred (reuse holds nothing per finished request).
- `n` = 3 gives three choices, choice i the answer of a single request with
  seed + i, in plain and streamed form.

The model is written at test time: a real vocabulary (llama SentencePiece)
and chat template (zephyr) with random weights."""
import os
import sys
import tempfile
import unittest

import openai

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trit_server import TritServer, make_model, rss_kib, server_test_args  # noqa: E402

ARGS = None


class ReuseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model_path = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(cls.tmp.name, "reuse.gguf"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def serve(self, *args):
        server = TritServer(ARGS.trit, self.model_path, "--parallel", "3", "--ctx", "1024", "--threads", "2", *args)
        server.wait_healthy()
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="none", max_retries=0, timeout=120)
        return server, client

    def conversation(self, client, turns=5):
        messages = [{"role": "system", "content": "You answer questions about the sea. " * 8}]
        out = []
        for turn in range(turns):
            messages.append({"role": "user", "content": f"Question number {turn}: why is the sea blue?"})
            r = client.chat.completions.create(model="reuse", messages=messages, max_tokens=12, seed=turn,
                                               temperature=0.9, logprobs=True, extra_body={"ignore_eos": True})
            text = r.choices[0].message.content
            out.append((text, [t.logprob for t in r.choices[0].logprobs.content], r.usage))
            messages.append({"role": "assistant", "content": text})
        return out

    def test_conversation_identical_with_reuse_on_and_off(self):
        results = {}
        for reuse in (True, False):
            server, client = self.serve(*([] if reuse else ["--no-prompt-reuse"]))
            try:
                results[reuse] = self.conversation(client)
            finally:
                self.assertEqual(server.stop(), 0)
        for turn, (on, off) in enumerate(zip(results[True], results[False])):
            self.assertEqual(on[0], off[0], f"turn {turn}")
            self.assertEqual(on[1], off[1], f"turn {turn}")
            self.assertEqual(off[2].prompt_tokens_details.cached_tokens, 0)
            if turn > 0:
                # The previous turn's prompt at least came from the cache.
                self.assertGreaterEqual(on[2].prompt_tokens_details.cached_tokens,
                                        results[True][turn - 1][2].prompt_tokens - 1)
                self.assertLess(on[2].prompt_tokens_details.cached_tokens, on[2].prompt_tokens)

    def test_memory_stays_bounded_over_a_thousand_requests(self):
        server, client = self.serve()
        try:
            def chat(i):
                # Conversations of growing length, resent, beside fresh ones.
                history = [{"role": "user", "content": f"Conversation {i % 7}, turn {t}."} for t in range(i % 5 + 1)]
                client.chat.completions.create(model="reuse", messages=history, max_tokens=2, seed=i)
            for i in range(100):
                chat(i)
            before = rss_kib(server.proc.pid)
            for i in range(100, 1000):
                chat(i)
            after = rss_kib(server.proc.pid)
            self.assertLess(after - before, 2048, f"RSS grew from {before} KiB to {after} KiB over 900 requests")
        finally:
            self.assertEqual(server.stop(), 0)

    def test_n_choices_are_the_single_answers_of_consecutive_seeds(self):
        server, client = self.serve()
        try:
            messages = [{"role": "user", "content": "Tell me three different things about whales, please."}]
            many = client.chat.completions.create(model="reuse", messages=messages, max_tokens=10, seed=40, n=3,
                                                  temperature=1.0, extra_body={"ignore_eos": True})
            self.assertEqual([c.index for c in many.choices], [0, 1, 2])
            self.assertEqual(many.usage.completion_tokens, 30)
            for i, choice in enumerate(many.choices):
                one = client.chat.completions.create(model="reuse", messages=messages, max_tokens=10, seed=40 + i,
                                                     temperature=1.0, extra_body={"ignore_eos": True})
                self.assertEqual(choice.message.content, one.choices[0].message.content)
            self.assertEqual(len({c.message.content for c in many.choices}), 3)
            texts = ["", "", ""]
            finishes = [None, None, None]
            usage = None
            for chunk in client.chat.completions.create(model="reuse", messages=messages, max_tokens=10, seed=40, n=3,
                                                        temperature=1.0, stream=True,
                                                        stream_options={"include_usage": True},
                                                        extra_body={"ignore_eos": True}):
                if chunk.usage is not None:
                    usage = chunk.usage
                for c in chunk.choices:
                    texts[c.index] += c.delta.content or ""
                    finishes[c.index] = c.finish_reason or finishes[c.index]
            self.assertEqual(texts, [c.message.content for c in many.choices])
            self.assertEqual(finishes, ["length"] * 3)
            self.assertEqual(usage.completion_tokens, 30)
            r = client.completions.create(model="reuse", prompt="Whales are", max_tokens=5, seed=1, n=2,
                                          extra_body={"ignore_eos": True})
            self.assertEqual(len(r.choices), 2)
        finally:
            self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    ARGS, rest = server_test_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
