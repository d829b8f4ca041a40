"""Starts `trit serve` on loopback for tests and benchmarks, and writes the
chat test model (tests/server/make_chat_model.cpp) it serves."""
import argparse
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request


# make_chat_model dims (n_embd n_layer n_ff type) of a 62 MB q8_0 llama that
# decodes about 250 tokens/s on one thread of the 2-core CI machine: a reply
# of up to 2000 tokens lasts seconds, long enough to watch, stop or queue behind.
SLOW_MODEL_DIMS = ["512", "8", "1536", "q8_0"]

_NGINX_PRELUDE = """
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections {worker_connections}; }}
http {{
  access_log off;
  client_body_temp_path {tmp}/body;
  proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/fastcgi;
  uwsgi_temp_path {tmp}/uwsgi;
  scgi_temp_path {tmp}/scgi;
"""


def nginx_conf(tmp, http_body, worker_connections=256):
    """An nginx configuration that runs unprivileged with every file under
    `tmp`, holding `http_body` (upstreams, servers) in its http block."""
    return _NGINX_PRELUDE.format(tmp=tmp, worker_connections=worker_connections) + http_body + "}\n"


def make_model(make_model_bin, vocab, template, out, dims=None):
    """Writes a random-weight llama with a real vocabulary and chat template."""
    cmd = [make_model_bin, out, vocab, template] + [str(d) for d in (dims or [])]
    subprocess.run(cmd, check=True)
    return out


class TritServer:
    """`trit serve MODEL --port 0 ARGS...` (MODEL None: the model store);
    the port is read from its banner."""

    def __init__(self, trit, model, *args, env=None):
        self.proc = subprocess.Popen([trit, "serve", *([model] if model else []), "--port", "0", *args],
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.stderr_lines = []
        deadline = time.time() + 60
        self.port = None
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.stderr_lines.append(line)
            m = re.search(r"at http://[^:]+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            self.proc.kill()
            raise RuntimeError("trit serve did not start:\n" + "".join(self.stderr_lines))
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_healthy(self, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("trit serve never became healthy")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def kill(self):
        self.proc.kill()
        self.proc.wait()


def server_test_args(*extra):
    """The command line of every server test: --trit, --make-model, --vocab
    and --template (what ctest passes), plus `extra`, (flag, keywords of
    add_argument) pairs. Returns (the arguments, what is left for unittest)."""
    p = argparse.ArgumentParser()
    p.add_argument("--trit", required=True)
    p.add_argument("--make-model", required=True)
    p.add_argument("--vocab", required=True)
    p.add_argument("--template", required=True, help="a chat template (tests may read others from its folder)")
    for flag, keywords in extra:
        p.add_argument(flag, **keywords)
    return p.parse_known_args()


def get(url, timeout=10):
    """GET url: (status, headers, body), errors included."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, dict(r.getheaders()), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def metric(url, name):
    """The value of the sample `name` (labels included) in the server's /metrics; 0 when absent."""
    _, _, body = get(url + "/metrics")
    m = re.search(rb"^" + re.escape(name.encode()) + rb" (\d+)", body, re.M)
    return int(m.group(1)) if m else 0


def wait_for(what, predicate, timeout=30, interval=0.05):
    """Polls until predicate() is true; fails the test after `timeout` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def rss_kib(pid):
    """The resident memory of process `pid` in KiB (Linux)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")
