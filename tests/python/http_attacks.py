"""Requests that attack an HTTP server: mutated, malformed and odd ones
(10,000 by default, in kinds), sent raw over sockets, and the check that
each gets a well-formed answer. Used by tests/python/server_attack_test.py
(against trit serve) and server_nginx_attack_test.py (through nginx)."""
import json
import re
import resource
import socket
import threading
import time


def raw(port, data, timeout=5, half_close=True):
    """Sends bytes, returns what comes back until the server closes or the
    timeout. half_close: say at once that nothing more will come (for bytes
    that may not be a complete request), which a server may take for a
    client that left."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    out = b""
    try:
        s.sendall(data)
        if half_close:
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


VALID_BODIES = [
    {"prompt": "Hi", "max_tokens": 2, "seed": 3},
    {"model": "fast", "prompt": ["a", "b"], "max_tokens": 1, "temperature": 0.5, "stop": ["x"]},
    {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2},
    {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
     "max_tokens": 1, "logprobs": True, "top_logprobs": 2, "stream": True},
    {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2,
     "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}},
    {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2,
     "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]},
]
ODD_VALUES = [None, True, -1, 0, 1, 2, 3.5, 1e308, -1e308, 2 ** 64, -(2 ** 63), "", "x" * 300, [], [[]], {},
              {"a": {"b": {"c": []}}}, [1, "a", None], "\u0000", "\ud800", float("nan"), float("inf")]
FIELDS = ["prompt", "messages", "max_tokens", "temperature", "top_p", "top_k", "min_p", "seed", "n", "stop",
          "stream", "logprobs", "top_logprobs", "logit_bias", "echo", "response_format", "tools", "tool_choice",
          "grammar", "model", "stream_options", "presence_penalty", "frequency_penalty", "repeat_penalty",
          "user", "metadata", "max_completion_tokens", "unknown_field"]
ROUTES = ["/v1/completions", "/v1/chat/completions", "/v1/models", "/v1/models/fast", "/health", "/metrics",
          "/tokenize", "/detokenize", "/v1/embeddings", "/", "/webui/app.js", "/v1", "/v1/../etc/passwd",
          "/%00", "/v1/completions?x=1", "/" + "a" * 3000, "/\u00e9t\u00e9"]
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "post", "GETT", "BREW"]
BAD_UTF8 = [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80", b"\xf8\x88\x80\x80\x80",
            b"\xf4\x90\x80\x80", b"\xfe\xfe"]


class IdleAndSlowClients:
    """A context holding `n` connections to `port`, every other one with half
    a request header sent, and on the first `slow` of them a slowloris
    sender (a header byte a second). `closed` lists the slow ones the server
    closed. The open-file limit is raised to hold them."""

    def __init__(self, port, n=1000, slow=50):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < n + 1024:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(n + 1024, hard), hard))
        self.port, self.n, self.slow = port, n, slow
        self.held, self.closed, self.stop, self.drippers = [], [], threading.Event(), []

    def _drip(self, sock):
        for b in b"GET /health HTTP/1.1\r\nX-Slow: " + b"a" * 1000:
            if self.stop.wait(1.0):
                return
            try:
                sock.send(bytes([b]))
            except OSError:
                self.closed.append(sock)
                return

    def __enter__(self):
        try:
            for i in range(self.n):
                s = socket.create_connection(("127.0.0.1", self.port))
                if i % 2:
                    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\n")  # half a header
                self.held.append(s)
            self.drippers = [threading.Thread(target=self._drip, args=(s,)) for s in self.held[:self.slow]]
            for t in self.drippers:
                t.start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.drippers:
            t.join()
        for s in self.held:
            s.close()
        return False


def timed(f):
    started = time.perf_counter()
    out = f()
    return time.perf_counter() - started, out


def http_request(method, path, body, headers=()):
    head = (f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Connection: close\r\n").encode()
    for h in headers:
        head += h + b"\r\n"
    return head + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


def mutate(rng, data, n_max=6):
    b = bytearray(data)
    for _ in range(rng.randint(1, n_max)):
        op = rng.randrange(3)
        i = rng.randrange(len(b) + 1)
        if op == 0 and i < len(b):
            b[i] = rng.randrange(256)
        elif op == 1:
            del b[i:i + rng.randint(1, 8)]
        else:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(b)


def route_of(body):
    return "/v1/chat/completions" if "messages" in body else "/v1/completions"


def mutated_requests(rng, scale=1.0):
    """10,000 (kind, bytes; `scale` times as many): bodies mutated byte by byte with their length
    kept right (json), well-formed JSON with odd values (values), invalid
    UTF-8 in strings (utf8), methods and paths (method), mutated request
    lines and headers (header), chunked bodies whole and broken (chunked)
    and the fixed cases below (fixed)."""
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
        http_request("POST", "/v1/completions", b"[" * 100000 + b"]" * 100000),    # deep nesting past --max-body
        http_request("POST", "/v1/completions", b"[" * 30000 + b"]" * 30000),      # deep nesting
    ]
    out = [("fixed", d) for d in fixed]
    for _ in range(int(4000 * scale)):
        body = rng.choice(VALID_BODIES)
        out.append(("json", http_request("POST", route_of(body), mutate(rng, json.dumps(body).encode()))))
    for _ in range(int(2000 * scale)):
        body = dict(rng.choice(VALID_BODIES))
        for _ in range(rng.randint(1, 3)):
            body[rng.choice(FIELDS)] = rng.choice(ODD_VALUES)
        out.append(("values", http_request("POST", route_of(body), json.dumps(body).encode())))
    for _ in range(int(500 * scale)):
        body = rng.choice(VALID_BODIES)
        text = json.dumps(body).encode()
        quote = [i for i, c in enumerate(text) if c == ord('"')]
        i = rng.choice(quote) + 1  # just inside a key or a string value
        text = text[:i] + rng.choice(BAD_UTF8) + text[i:]
        out.append(("utf8", http_request("POST", route_of(body), text)))
    for _ in range(int(1000 * scale)):
        method = rng.choice(METHODS)
        path = rng.choice(ROUTES)
        body = json.dumps(rng.choice(VALID_BODIES)).encode() if rng.random() < 0.7 else b""
        out.append(("method", http_request(method, path, body)))
    for _ in range(int(1500 * scale) - len(fixed)):
        body = json.dumps(rng.choice(VALID_BODIES)).encode()
        req = http_request("POST", route_of(json.loads(body)), body)
        head, sep, rest = req.partition(b"\r\n\r\n")
        out.append(("header", mutate(rng, head, 4) + sep + rest))
    for _ in range(int(1000 * scale)):
        body = json.dumps(rng.choice(VALID_BODIES)).encode()
        chunks, i = [], 0
        while i < len(body):
            n = rng.randint(1, 40)
            chunks.append(b"%x\r\n" % len(body[i:i + n]) + body[i:i + n] + b"\r\n")
            i += n
        data = b"".join(chunks) + b"0\r\n\r\n"
        if rng.random() < 0.5:
            data = mutate(rng, data, 3)
        out.append(("chunked", b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\n" + data))
    return out


def parse_reply(reply):
    """(status, {lower-case header: value}, body) of the first response in `reply`."""
    head, _, rest = reply.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    m = re.match(rb"^HTTP/1\.[01] (\d{3})", lines[0])
    if not m:
        return None, {}, b""
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(b":")
        headers[k.strip().lower().decode(errors="replace")] = v.strip().decode(errors="replace")
    length = headers.get("content-length")
    body = rest[:int(length)] if length and length.isdigit() else rest
    return int(m.group(1)), headers, body


def check_replies(test, cases, replies, proxy=False):
    """Asserts that each reply is a well-formed HTTP answer (an error in
    OpenAI's shape when it is one of trit's), that every well-formed request
    got one, and that only bytes that are not a complete request went
    unanswered; returns the answers counted by kind. proxy: through a proxy,
    whose own errors (a method it refuses, say) are its pages, not JSON."""
    answered = {}
    for (kind, data), reply in zip(cases, replies):
        if not reply:
            # Closed without an answer: only for bytes that are not a
            # complete HTTP request.
            test.assertIn(kind, ("header", "chunked", "fixed"), data[:200])
            continue
        answered[kind] = answered.get(kind, 0) + 1
        status, headers, body = parse_reply(reply)
        if status is None and proxy and kind in ("header", "chunked", "fixed"):
            continue  # a request line without a version is HTTP/0.9 to nginx: answered without a status line
        test.assertIsNotNone(status, (kind, data[:120], reply[:200]))
        test.assertTrue(100 <= status < 600, (kind, reply[:200]))
        head_request = data.startswith(b"HEAD ")  # answered without a body, as HTTP says
        if status >= 400 and headers.get("content-type", "").startswith("application/json") and not head_request:
            try:
                error = json.loads(body)["error"]
            except ValueError:
                test.fail((kind, data[:200], reply[:400]))
            test.assertTrue(error["message"], (kind, body[:200]))
            test.assertIn("type", error)
        if kind in ("json", "values", "utf8", "method") and not proxy:
            # A well-formed HTTP request always gets its answer, in OpenAI's shape when it is an error.
            test.assertTrue(status < 400 or headers.get("content-type", "").startswith("application/json"),
                            (kind, data[:200], reply[:300]))
    for kind in ("json", "values", "utf8", "method"):
        total = sum(1 for k, _ in cases if k == kind)
        test.assertEqual(answered.get(kind, 0), total, kind)
    return answered
