"""Starts `trit serve` on loopback for tests and benchmarks, and writes the
chat test model (tests/server/make_chat_model.cpp) it serves."""
import os
import re
import signal
import subprocess
import time
import urllib.request


# make_chat_model dims (n_embd n_layer n_ff type) of a 62 MB q8_0 llama that
# decodes about 250 tokens/s on one thread of the 2-core CI machine: a reply
# of up to 2000 tokens lasts seconds, long enough to watch, stop or queue behind.
SLOW_MODEL_DIMS = ["512", "8", "1536", "q8_0"]

_NGINX_PRELUDE = """
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {tmp}/body;
  proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/fastcgi;
  uwsgi_temp_path {tmp}/uwsgi;
  scgi_temp_path {tmp}/scgi;
"""


def nginx_conf(tmp, http_body):
    """An nginx configuration that runs unprivileged with every file under
    `tmp`, holding `http_body` (upstreams, servers) in its http block."""
    return _NGINX_PRELUDE.format(tmp=tmp) + http_body + "}\n"


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
