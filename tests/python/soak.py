"""A soak of `trit serve`: clients sending a mix of requests for a while,
the server's memory and open files read when it is quiet before and after.
Used by tests/python/server_soak_test.py (60 s) and bench/serve_soak.py
(10 minutes, figures in docs/PERFORMANCE.md).

The mix, per client, drawn with its own seeded random stream: plain
completions, streamed chats read to the end, streams the client leaves
after two events, n = 2, JSON-mode answers, and requests that must fail
(broken JSON: 400, an unknown model: 404, a prompt past the context: 400).
Each reply is checked for the status its kind must get."""
import http.client
import json
import os
import random
import threading
import time
import urllib.request

from trit_server import rss_kib

KINDS = ("plain", "stream", "leave", "n2", "json", "bad_json", "unknown_model", "too_long")


def _post(port, path, body, stream=False, timeout=120):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json", "Connection": "close"})
    r = conn.getresponse()
    return conn, r


def _one(port, kind, rng, model, long_prompt):
    """Sends one request of `kind`; returns None when its reply is as it must be, else why not."""
    seed = rng.randrange(1 << 30)
    chat = {"model": model, "messages": [{"role": "user", "content": f"Tell me about number {seed % 1000}."}],
            "max_tokens": rng.randint(4, 24), "seed": seed, "temperature": 0.8}
    if kind == "plain":
        conn, r = _post(port, "/v1/completions", {"model": model, "prompt": "The sea is", "max_tokens": 8,
                                                   "seed": seed})
        body = r.read()
        conn.close()
        return None if r.status == 200 and json.loads(body)["choices"] else f"plain: {r.status} {body[:200]}"
    if kind in ("stream", "leave"):
        conn, r = _post(port, "/v1/chat/completions", dict(chat, stream=True))
        if r.status != 200:
            body = r.read()
            conn.close()
            return f"{kind}: {r.status} {body[:200]}"
        events = 0
        done = False
        for line in r:
            if line.startswith(b"data: "):
                events += 1
                done = line.strip() == b"data: [DONE]"
            if kind == "leave" and events == 2:
                break  # the client leaves mid-stream
        conn.close()
        return None if kind == "leave" or done else "stream: ended without [DONE]"
    if kind == "n2":
        conn, r = _post(port, "/v1/chat/completions", dict(chat, n=2))
        body = r.read()
        conn.close()
        return None if r.status == 200 and len(json.loads(body)["choices"]) == 2 else f"n2: {r.status} {body[:200]}"
    if kind == "json":
        conn, r = _post(port, "/v1/chat/completions", dict(chat, max_tokens=48,
                                                            response_format={"type": "json_object"}))
        body = r.read()
        conn.close()
        return None if r.status == 200 else f"json: {r.status} {body[:200]}"
    expected = {"bad_json": 400, "unknown_model": 404, "too_long": 400}[kind]
    if kind == "bad_json":
        payload = b'{"prompt": "x", "max_tokens": 4,,}'
    elif kind == "unknown_model":
        payload = dict(chat, model="no-such-model")
    else:
        payload = {"model": model, "prompt": long_prompt, "max_tokens": 4}
    conn, r = _post(port, "/v1/chat/completions" if kind == "unknown_model" else "/v1/completions", payload)
    body = r.read()
    conn.close()
    ok = r.status == expected and json.loads(body)["error"]["message"]
    return None if ok else f"{kind}: {r.status} (expected {expected}) {body[:200]}"


def _open_connections(url):
    with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("trit_open_connections "):
                return int(line.split()[1])
    return -1


def _quiet_sample(server):
    """RSS (KiB) and open descriptors of the server once only the sampling connection is open."""
    deadline = time.time() + 30
    while _open_connections(server.url) > 1 and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.2)
    return rss_kib(server.proc.pid), len(os.listdir(f"/proc/{server.proc.pid}/fd"))


def _run_clients(server, seconds, clients, seed, model, long_prompt, counts, failures, lock):
    stop = time.time() + seconds

    def client(i):
        rng = random.Random(seed * 1000 + i)
        while time.time() < stop:
            kind = rng.choice(KINDS)
            try:
                why = _one(server.port, kind, rng, model, long_prompt)
            except Exception as e:  # a dropped connection, a timeout: a failure of the server
                why = f"{kind}: {type(e).__name__}: {e}"
            with lock:
                counts[kind] = counts.get(kind, 0) + 1
                if why:
                    failures.append(why)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def soak(server, seconds, clients=8, warmup=10, seed=1, model="", long_prompt_tokens=5000):
    """Runs the mix on `server` (a TritServer) for `warmup` then `seconds`
    seconds; returns a dict: requests by kind after the warm-up, failures
    (of both phases), RSS and descriptors after the warm-up and at the end
    (both read with no request running)."""
    long_prompt = "word " * long_prompt_tokens
    counts, failures, lock = {}, [], threading.Lock()
    _run_clients(server, warmup, clients, seed, model, long_prompt, {}, failures, lock)
    rss_start, fds_start = _quiet_sample(server)
    started = time.time()
    _run_clients(server, seconds, clients, seed + 1, model, long_prompt, counts, failures, lock)
    elapsed = time.time() - started
    rss_end, fds_end = _quiet_sample(server)
    return {"counts": counts, "failures": failures, "seconds": elapsed, "rss_start_kib": rss_start,
            "rss_end_kib": rss_end, "fds_start": fds_start, "fds_end": fds_end,
            "rss_growth": (rss_end - rss_start) / rss_start}
