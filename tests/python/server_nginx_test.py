"""Two `trit serve` replicas behind nginx on loopback (docs/DEPLOY.md):
requests through nginx succeed, one replica is killed, requests still
succeed (nginx passes them to the one left). nginx runs in the foreground
with a temporary configuration; nothing is left behind."""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import openai

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trit_server import TritServer, make_model, nginx_conf  # noqa: E402

NGINX_SERVERS = """
  upstream trit {{
    least_conn;
    server 127.0.0.1:{port_a} max_fails=1 fail_timeout=30s;
    server 127.0.0.1:{port_b} max_fails=1 fail_timeout=30s;
    keepalive 16;
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://trit;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 300s;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_connect_timeout 2s;
    }}
  }}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ask(client, i):
    r = client.chat.completions.create(model="nginx-test", messages=[{"role": "user", "content": f"Hi {i}"}],
                                       max_tokens=4, seed=i)
    assert r.choices[0].message.content is not None and r.usage.completion_tokens <= 4
    stream = client.chat.completions.create(model="nginx-test", messages=[{"role": "user", "content": f"Hi {i}"}],
                                            max_tokens=4, seed=i, stream=True)
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == r.choices[0].message.content, (text, r.choices[0].message.content)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trit", required=True)
    p.add_argument("--make-model", required=True)
    p.add_argument("--vocab", required=True)
    p.add_argument("--template", required=True)
    p.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    a = p.parse_args()
    if not os.path.exists(a.nginx):
        print(f"SKIP: nginx not found at {a.nginx} (Debian package nginx-light)")
        return 77
    tmp = tempfile.mkdtemp(prefix="trit-nginx-")
    os.chmod(tmp, 0o755)  # nginx workers may run as another user
    replicas, nginx = [], None
    try:
        model = make_model(a.make_model, a.vocab, a.template, os.path.join(tmp, "nginx-test.gguf"))
        replicas = [TritServer(a.trit, model, "--parallel", "2", "--ctx", "256", "--threads", "1") for _ in range(2)]
        for r in replicas:
            r.wait_healthy()
        port = free_port()
        conf = os.path.join(tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(nginx_conf(tmp, NGINX_SERVERS.format(port=port, port_a=replicas[0].port, port_b=replicas[1].port)))
        nginx = subprocess.Popen([a.nginx, "-e", os.path.join(tmp, "error.log"), "-p", tmp, "-c", conf,
                                  "-g", "daemon off;"])
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 20
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.time() > deadline or nginx.poll() is not None:
                    raise RuntimeError("nginx did not come up:\n" + open(os.path.join(tmp, "error.log")).read())
                time.sleep(0.05)
        client = openai.OpenAI(base_url=url + "/v1", api_key="none", max_retries=0, timeout=30)
        for i in range(6):
            ask(client, i)
        print(f"ok: 6 requests through nginx to replicas on ports {replicas[0].port} and {replicas[1].port}")
        replicas[0].kill()
        for i in range(6, 16):
            ask(client, i)
        with urllib.request.urlopen(url + "/health", timeout=5) as r:
            assert r.status == 200
        print(f"ok: replica on port {replicas[0].port} killed; 10 more requests through nginx succeeded")
        return 0
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(timeout=10)
        for r in replicas:
            r.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
