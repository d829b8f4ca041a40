"""The attacks of server_attack_test.py through nginx in front of `trit
serve`, configured with the limits docs/DEPLOY.md recommends (issue 20):
1,000 idle and half-sent connections and slowloris clients while normal
requests are served, the slow ones closed by nginx's header timeout; 2,000
mutated requests each getting a well-formed answer; a client leaving
mid-stream freeing trit's slot; trit's 429 with Retry-After passed through.
nginx runs in the foreground with a temporary configuration. Exits 77
(skipped) without nginx."""
import concurrent.futures
import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_attacks import IdleAndSlowClients, check_replies, mutated_requests, raw  # noqa: E402
from trit_server import (SLOW_MODEL_DIMS, TritServer, get, make_model,
                         metric, nginx_conf, server_test_args, wait_for)  # noqa: E402

ARGS = None

# docs/DEPLOY.md's limits, with the header timeout shortened for the test.
NGINX_SERVER = """
  limit_conn_zone $binary_remote_addr zone=perclient:1m;
  upstream trit {{
    server 127.0.0.1:{upstream};
    keepalive 16;
  }}
  server {{
    listen 127.0.0.1:{port};
    client_max_body_size 64k;
    client_header_timeout {header_timeout}s;
    client_body_timeout 10s;
    keepalive_timeout 15s;
    send_timeout 30s;
    large_client_header_buffers 4 32k;
    limit_conn perclient 128;
    limit_conn_status 503;
    location / {{
      proxy_pass http://trit;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 300s;
      proxy_connect_timeout 2s;
    }}
  }}
"""
HEADER_TIMEOUT = 3


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def completion(port, max_tokens=4):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/v1/completions", body=json.dumps({"prompt": "Hello", "max_tokens": max_tokens}),
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, body


class Nginx:
    """nginx on a free loopback port in front of one `trit serve`."""

    def __init__(self, tmp, upstream_port):
        self.port = free_port()
        conf = os.path.join(tmp, f"nginx-{self.port}.conf")
        with open(conf, "w") as f:
            f.write(nginx_conf(tmp, NGINX_SERVER.format(port=self.port, upstream=upstream_port,
                                                        header_timeout=HEADER_TIMEOUT), worker_connections=4096))
        self.proc = subprocess.Popen([ARGS.nginx, "-e", os.path.join(tmp, "error.log"), "-p", tmp, "-c", conf,
                                      "-g", "daemon off;"])
        self.url = f"http://127.0.0.1:{self.port}"
        wait_for("nginx", lambda: self.proc.poll() is not None or self._up(), timeout=20)
        if self.proc.poll() is not None:
            raise RuntimeError("nginx did not start:\n" + open(os.path.join(tmp, "error.log")).read())

    def _up(self):
        try:
            return get(self.url + "/health", timeout=2)[0] == 200
        except OSError:
            return False

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


class NginxAttackTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trit-nginx-attack-")
        os.chmod(cls.tmp, 0o755)  # nginx workers may run as another user
        cls.fast_model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(cls.tmp, "fast.gguf"),
                                    ["64", "2", "128", "f32"])
        cls.slow_model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(cls.tmp, "slow.gguf"),
                                    SLOW_MODEL_DIMS)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def front(self, model, *args):
        """trit serve MODEL ARGS behind nginx: (trit, nginx)."""
        server = TritServer(ARGS.trit, model, "--threads", "1", *args)
        self.addCleanup(server.stop)
        server.wait_healthy()
        proxy = Nginx(self.tmp, server.port)
        self.addCleanup(proxy.stop)
        return server, proxy

    def test_idle_half_sent_and_slowloris_connections_stall_no_one(self):
        server, proxy = self.front(self.fast_model)
        with IdleAndSlowClients(proxy.port, n=1000, slow=50) as clients:
            for _ in range(10):
                started = time.perf_counter()
                status, body = completion(proxy.port)
                self.assertEqual(status, 200, body)
                self.assertLess(time.perf_counter() - started, 2.0)
            # nginx closes a connection whose header is not in after client_header_timeout.
            wait_for("nginx to close the slowloris connections", lambda: len(clients.closed) == 50,
                     timeout=HEADER_TIMEOUT + 15)
        self.assertEqual(completion(proxy.port)[0], 200)

    def test_two_thousand_mutated_requests_get_a_well_formed_answer(self):
        server, proxy = self.front(self.fast_model, "--ctx", "64", "--queue", "256", "--max-body", "65536")
        cases = mutated_requests(random.Random(21), scale=0.2)
        with concurrent.futures.ThreadPoolExecutor(32) as pool:
            replies = list(pool.map(lambda c: raw(proxy.port, c[1], timeout=20,
                                                  half_close=c[0] in ("header", "chunked", "fixed")), cases))
        answered = check_replies(self, cases, replies, proxy=True)
        print(f"\n{len(cases)} requests through nginx; answered by kind: {answered}", file=sys.stderr)
        self.assertIsNone(server.proc.poll())
        self.assertEqual(get(proxy.url + "/health")[0], 200)
        self.assertEqual(completion(proxy.port)[0], 200)

    def test_a_client_leaving_mid_stream_frees_the_slot_behind_the_proxy(self):
        server, proxy = self.front(self.slow_model, "--parallel", "1")
        conn = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=60)
        conn.request("POST", "/v1/completions",
                     body=json.dumps({"prompt": "Tell", "max_tokens": 2000, "stream": True}),
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        self.assertEqual(r.status, 200)
        r.read(200)
        wait_for("the slot", lambda: metric(server.url, "trit_active_slots") == 1)
        conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()
        wait_for("the slot to be freed", lambda: metric(server.url, "trit_active_slots") == 0, timeout=15)
        self.assertEqual(metric(server.url, 'trit_requests_cancelled_total{stage="generating"}'), 1)

    def test_a_full_server_s_429_and_retry_after_pass_through(self):
        server, proxy = self.front(self.slow_model, "--parallel", "1", "--queue", "0")
        conn = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=60)
        conn.request("POST", "/v1/completions",
                     body=json.dumps({"prompt": "Tell", "max_tokens": 2000, "stream": True}),
                     headers={"Content-Type": "application/json"})
        running = conn.getresponse()
        self.assertEqual(running.status, 200)
        wait_for("the slot", lambda: metric(server.url, "trit_active_slots") == 1)
        req = urllib.request.Request(proxy.url + "/v1/completions", data=b'{"prompt": "Hi", "max_tokens": 2}',
                                     headers={"Content-Type": "application/json"})
        with self.assertRaises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=10)
        self.assertEqual(e.exception.code, 429)
        self.assertEqual(e.exception.headers["Retry-After"], "1")
        self.assertEqual(json.loads(e.exception.read())["error"]["code"], "server_busy")
        conn.close()


if __name__ == "__main__":
    ARGS, rest = server_test_args(("--nginx", {"default": shutil.which("nginx") or "/usr/sbin/nginx"}))
    if not os.path.exists(ARGS.nginx):
        print(f"SKIP: nginx not found at {ARGS.nginx} (Debian package nginx-light)")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
