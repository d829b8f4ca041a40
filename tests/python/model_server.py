"""A small HTTP file server on loopback for the model-store tests.

Serves in-memory files with HTTP Range support (bytes=N- and N-M), and can
misbehave per path, the ways real servers and networks do:

  normal        200 or 206 with Content-Range, as asked
  no-range      ignores Range: always 200 with the whole file
  truncate      announces the whole length, sends half, closes the connection
  lying-length  announces 1000 bytes more than it has, sends all it has, closes
  short-length  announces half the length, then sends the whole file
  extra         announces the length, then sends 1000 bytes more
  html          200 text/html with a web page
  html-bare     a web page with Content-Type application/octet-stream
  redirect-loop 302 to itself, forever
  slow          the file in 16 KiB pieces with a pause between them
  no-length     the whole file without Content-Length, ended by closing the connection
  keep-open     the whole file, then holds the connection open for 60 s
                (ignoring the client's "Connection: close")

Used by store_pull_test.py (run by ctest); also runnable by hand:
  python3 model_server.py FILE  (serves FILE as /model.gguf and prints the port)
"""
import http.server
import re
import socket
import sys
import threading
import time

HTML = b"<!DOCTYPE html>\n<html><head><title>model page</title></head><body>not a model</body></html>\n"


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: the tests read self.server.log
        pass

    def _send(self, status, headers, body):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if body:
            self.wfile.write(body)
        self.wfile.flush()

    def _hang_up(self):
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def do_GET(self):
        srv = self.server
        path = self.path
        rng = self.headers.get("Range")
        with srv.lock:
            srv.log.append((path, rng))
            mode = srv.modes.get(path, "normal")
            data = srv.files.get(path)
        if mode == "redirect-loop":
            return self._send(302, [("Location", path), ("Content-Length", "0")], b"")
        if mode in ("html", "html-bare"):
            ctype = "text/html; charset=utf-8" if mode == "html" else "application/octet-stream"
            return self._send(200, [("Content-Type", ctype), ("Content-Length", str(len(HTML)))], HTML)
        if data is None:
            return self._send(404, [("Content-Length", "0")], b"")

        start, end = 0, len(data) - 1
        status = 200
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng or "")
        if m and mode != "no-range":
            start = int(m.group(1))
            if m.group(2):
                end = min(int(m.group(2)), end)
            if start >= len(data):
                return self._send(416, [("Content-Range", f"bytes */{len(data)}"), ("Content-Length", "0")], b"")
            status = 206
        body = data[start:end + 1]
        headers = [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes")]
        if status == 206:
            headers.append(("Content-Range", f"bytes {start}-{end}/{len(data)}"))

        if mode == "truncate":
            self._send(status, headers + [("Content-Length", str(len(body)))], body[: len(body) // 2])
            return self._hang_up()
        if mode == "lying-length":
            self._send(status, headers + [("Content-Length", str(len(body) + 1000))], body)
            return self._hang_up()
        if mode == "short-length":
            self._send(status, headers + [("Content-Length", str(len(body) // 2))], body)
            return self._hang_up()
        if mode == "extra":
            self._send(status, headers + [("Content-Length", str(len(body)))], body + b"\0" * 1000)
            return self._hang_up()
        if mode == "no-length":
            self._send(status, headers + [("Connection", "close")], body)
            return self._hang_up()
        if mode == "slow":
            self._send(status, headers + [("Content-Length", str(len(body)))], b"")
            try:
                for i in range(0, len(body), 16384):
                    self.wfile.write(body[i:i + 16384])
                    self.wfile.flush()
                    time.sleep(srv.slow_pause)
            except OSError:
                self.close_connection = True
            return None
        self._send(status, headers + [("Content-Length", str(len(body)))], body)
        if mode == "keep-open":
            time.sleep(60)
        return None


class ModelServer:
    """A threaded server on 127.0.0.1 (an ephemeral port) serving `files` (path -> bytes)."""

    def __init__(self, files, slow_pause=0.005):
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.files = dict(files)
        self.httpd.modes = {}
        self.httpd.log = []
        self.httpd.lock = threading.Lock()
        self.httpd.slow_pause = slow_pause
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self):
        return self.httpd.server_address[1]

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def set_mode(self, path, mode):
        with self.httpd.lock:
            self.httpd.modes[path] = mode

    def requests(self, path=None):
        with self.httpd.lock:
            return [r for r in self.httpd.log if path is None or r[0] == path]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        server = ModelServer({"/model.gguf": f.read()})
    print(f"serving {sys.argv[1]} at {server.url('/model.gguf')}", flush=True)
    try:
        server.thread.join()
    except KeyboardInterrupt:
        server.close()
