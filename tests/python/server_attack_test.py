"""`trit serve` under what a LAN or a leaky client sends it (issue 20):
hundreds of idle and half-sent connections, slow senders, a connection limit
that answers 503 with Retry-After, idle connections closed, clients that
leave mid-stream or while queued, malformed and mutated requests, and
/health and /metrics answering while every slot and queue place is taken.
After each attack the server still answers a normal request.

The bounds on waiting are liveness limits for loaded CI machines, not
measurements."""
import concurrent.futures
import http.client
import json
import os
import random
import socket
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_attacks import IdleAndSlowClients, check_replies, mutated_requests, raw, timed  # noqa: E402
from trit_server import SLOW_MODEL_DIMS, TritServer, get, make_model, metric, server_test_args, wait_for  # noqa: E402

ARGS = None


def completion(server, max_tokens=4, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    conn.request("POST", "/v1/completions", body=json.dumps({"prompt": "Hello", "max_tokens": max_tokens, "seed": 1}),
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, body


def open_stream(server, max_tokens=2000):
    """A streamed completion left open; returns (connection, response)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    conn.request("POST", "/v1/completions",
                 body=json.dumps({"prompt": "Tell", "max_tokens": max_tokens, "stream": True, "seed": 2}),
                 headers={"Content-Type": "application/json"})
    return conn, conn.getresponse()


class AttackTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(cls.tmp.name, "slow.gguf"),
                               SLOW_MODEL_DIMS)
        # Thousands of tokens a second: requests that mutate into valid ones cost little.
        cls.fast_model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(cls.tmp.name, "fast.gguf"),
                                    ["64", "2", "128", "f32"])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def serve(self, *args, model=None):
        server = TritServer(ARGS.trit, model or self.model, "--threads", "1", *args)
        self.addCleanup(server.stop)
        server.wait_healthy()
        return server

    def assert_still_serves(self, server):
        status, body = completion(server)
        self.assertEqual(status, 200, body)

    def test_a_thousand_idle_half_sent_and_slow_connections_stall_no_one(self):
        # Room for them all (the default limit, 512, would answer the rest 503).
        server = self.serve("--max-connections", "1100")
        with IdleAndSlowClients(server.port, n=1000, slow=50):
            wait_for("the connections", lambda: metric(server.url, "trit_open_connections") >= 1000, timeout=20)
            # Normal requests are served meanwhile, each within 2 s
            # (a liveness bound: one takes milliseconds alone).
            for _ in range(10):
                started = time.perf_counter()
                self.assertEqual(get(server.url + "/health")[0], 200)
                self.assert_still_serves(server)
                self.assertLess(time.perf_counter() - started, 2.0)
        self.assert_still_serves(server)
        wait_for("the connections to close", lambda: metric(server.url, "trit_open_connections") <= 2, timeout=20)

    def test_past_the_connection_limit_503_with_retry_after_then_room_again(self):
        server = self.serve("--max-connections", "32")
        held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(32)]
        try:
            # With 32 others open, a 33rd connection is one too many (the
            # server counts connections as its event loops accept them).
            def refused():
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
                conn.request("GET", "/v1/models")
                r = conn.getresponse()
                refused.reply = (r.status, r.getheader("Retry-After"), r.read())
                conn.close()
                return r.status == 503

            wait_for("a 503", refused, timeout=10)
            status, retry_after, body = refused.reply
            self.assertEqual(retry_after, "1")
            error = json.loads(body)["error"]
            self.assertEqual(error["code"], "too_many_connections")
            self.assertIn("32 connections", error["message"])
        finally:
            for s in held:
                s.close()
        wait_for("room again", lambda: completion(server)[0] == 200, timeout=10)
        self.assertGreater(metric(server.url, 'trit_requests_total{endpoint="/v1/models",status="503"}'), 0)

    def test_an_idle_connection_is_closed(self):
        server = self.serve("--idle-timeout", "1")
        s = socket.create_connection(("127.0.0.1", server.port), timeout=15)
        s.sendall(b"GET /health HTTP/1.1\r\n")  # and nothing more
        started = time.time()
        self.assertEqual(s.recv(100), b"")  # closed by the server
        self.assertLess(time.time() - started, 14)
        s.close()
        self.assert_still_serves(server)

    def test_clients_leaving_mid_stream_and_while_queued_free_their_places(self):
        server = self.serve("--parallel", "1", "--queue", "1")
        running_conn, running = open_stream(server)
        wait_for("the slot", lambda: metric(server.url, "trit_active_slots") == 1)
        queued_conn, queued = open_stream(server)
        self.assertEqual(queued.status, 200)
        wait_for("the queued request", lambda: metric(server.url, "trit_queue_depth") == 1)
        # The queued client leaves: its place is freed (found by the
        # keep-alive comment the server sends a waiting stream each second).
        queued_conn.sock.shutdown(socket.SHUT_RDWR)
        queued_conn.close()
        wait_for("the queue place to be freed", lambda: metric(server.url, "trit_queue_depth") == 0, timeout=4)
        # ... while the running request still holds the slot (so the queued
        # one was dropped, not started).
        self.assertEqual(metric(server.url, "trit_active_slots"), 1)
        # The running client leaves: its slot is freed.
        running.read(100)
        running_conn.sock.shutdown(socket.SHUT_RDWR)
        running_conn.close()
        wait_for("the slot to be freed", lambda: metric(server.url, "trit_active_slots") == 0, timeout=15)
        self.assertEqual(metric(server.url, 'trit_requests_cancelled_total{stage="queued"}'), 1)
        self.assertEqual(metric(server.url, 'trit_requests_cancelled_total{stage="generating"}'), 1)
        self.assert_still_serves(server)

    def test_a_client_leaving_while_its_prompt_is_computed_frees_the_slot(self):
        # One prompt token a step: a prompt of 1,600 takes seconds to compute.
        server = self.serve("--parallel", "1", "--ctx", "2048", "--prefill-chunk", "1")
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        conn.request("POST", "/v1/completions",
                     body=json.dumps({"prompt": "Tell me more. " * 400, "max_tokens": 8, "stream": True}),
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        self.assertEqual(r.status, 200)
        wait_for("the slot", lambda: metric(server.url, "trit_active_slots") == 1)
        conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()
        wait_for("the slot to be freed", lambda: metric(server.url, "trit_active_slots") == 0, timeout=15)
        self.assertEqual(metric(server.url, 'trit_requests_cancelled_total{stage="prefill"}'), 1)
        self.assertEqual(metric(server.url, "trit_generated_tokens_total"), 0)
        self.assert_still_serves(server)

    def test_health_and_metrics_answer_while_every_slot_and_place_is_taken(self):
        server = self.serve("--parallel", "2", "--queue", "2")
        streams = [open_stream(server) for _ in range(4)]
        try:
            wait_for("saturation", lambda: metric(server.url, "trit_active_slots") == 2 and
                     metric(server.url, "trit_queue_depth") == 2)
            for _ in range(20):
                self.assertEqual(get(server.url + "/health")[0], 200)
                self.assertEqual(get(server.url + "/metrics")[0], 200)
            self.assertEqual(completion(server)[0], 429)
        finally:
            for conn, _ in streams:
                conn.close()
        wait_for("the slots to be freed", lambda: metric(server.url, "trit_active_slots") == 0, timeout=15)

    def test_ten_thousand_malformed_and_mutated_requests_get_a_well_formed_answer(self):
        # A small, fast model and context bound what a request that mutates into a valid one can cost.
        server = self.serve("--max-body", "65536", "--idle-timeout", "1", "--ctx", "64", "--queue", "256",
                            model=self.fast_model)
        rng = random.Random(20)
        cases = [(kind, data) for kind, data in mutated_requests(rng)]
        self.assertEqual(len(cases), 10000)
        started = time.time()
        # 64 at a time: a request whose body falls short of its length is
        # waited on until the idle timeout, as it should be.
        with concurrent.futures.ThreadPoolExecutor(64) as pool:
            replies = list(pool.map(lambda c: timed(lambda: raw(server.port, c[1], timeout=15,
                                                                half_close=c[0] in ("header", "chunked", "fixed"))),
                                    cases))
        slowest = sorted(((t, k) for (k, _), (t, _) in zip(cases, replies)), reverse=True)[:5]
        replies = [r for _, r in replies]
        elapsed = time.time() - started
        answered = check_replies(self, cases, replies)
        print(f"\n{len(cases)} requests in {elapsed:.1f} s; answered by kind: {answered}; slowest {slowest}",
              file=sys.stderr)
        self.assertIsNone(server.proc.poll())
        self.assertEqual(get(server.url + "/health")[0], 200)
        self.assert_still_serves(server)


if __name__ == "__main__":
    ARGS, rest = server_test_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
