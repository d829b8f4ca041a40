"""`trit serve` driven by the official OpenAI Python client, as existing
tools use it: chat and completions (plain and streamed), models, logprobs,
stop strings, errors in OpenAI's shape, 429 with Retry-After, eight
concurrent streams, and the same answer for the same seed alone or beside
seven other requests. The model is written at test time: a real vocabulary
(llama SentencePiece) and chat template (zephyr) with random weights."""
import hashlib
import http.client
import json
import os
import re
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

import openai

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trit_server import TritServer, make_model, server_test_args  # noqa: E402

ARGS = None
KEY = "test-key-123"


def raw_request(port, method, path, body=None, headers=None):
    """One HTTP request outside the client, for malformed bodies."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    h = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    h.update(headers or {})
    conn.request(method, path, body=body, headers=h)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, dict(r.getheaders()), data


def assert_openai_error(test, data, code=None):
    err = json.loads(data)["error"]
    for k in ("message", "type", "param", "code"):
        test.assertIn(k, err)
    test.assertTrue(err["message"])
    if code is not None:
        test.assertEqual(err["code"], code)
    return err


class ServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model_path = make_model(ARGS.make_model, ARGS.vocab, ARGS.template,
                                    os.path.join(cls.tmp.name, "chat-test.gguf"))
        cls.server = TritServer(ARGS.trit, cls.model_path, "--parallel", "8", "--ctx", "512",
                                "--threads", "2", "--api-key", KEY, "--max-body", "65536",
                                "--alias", "gpt-4o-mini", "--alias", "chat-test")
        cls.server.wait_healthy()
        cls.client = openai.OpenAI(base_url=cls.server.url + "/v1", api_key=KEY, max_retries=0, timeout=60)
        cls.model_id = "chat-test"

    @classmethod
    def tearDownClass(cls):
        rc = cls.server.stop()
        cls.tmp.cleanup()
        assert rc == 0, f"trit serve exited with {rc}"

    def chat(self, **kw):
        args = dict(model=self.model_id, messages=[{"role": "system", "content": "You are terse."},
                                                   {"role": "user", "content": "Say something."}],
                    max_tokens=16, seed=5, temperature=0.8)
        args.update(kw)
        return self.client.chat.completions.create(**args)

    def test_models_list(self):
        # The alias that repeats the id is not listed twice.
        models = self.client.models.list()
        self.assertEqual([m.id for m in models.data], [self.model_id, "gpt-4o-mini"])
        self.assertEqual(self.client.models.retrieve(self.model_id).id, self.model_id)
        self.assertEqual(self.client.models.retrieve("gpt-4o-mini").id, "gpt-4o-mini")
        with self.assertRaises(openai.NotFoundError):
            self.client.models.retrieve("gpt-4o")

    def test_an_alias_names_the_same_model(self):
        by_alias = self.chat(model="gpt-4o-mini")
        by_id = self.chat()
        self.assertEqual(by_alias.choices[0].message.content, by_id.choices[0].message.content)
        with self.assertRaises(openai.NotFoundError) as cm:
            self.chat(model="gpt-4o")
        self.assertIn("'chat-test', 'gpt-4o-mini'", cm.exception.body["message"])

    def test_chat_plain(self):
        r = self.chat()
        self.assertEqual(r.object, "chat.completion")
        self.assertEqual(r.choices[0].message.role, "assistant")
        self.assertIsInstance(r.choices[0].message.content, str)
        self.assertIn(r.choices[0].finish_reason, ("stop", "length"))
        self.assertGreater(r.usage.prompt_tokens, 5)
        self.assertLessEqual(r.usage.completion_tokens, 16)
        self.assertEqual(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens)

    def test_chat_stream_matches_plain(self):
        plain = self.chat(max_completion_tokens=20, extra_body={"ignore_eos": True}, max_tokens=None)
        stream = self.chat(max_completion_tokens=20, extra_body={"ignore_eos": True}, max_tokens=None, stream=True,
                           stream_options={"include_usage": True})
        text, finish, usage, roles = "", None, None, []
        for chunk in stream:
            if chunk.usage is not None:
                usage = chunk.usage
                self.assertEqual(chunk.choices, [])
                continue
            delta = chunk.choices[0].delta
            if delta.role:
                roles.append(delta.role)
            text += delta.content or ""
            finish = chunk.choices[0].finish_reason or finish
        self.assertEqual(roles, ["assistant"])
        self.assertEqual(text, plain.choices[0].message.content)
        self.assertEqual(finish, "length")
        self.assertEqual(usage.completion_tokens, 20)
        self.assertEqual(usage.prompt_tokens, plain.usage.prompt_tokens)

    def test_chat_logprobs(self):
        r = self.chat(logprobs=True, top_logprobs=3, max_tokens=5, temperature=0, extra_body={"ignore_eos": True})
        content = r.choices[0].logprobs.content
        self.assertEqual(len(content), 5)
        for t in content:
            self.assertLessEqual(t.logprob, 0.0)
            self.assertEqual(len(t.top_logprobs), 3)
            # Greedy: the chosen token is the most likely one.
            self.assertAlmostEqual(t.top_logprobs[0].logprob, t.logprob, places=5)

    def test_stop_string(self):
        base = self.chat(temperature=0, max_tokens=30, extra_body={"ignore_eos": True}).choices[0].message.content
        self.assertGreater(len(base), 10)
        stop = base[6:9]
        cut = base[:base.index(stop)]
        r = self.chat(temperature=0, max_tokens=30, stop=[stop], extra_body={"ignore_eos": True})
        self.assertEqual(r.choices[0].message.content, cut)
        self.assertEqual(r.choices[0].finish_reason, "stop")
        streamed = "".join(c.choices[0].delta.content or "" for c in
                           self.chat(temperature=0, max_tokens=30, stop=stop, stream=True,
                                     extra_body={"ignore_eos": True}) if c.choices)
        self.assertEqual(streamed, cut)

    def test_completions_plain_and_stream(self):
        r = self.client.completions.create(model=self.model_id, prompt="Once upon a time", max_tokens=12, seed=3,
                                           logprobs=2, extra_body={"ignore_eos": True})
        self.assertEqual(r.object, "text_completion")
        self.assertEqual(r.choices[0].finish_reason, "length")
        self.assertEqual(r.usage.completion_tokens, 12)
        self.assertEqual(len(r.choices[0].logprobs.tokens), 12)
        s = self.client.completions.create(model=self.model_id, prompt="Once upon a time", max_tokens=12, seed=3,
                                           stream=True, extra_body={"ignore_eos": True})
        self.assertEqual("".join(c.choices[0].text for c in s), r.choices[0].text)

    def test_determinism_alone_vs_beside_seven(self):
        req = dict(messages=[{"role": "user", "content": "Tell me a story about a cat."}], max_tokens=24, seed=1234,
                   temperature=1.0, top_p=0.95, presence_penalty=0.3, frequency_penalty=0.2, logprobs=True,
                   extra_body={"ignore_eos": True})
        alone = self.chat(**req)
        results = {}

        def run(i):
            if i == 0:
                time.sleep(0.05)  # join a batch that is already running
                results[i] = self.chat(**req)
            else:
                results[i] = self.chat(messages=[{"role": "user", "content": f"Other request {i} " * i}],
                                       max_tokens=20 + 3 * i, seed=i, extra_body={"ignore_eos": True})
        threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(results), 8)
        self.assertEqual(results[0].choices[0].message.content, alone.choices[0].message.content)
        self.assertEqual([t.logprob for t in results[0].choices[0].logprobs.content],
                         [t.logprob for t in alone.choices[0].logprobs.content])

    def test_eight_concurrent_streams(self):
        expected = {}
        for i in range(8):
            expected[i] = self.chat(messages=[{"role": "user", "content": f"Stream {i}"}], max_tokens=16, seed=i,
                                    extra_body={"ignore_eos": True}).choices[0].message.content
        got, errors = {}, []

        def run(i):
            try:
                got[i] = "".join(c.choices[0].delta.content or "" for c in
                                 self.chat(messages=[{"role": "user", "content": f"Stream {i}"}], max_tokens=16,
                                           seed=i, stream=True, extra_body={"ignore_eos": True}) if c.choices)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(repr(e))
        threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(got, expected)

    def test_errors(self):
        bad_key = openai.OpenAI(base_url=self.server.url + "/v1", api_key="wrong", max_retries=0)
        with self.assertRaises(openai.AuthenticationError) as cm:
            bad_key.models.list()
        self.assertEqual(cm.exception.status_code, 401)
        status, _, data = raw_request(self.server.port, "GET", "/v1/models", headers={"Authorization": ""})
        self.assertEqual(status, 401)
        assert_openai_error(self, data, "invalid_api_key")

        with self.assertRaises(openai.NotFoundError) as cm:
            self.chat(model="no-such-model")
        self.assertEqual(cm.exception.body["code"], "model_not_found")

        with self.assertRaises(openai.BadRequestError) as cm:
            self.chat(messages=[{"role": "user", "content": "word " * 600}])
        self.assertEqual(cm.exception.body["code"], "context_length_exceeded")

        with self.assertRaises(openai.BadRequestError) as cm:
            self.chat(temperature=7)
        self.assertEqual(cm.exception.body["param"], "temperature")

        with self.assertRaises(openai.BadRequestError) as cm:
            self.client.embeddings.create(model=self.model_id, input="hi")
        self.assertEqual(cm.exception.body["code"], "model_not_supported")

        status, _, data = raw_request(self.server.port, "POST", "/v1/chat/completions", body=b'{"messages": [')
        self.assertEqual(status, 400)
        assert_openai_error(self, data, "invalid_json")
        status, _, data = raw_request(self.server.port, "POST", "/v1/chat/completions",
                                      body=b'{"messages": "hi", "max_tokens": "ten"}')
        self.assertEqual(status, 400)
        assert_openai_error(self, data)
        status, _, data = raw_request(self.server.port, "POST", "/v1/chat/completions", body=b"x" * 70000)
        self.assertEqual(status, 413)
        assert_openai_error(self, data, "request_too_large")
        status, _, data = raw_request(self.server.port, "POST", "/v1/chat/completions", body=b"[" * 60000)
        self.assertEqual(status, 400)
        status, _, data = raw_request(self.server.port, "GET", "/v1/nothing")
        self.assertEqual(status, 404)
        assert_openai_error(self, data)
        # The server is still healthy and answering after all of that.
        self.assertEqual(raw_request(self.server.port, "GET", "/health")[0], 200)
        self.assertEqual(self.chat(max_tokens=2).usage.completion_tokens <= 2, True)

    def test_tokenize_detokenize_health_metrics(self):
        status, _, data = raw_request(self.server.port, "POST", "/tokenize",
                                      body=json.dumps({"content": "Hello world", "with_pieces": True}))
        self.assertEqual(status, 200)
        tokens = json.loads(data)["tokens"]
        self.assertEqual("".join(t["piece"] for t in tokens).strip(), "Hello world")
        status, _, data = raw_request(self.server.port, "POST", "/detokenize",
                                      body=json.dumps({"tokens": [t["id"] for t in tokens]}))
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(data)["content"].strip(), "Hello world")
        status, _, data = raw_request(self.server.port, "POST", "/detokenize", body=json.dumps({"tokens": [10**9]}))
        self.assertEqual(status, 400)
        status, _, _ = raw_request(self.server.port, "GET", "/health", headers={"Authorization": ""})
        self.assertEqual(status, 200)
        self.chat(max_tokens=3)
        # A slot is released just after its last bytes are sent, so the
        # gauge may read 1 for a moment after the reply: poll (bounded).
        deadline = time.monotonic() + 5.0
        while True:
            status, headers, data = raw_request(self.server.port, "GET", "/metrics", headers={"Authorization": ""})
            self.assertEqual(status, 200)
            text = data.decode()
            if "trit_active_slots 0" in text or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        for name in ("trit_requests_total{endpoint=\"/v1/chat/completions\",status=\"200\"}",
                     "trit_prompt_tokens_total", "trit_generated_tokens_total",
                     "trit_time_to_first_token_seconds_bucket", "trit_token_latency_seconds_count",
                     "trit_queue_depth", "trit_active_slots 0"):
            self.assertIn(name, text)


class QueueTest(unittest.TestCase):
    """One slot, no queue: a second request gets 429 with Retry-After, and a
    client that goes away frees the slot at once."""

    def test_429_and_disconnect(self):
        with tempfile.TemporaryDirectory() as tmp:
            model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(tmp, "q.gguf"))
            server = TritServer(ARGS.trit, model, "--parallel", "1", "--queue", "0", "--ctx", "2048",
                                "--threads", "1")
            try:
                server.wait_healthy()
                client = openai.OpenAI(base_url=server.url + "/v1", api_key="none", max_retries=0, timeout=30)
                long = client.chat.completions.create(model="q", messages=[{"role": "user", "content": "go"}],
                                                      stream=True, extra_body={"ignore_eos": True})
                it = iter(long)
                next(it)  # the request holds the slot now
                with self.assertRaises(openai.RateLimitError) as cm:
                    client.chat.completions.create(model="q", messages=[{"role": "user", "content": "x"}],
                                                   max_tokens=2)
                self.assertEqual(cm.exception.status_code, 429)
                self.assertEqual(cm.exception.response.headers.get("retry-after"), "1")
                long.close()  # the client disconnects mid-answer
                deadline = time.time() + 60
                r = None
                while time.time() < deadline:
                    try:
                        r = client.chat.completions.create(model="q", messages=[{"role": "user", "content": "x"}],
                                                           max_tokens=2)
                        break
                    except openai.RateLimitError:
                        time.sleep(0.05)
                self.assertIsNotNone(r, "the slot was not freed after the client disconnected")
                # Had the slot been kept, the long request would have run to
                # the end of its 2048-token context before the new one got in.
                with urllib.request.urlopen(server.url + "/metrics", timeout=10) as m:
                    metrics = m.read().decode()
                generated = int(re.search(r"^trit_generated_tokens_total (\d+)$", metrics, re.M).group(1))
                self.assertLess(generated, 1024, "the disconnected request kept generating")
            finally:
                self.assertEqual(server.stop(), 0)


def write_key_file(directory, text):
    """An --api-key-file readable by its owner only, as the docs advise."""
    path = os.path.join(directory, "keys.txt")
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)
    return path


class ApiKeyFileTest(unittest.TestCase):
    """Several keys from --api-key-file: each is accepted, a wrong one gets
    401, and /metrics counts requests and tokens by each key's label; no key
    appears in a reply, in /metrics or in the server's log."""

    def test_keys_from_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(tmp, "k.gguf"))
            keys = write_key_file(tmp, "# two clients\nalice sk-alice-111\n\nsk-anon-222\n")
            server = TritServer(ARGS.trit, model, "--parallel", "2", "--ctx", "256", "--threads", "1",
                                "--api-key-file", keys)
            try:
                server.wait_healthy()
                for key in ("sk-alice-111", "sk-anon-222"):
                    client = openai.OpenAI(base_url=server.url + "/v1", api_key=key, max_retries=0, timeout=30)
                    r = client.chat.completions.create(model="k", messages=[{"role": "user", "content": "hi"}],
                                                       max_tokens=3)
                    self.assertEqual(len(r.choices), 1)
                body = json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1})
                status, _, data = raw_request(server.port, "POST", "/v1/chat/completions", body=body,
                                              headers={"Authorization": "Bearer sk-alice-11"})
                self.assertEqual(status, 401)
                assert_openai_error(self, data, "invalid_api_key")
                self.assertNotIn(b"sk-", data)
                with urllib.request.urlopen(server.url + "/metrics", timeout=10) as m:
                    metrics = m.read().decode()
                anon = "key-" + hashlib.sha256(b"sk-anon-222").hexdigest()[:8]
                self.assertIn('trit_key_requests_total{key="alice"} 1\n', metrics)
                self.assertIn(f'trit_key_requests_total{{key="{anon}"}} 1\n', metrics)
                self.assertRegex(metrics, r'trit_key_generated_tokens_total\{key="alice"\} [1-3]\n')
                self.assertRegex(metrics, r'trit_key_prompt_tokens_total\{key="alice"\} [1-9]')
                self.assertNotIn("sk-", metrics)
            finally:
                self.assertEqual(server.stop(), 0)
            log = "".join(server.stderr_lines) + server.proc.stderr.read()
            server.proc.stderr.close()
            self.assertIn("2 API keys", log)
            self.assertNotIn("sk-", log)


class FairnessTest(unittest.TestCase):
    """Two API keys are two clients: one that holds the slot and fills the
    queue cannot keep the other out. The other's request takes the place of
    the first client's newest queued one, which gets 429 with Retry-After,
    and is served next."""

    def test_a_full_queue_makes_room_for_another_client(self):
        with tempfile.TemporaryDirectory() as tmp:
            model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(tmp, "f.gguf"))
            keys = write_key_file(tmp, "busy sk-busy\nother sk-other\n")
            server = TritServer(ARGS.trit, model, "--parallel", "1", "--queue", "2", "--ctx", "2048",
                                "--threads", "1", "--api-key-file", keys)
            try:
                server.wait_healthy()
                busy = openai.OpenAI(base_url=server.url + "/v1", api_key="sk-busy", max_retries=0, timeout=60)
                other = openai.OpenAI(base_url=server.url + "/v1", api_key="sk-other", max_retries=0, timeout=60)
                hold = busy.chat.completions.create(model="f", messages=[{"role": "user", "content": "go"}],
                                                    stream=True, extra_body={"ignore_eos": True})
                it = iter(hold)
                next(it)  # busy holds the slot
                results = {}

                def queued(name):
                    try:
                        busy.chat.completions.create(model="f", messages=[{"role": "user", "content": name}],
                                                     max_tokens=2)
                        results[name] = "ok"
                    except openai.RateLimitError as e:
                        results[name] = ("429", e.response.headers.get("retry-after"))

                def wait_queue_depth(depth):
                    deadline = time.monotonic() + 30
                    while time.monotonic() < deadline:
                        with urllib.request.urlopen(server.url + "/metrics", timeout=10) as m:
                            if f"trit_queue_depth {depth}\n" in m.read().decode():
                                return
                        time.sleep(0.02)
                    self.fail(f"the queue never held {depth} requests")

                threads = [threading.Thread(target=queued, args=(n,)) for n in ("q1", "q2")]
                for depth, t in enumerate(threads, start=1):
                    t.start()
                    wait_queue_depth(depth)  # q1 queued before q2, both before what follows
                with self.assertRaises(openai.RateLimitError):  # busy's queue share is used up
                    busy.chat.completions.create(model="f", messages=[{"role": "user", "content": "x"}],
                                                 max_tokens=2)
                answer = {}

                def other_request():
                    answer["r"] = other.chat.completions.create(
                        model="f", messages=[{"role": "user", "content": "me too"}], max_tokens=2)

                t_other = threading.Thread(target=other_request)
                t_other.start()
                threads[1].join(timeout=30)
                self.assertEqual(results.get("q2"), ("429", "1"))  # the newest of busy's queued gave way
                hold.close()  # busy's stream ends; the slot frees
                t_other.join(timeout=60)
                threads[0].join(timeout=60)
                self.assertEqual(len(answer["r"].choices), 1)
                self.assertEqual(results.get("q1"), "ok")
            finally:
                self.assertEqual(server.stop(), 0)
            server.proc.stderr.close()


if __name__ == "__main__":
    ARGS, rest = server_test_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
