"""`trit serve` under what a LAN or a leaky client sends it (issue 20):
hundreds of idle and half-sent connections, slow senders, a connection limit
that answers 503 with Retry-After, idle connections closed, clients that
leave mid-stream or while queued, malformed and mutated requests, and
/health and /metrics answering while every slot and queue place is taken.
After each attack the server still answers a normal request.

The bounds on waiting are liveness limits for loaded CI machines, not
measurements."""
import argparse
import concurrent.futures
import http.client
import json
import os
import random
import re
import socket
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trit_server import SLOW_MODEL_DIMS, TritServer, make_model  # noqa: E402

ARGS = None


def get(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, dict(r.getheaders()), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def metric(server, name):
    _, _, body = get(server.url + "/metrics")
    m = re.search(rb"^" + re.escape(name.encode()) + rb" (\d+)", body, re.M)
    return int(m.group(1)) if m else 0


def wait_for(what, predicate, timeout=30, interval=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


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


def raw(port, data, timeout=5):
    """Sends bytes, returns what comes back until the server closes or the timeout."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    out = b""
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except OSError:  # a timeout, or the server closed first
        pass
    finally:
        s.close()
    return out


class AttackTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(cls.tmp.name, "slow.gguf"),
                               SLOW_MODEL_DIMS)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def serve(self, *args):
        server = TritServer(ARGS.trit, self.model, "--threads", "1", *args)
        self.addCleanup(server.stop)
        server.wait_healthy()
        return server

    def assert_still_serves(self, server):
        status, body = completion(server)
        self.assertEqual(status, 200, body)

    def test_idle_half_sent_and_slow_connections_stall_no_one(self):
        server = self.serve()
        held = []
        try:
            for i in range(400):
                s = socket.create_connection(("127.0.0.1", server.port))
                if i % 2:
                    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\n")  # half a header
                held.append(s)
            # Slow senders: a header byte now and then.
            stop = threading.Event()

            def drip(sock):
                for b in b"GET /health HTTP/1.1\r\nX-Slow: " + b"a" * 1000:
                    if stop.wait(0.5):
                        return
                    try:
                        sock.send(bytes([b]))
                    except OSError:
                        return

            drippers = [threading.Thread(target=drip, args=(s,)) for s in held[:50]]
            for t in drippers:
                t.start()
            try:
                self.assertEqual(get(server.url + "/health")[0], 200)
                self.assert_still_serves(server)
                self.assertGreaterEqual(metric(server, "trit_open_connections"), 400)
            finally:
                stop.set()
                for t in drippers:
                    t.join()
        finally:
            for s in held:
                s.close()
        self.assert_still_serves(server)

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
        self.assertGreater(metric(server, 'trit_requests_total{endpoint="/v1/models",status="503"}'), 0)

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
        wait_for("the slot", lambda: metric(server, "trit_active_slots") == 1)
        queued_conn, queued = open_stream(server)
        self.assertEqual(queued.status, 200)
        wait_for("the queued request", lambda: metric(server, "trit_queue_depth") == 1)
        # The queued client leaves: its place is freed (found by the
        # keep-alive comment the server sends a waiting stream each second).
        queued_conn.sock.shutdown(socket.SHUT_RDWR)
        queued_conn.close()
        wait_for("the queue place to be freed", lambda: metric(server, "trit_queue_depth") == 0, timeout=4)
        # ... while the running request still holds the slot (so the queued
        # one was dropped, not started).
        self.assertEqual(metric(server, "trit_active_slots"), 1)
        # The running client leaves: its slot is freed.
        running.read(100)
        running_conn.sock.shutdown(socket.SHUT_RDWR)
        running_conn.close()
        wait_for("the slot to be freed", lambda: metric(server, "trit_active_slots") == 0, timeout=15)
        self.assert_still_serves(server)

    def test_health_and_metrics_answer_while_every_slot_and_place_is_taken(self):
        server = self.serve("--parallel", "2", "--queue", "2")
        streams = [open_stream(server) for _ in range(4)]
        try:
            wait_for("saturation", lambda: metric(server, "trit_active_slots") == 2 and
                     metric(server, "trit_queue_depth") == 2)
            for _ in range(20):
                self.assertEqual(get(server.url + "/health")[0], 200)
                self.assertEqual(get(server.url + "/metrics")[0], 200)
            self.assertEqual(completion(server)[0], 429)
        finally:
            for conn, _ in streams:
                conn.close()
        wait_for("the slots to be freed", lambda: metric(server, "trit_active_slots") == 0, timeout=15)

    def test_malformed_and_mutated_requests_get_an_answer_or_a_close(self):
        server = self.serve("--max-body", "65536", "--idle-timeout", "2")
        valid = (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 42\r\n\r\n" + b'{"prompt":"Hi","max_tokens":2,"seed":3}   ')
        fixed = [
            b"\x00\x01\x02\xff" * 100,
            b"GET / HTTP/9.9\r\n\r\n",
            b"GET " + b"/a" * 40000 + b" HTTP/1.1\r\n\r\n",                  # a huge request line
            b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"y" * 100000 + b"\r\n\r\n",  # a huge header
            b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
            b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
            b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n" * 50,                 # pipelined
            b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n[[[[[[[[[[",
        ]
        rng = random.Random(20)
        mutated = []
        for _ in range(300):
            b = bytearray(valid)
            for _ in range(rng.randint(1, 6)):
                op = rng.randrange(3)
                i = rng.randrange(len(b))
                if op == 0:
                    b[i] = rng.randrange(256)
                elif op == 1:
                    del b[i:i + rng.randint(1, 8)]
                else:
                    b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            mutated.append(bytes(b))
        status_line = re.compile(rb"^HTTP/1\.[01] (\d{3}) ")
        # 16 at a time: a request whose body falls short of its length is
        # waited on until the idle timeout, as it should be.
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            replies = list(pool.map(lambda d: raw(server.port, d, timeout=10), fixed + mutated))
        answered = 0
        for data, reply in zip(fixed + mutated, replies):
            if reply:
                m = status_line.match(reply)
                self.assertIsNotNone(m, (data[:80], reply[:200]))
                self.assertLess(int(m.group(1)), 600)
                answered += 1
        self.assertGreater(answered, len(replies) // 2)
        self.assertEqual(get(server.url + "/health")[0], 200)
        self.assert_still_serves(server)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--trit", required=True)
    p.add_argument("--make-model", required=True)
    p.add_argument("--vocab", required=True)
    p.add_argument("--template", required=True)
    ARGS, rest = p.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
