"""The chat page of `trit serve` in a real browser: Debian's chromium,
headless, driven by Selenium through Debian's chromedriver, against `trit
serve` on loopback.

With the bundled model: the page loads, lists the model, sends a message with
Enter, shows the reply with tokens/s, keeps the conversation across a reload,
makes and deletes conversations, works at phone width. With a generated model
slow enough to watch: the reply streams in, Escape (and the Stop button) stop
it and the server frees the slot, a full server's 429 is shown. With an API
key: the page asks for it and then works. Serving a model store of two
models: the picker lists both, and each reply comes from the model picked.
Markup in a reply or a message is
shown as text and never runs. Screenshots go to --screenshots.

Exits 77 (skipped, saying why) when chromium, chromedriver or Selenium is
missing."""
import argparse
import http.client
import json
import os
import re
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
from trit_server import SLOW_MODEL_DIMS, TritServer, make_model, nginx_conf  # noqa: E402

ARGS = None
KEY = "browser-test-key"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.getheaders()), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def active_slots(server):
    _, _, body = get(server.url + "/metrics")
    m = re.search(rb"^trit_active_slots (\d+)", body, re.M)
    return int(m.group(1))


def wait_for(what, predicate, timeout=30, interval=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def new_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1100,760", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    # Selenium Manager would look for drivers on the network; Debian's are given.
    os.environ["SE_OFFLINE"] = "true"
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


class Page:
    """The chat page in one browser tab, by the ids index.html gives."""

    def __init__(self, driver, url):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        self.d, self.url, self.By, self.Keys = driver, url, By, Keys

    def open(self):
        self.d.get(self.url + "/")
        wait_for("the model list", lambda: self.js("return document.getElementById('model').options.length > 0"))

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def el(self, element_id):
        return self.d.find_element(self.By.ID, element_id)

    def type_and_enter(self, text):
        box = self.el("prompt")
        box.click()
        box.send_keys(text)
        box.send_keys(self.Keys.ENTER)

    def busy(self):
        return self.js("return document.getElementById('app').classList.contains('busy')")

    def messages(self):
        """[(role, body text, error text, stats text)] as shown."""
        return self.js("""return [...document.querySelectorAll('#messages .message')].map(li => [
            li.classList.contains('user') ? 'user' : 'assistant', li.querySelector('.body').textContent,
            li.querySelector('.error').textContent, li.querySelector('.stats').textContent]);""")

    def conversations(self):
        return self.js("return [...document.querySelectorAll('#conversations .open')].map(b => b.textContent)")

    def set_setting(self, element_id, value):
        self.js("const e = document.getElementById(arguments[0]); e.value = arguments[1];"
                "e.dispatchEvent(new Event('change'));", element_id, str(value))

    def reset_storage(self):
        self.js("localStorage.clear()")
        self.open()

    def screenshot(self, name):
        os.makedirs(ARGS.screenshots, exist_ok=True)
        path = os.path.join(ARGS.screenshots, name)
        self.d.save_screenshot(path)
        return path


class BrowserTest(unittest.TestCase):
    driver = None

    @classmethod
    def setUpClass(cls):
        cls.driver = new_browser()

    @classmethod
    def tearDownClass(cls):
        if cls.driver is not None:
            cls.driver.quit()

    def serve(self, model, *args, env=None):
        server = TritServer(ARGS.trit, model, *args, env=env)
        server.wait_healthy()
        self.addCleanup(server.stop)
        return server

    def page(self, server):
        p = Page(self.driver, server.url)
        p.open()
        p.reset_storage()
        self.addCleanup(lambda: self.driver.execute_script("localStorage.clear()"))
        return p


class BundledModelTest(BrowserTest):
    """The bundled stories260K, served alone."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = TritServer(ARGS.trit, ARGS.model)
        cls.server.wait_healthy()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()

    def setUp(self):
        self.p = Page(self.driver, self.server.url)
        self.p.open()
        self.p.reset_storage()

    def send_and_wait(self, text):
        n_before = len(self.p.messages())
        self.p.type_and_enter(text)
        wait_for("the reply to finish", lambda: len(self.p.messages()) == n_before + 2 and not self.p.busy())
        return self.p.messages()[-1]

    def test_a_message_gets_a_reply_with_its_speed(self):
        self.assertEqual(self.p.js("return [...document.getElementById('model').options].map(o => o.value)"),
                         ["stories260K"])
        self.p.set_setting("seed", 7)
        role, body, error, stats = self.send_and_wait("Once upon a time")
        self.assertEqual((role, error), ("assistant", ""))
        self.assertGreater(len(body.strip()), 0)
        self.assertRegex(stats, r"^\d+ tokens? · [\d.]+ tokens/s · first token \d+ ms")
        self.assertEqual(self.p.messages()[0][:2], ["user", "Once upon a time"])
        # The page's request is an ordinary chat completion: the API gives the
        # same text for the same seed and settings.
        req = {"messages": [{"role": "user", "content": "Once upon a time"}], "seed": 7, "temperature": 0.8,
               "max_tokens": 512, "model": "stories260K"}
        _, _, raw = post(self.server, "/v1/chat/completions", req)
        self.assertEqual(json.loads(raw)["choices"][0]["message"]["content"], body)
        self.p.screenshot("reply.png")

    def test_shift_enter_is_a_new_line_and_enter_sends(self):
        box = self.p.el("prompt")
        box.send_keys("first line")
        box.send_keys(self.p.Keys.SHIFT, self.p.Keys.ENTER)
        box.send_keys("second line")
        self.assertEqual(box.get_attribute("value"), "first line\nsecond line")
        self.assertEqual(self.p.messages(), [])
        box.send_keys(self.p.Keys.ENTER)
        wait_for("the reply", lambda: len(self.p.messages()) == 2 and not self.p.busy())
        self.assertEqual(self.p.messages()[0][1], "first line\nsecond line")
        self.assertEqual(box.get_attribute("value"), "")

    def test_conversations_survive_a_reload_and_can_be_deleted(self):
        self.send_and_wait("The cat")
        self.p.el("new-chat").click()
        self.assertEqual(self.p.messages(), [])
        self.send_and_wait("A big dog")
        self.assertEqual(self.p.conversations(), ["A big dog", "The cat"])
        shown = self.p.messages()
        self.p.d.refresh()
        wait_for("the page", lambda: self.p.js("return document.getElementById('model').options.length > 0"))
        self.assertEqual(self.p.conversations(), ["A big dog", "The cat"])
        self.assertEqual(self.p.messages(), shown)
        # Open the older one, then delete it.
        self.p.d.find_elements(self.p.By.CSS_SELECTOR, "#conversations .open")[1].click()
        self.assertEqual(self.p.messages()[0][1], "The cat")
        self.p.d.find_element(self.p.By.CSS_SELECTOR, "[aria-label='Delete conversation: The cat']").click()
        self.assertEqual(self.p.conversations(), ["A big dog"])
        self.p.d.refresh()
        wait_for("the page", lambda: self.p.js("return document.getElementById('model').options.length > 0"))
        self.assertEqual(self.p.conversations(), ["A big dog"])

    def test_markup_in_replies_and_messages_is_text_and_never_runs(self):
        payload = ('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
                   '\n\n```html\n<img src=y onerror="window.__pwned = 3">\n```\n- <b onclick="x()">item</b>')
        # A stored reply goes through the renderer that streamed replies use.
        conversation = {"id": "x1", "title": "markup", "created": 0, "messages": [
            {"role": "user", "content": payload}, {"role": "assistant", "content": payload, "model": "m"}]}
        self.p.js("localStorage.setItem('trit.chat.v1', JSON.stringify(arguments[0]))",
                  {"conversations": [conversation], "current": "x1", "settings": {}})
        self.p.d.refresh()
        wait_for("the page", lambda: len(self.p.messages()) == 2)
        # A message sent now goes to the model as it is and shows as text.
        self.send_and_wait(payload)
        time.sleep(0.3)  # an onerror handler would have run by now
        self.assertIsNone(self.p.js("return window.__pwned"))
        counts = self.p.js("""const m = document.getElementById('messages');
            return [m.querySelectorAll('script, img, b, [onerror], [onclick]').length,
                    m.querySelectorAll('pre code').length];""")
        self.assertEqual(counts[0], 0)
        self.assertGreaterEqual(counts[1], 1)  # the fenced block is a code block
        self.assertIn("<script>window.__pwned = 1</script>", self.p.messages()[1][1])
        # And should markup ever reach the page as HTML, the
        # Content-Security-Policy blocks its inline handlers.
        self.p.js("const d = document.createElement('div'); d.innerHTML = arguments[0];"
                  "document.body.appendChild(d);", '<img src="data:," onerror="window.__pwned = 4">'
                  '<img src="nope.png" onerror="window.__pwned = 5">')
        time.sleep(0.5)
        self.assertIsNone(self.p.js("return window.__pwned"))

    def test_every_control_has_a_label(self):
        unlabelled = self.p.js("""return [...document.querySelectorAll('input, select, textarea')]
            .filter(e => e.labels.length === 0 && !e.getAttribute('aria-label')).map(e => e.id);""")
        self.assertEqual(unlabelled, [])

    def test_phone_width(self):
        self.p.d.set_window_size(390, 844)
        self.addCleanup(self.p.d.set_window_size, 1100, 760)
        self.send_and_wait("Once upon a time there was a very long sentence that has to wrap at phone width")
        layout = self.p.js("""const r = e => document.getElementById(e).getBoundingClientRect();
            return {scroll: document.documentElement.scrollWidth, width: window.innerWidth,
                    sidebar: getComputedStyle(document.getElementById('sidebar')).display,
                    prompt: r('prompt').width, send: r('send').right};""")
        self.assertLessEqual(layout["scroll"], layout["width"])  # nothing wider than the screen
        self.assertEqual(layout["sidebar"], "none")
        self.assertLessEqual(layout["send"], layout["width"])
        self.assertGreater(layout["prompt"], 150)
        self.p.screenshot("phone.png")
        self.p.el("toggle-sidebar").click()
        self.assertEqual(self.p.js("return getComputedStyle(document.getElementById('sidebar')).display"), "block")
        self.p.d.find_element(self.p.By.CSS_SELECTOR, "#conversations .open").click()
        self.assertEqual(self.p.js("return getComputedStyle(document.getElementById('sidebar')).display"), "none")

    def test_server_down_is_said_plainly(self):
        server = TritServer(ARGS.trit, ARGS.model)
        server.wait_healthy()
        p = Page(self.driver, server.url)
        p.open()
        server.stop()
        p.type_and_enter("Hello")
        wait_for("the error", lambda: not p.busy() and p.messages()[-1][2])
        self.assertIn("Cannot reach trit serve", p.messages()[-1][2])


def post(server, path, body, headers=None, stream=False):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    conn.request("POST", path, body=json.dumps(body), headers=h)
    r = conn.getresponse()
    if stream:
        return conn, r
    data = r.read()
    conn.close()
    return r.status, dict(r.getheaders()), data


class SlowModelTest(BrowserTest):
    """A generated model, slow enough that a reply can be watched and stopped."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(cls.tmp.name, "slow.gguf"),
                               SLOW_MODEL_DIMS)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()
        super().tearDownClass()

    def test_reply_streams_and_stop_frees_the_slot(self):
        server = self.serve(self.model, "--threads", "1", "--parallel", "1")
        p = self.page(server)
        p.set_setting("max-tokens", 1500)
        for stop_with in ("escape", "button"):
            p.type_and_enter("Tell me a long story")
            # The reply grows while the request runs: it is streamed.
            lengths = []

            def grew():
                lengths.append(len(p.messages()[-1][1]))
                return len(set(lengths)) >= 3 and lengths[-1] > 0

            wait_for("the reply to stream in", grew, timeout=60, interval=0.1)
            self.assertTrue(p.busy())
            self.assertTrue(p.el("stop").is_displayed())
            self.assertEqual(active_slots(server), 1)
            if stop_with == "escape":
                p.el("prompt").send_keys(p.Keys.ESCAPE)
            else:
                p.el("stop").click()
            wait_for("the page to stop", lambda: not p.busy(), timeout=10)
            self.assertTrue(p.el("send").is_displayed())
            self.assertIn("stopped", p.messages()[-1][3])
            wait_for("the server to free the slot", lambda: active_slots(server) == 0, timeout=10)
            stopped_at = p.messages()[-1][1]
            time.sleep(0.5)
            self.assertEqual(p.messages()[-1][1], stopped_at)
        p.screenshot("stopped.png")

    def test_a_server_that_dies_mid_reply_is_said_and_the_text_kept(self):
        server = TritServer(ARGS.trit, self.model, "--threads", "1")
        self.addCleanup(server.kill)
        server.wait_healthy()
        p = self.page(server)
        p.set_setting("max-tokens", 1500)
        p.type_and_enter("Tell me a long story")
        wait_for("the reply to start", lambda: len(p.messages()) == 2 and len(p.messages()[-1][1]) > 0, timeout=60)
        server.kill()
        wait_for("the error", lambda: not p.busy() and p.messages()[-1][2], timeout=10)
        self.assertRegex(p.messages()[-1][2], "Cannot reach trit serve|closed before the reply was complete")
        self.assertGreater(len(p.messages()[-1][1]), 0)

    def test_a_full_server_says_busy(self):
        server = self.serve(self.model, "--threads", "1", "--parallel", "1", "--queue", "0")
        p = self.page(server)
        # Another client holds the only slot with a long streamed request.
        conn, r = post(server, "/v1/chat/completions",
                       {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2000, "stream": True},
                       stream=True)
        self.addCleanup(conn.close)
        self.assertEqual(r.status, 200)
        wait_for("the slot to be taken", lambda: active_slots(server) == 1)
        p.type_and_enter("Hello")
        wait_for("the error", lambda: not p.busy() and p.messages()[-1][2])
        error = p.messages()[-1][2]
        self.assertIn("busy", error)
        self.assertIn("429", error)
        self.assertIn("Try again in 1 s", error)


class TwoModelsTest(BrowserTest):
    """`trit serve` without MODEL: the store's model and the bundled one, picked in the page."""

    def test_the_picker_switches_models(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        env = dict(os.environ, TRIT_HOME=tmp.name)
        chat = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(tmp.name, "chat.gguf"))
        subprocess.run([ARGS.trit, "pull", chat, "--name", "chat"], env=env, check=True, capture_output=True)
        server = self.serve(None, "--max-models", "1", env=env)
        p = self.page(server)
        options = p.js("return [...document.getElementById('model').options].map(o => [o.value, o.textContent])")
        self.assertEqual(options, [["chat", "chat (loads when used)"],
                                   ["stories260K", "stories260K (loads when used)"]])
        p.set_setting("seed", 3)
        p.set_setting("max-tokens", 24)
        for model in ("chat", "stories260K", "chat"):  # each switch unloads the other (--max-models 1)
            p.set_setting("model", model)
            n_before = len(p.messages())
            p.type_and_enter("Hello there")
            wait_for("the reply", lambda: len(p.messages()) == n_before + 2 and not p.busy())
            role, body, error, _ = p.messages()[-1]
            self.assertEqual((role, error), ("assistant", ""))
            # The reply is the chosen model's: the API gives it the same text.
            req = {"messages": [{"role": "user", "content": "Hello there"}], "seed": 3, "temperature": 0.8,
                   "max_tokens": 24, "model": model}
            _, _, raw = post(server, "/v1/chat/completions", req)
            self.assertEqual(json.loads(raw)["choices"][0]["message"]["content"], body, model)
            p.js("document.getElementById('new-chat').click()")
        p.open()  # the list is read again: the model last used is loaded
        self.assertIn(["chat", "chat"],
                      p.js("return [...document.getElementById('model').options].map(o => [o.value, o.textContent])"))


class ApiKeyTest(BrowserTest):
    def test_the_page_asks_for_the_key_then_works(self):
        server = self.serve(ARGS.model, "--api-key", KEY)
        # The page itself needs no key (a browser cannot send one when it opens a URL).
        status, _, _ = get(server.url + "/")
        self.assertEqual(status, 200)
        self.assertEqual(get(server.url + "/v1/models")[0], 401)
        p = Page(self.driver, server.url)
        self.driver.get(server.url + "/")
        self.driver.execute_script("localStorage.clear()")
        self.driver.refresh()
        wait_for("the key form", lambda: p.el("auth").is_displayed())
        self.assertIn("needs an API key", p.el("notice").text)
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("id"), "api-key")
        # A wrong key is refused and said so.
        p.el("api-key").send_keys("wrong")
        p.el("api-key").send_keys(p.Keys.ENTER)
        wait_for("the refusal", lambda: "refused this API key" in p.el("notice").text)
        p.el("api-key").send_keys(KEY)
        p.el("api-key").send_keys(p.Keys.ENTER)
        wait_for("the model list", lambda: p.js("return document.getElementById('model').options.length") == 1)
        self.assertFalse(p.el("auth").is_displayed())
        p.type_and_enter("Once upon a time")
        wait_for("the reply", lambda: len(p.messages()) == 2 and not p.busy())
        self.assertEqual(p.messages()[-1][2], "")
        self.assertGreater(len(p.messages()[-1][1]), 0)
        self.driver.execute_script("localStorage.clear()")


NGINX_PREFIX_SERVER = """
  server {{
    listen 127.0.0.1:{port};
    location = /trit {{ return 301 /trit/; }}
    location /trit/ {{
      proxy_pass http://127.0.0.1:{upstream}/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 300s;
    }}
  }}
"""


class NginxPrefixTest(BrowserTest):
    """The page under a path prefix behind nginx (docs/DEPLOY.md): its
    relative URLs reach the server through the proxy."""

    def test_the_page_works_under_a_path_prefix(self):
        nginx_bin = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(nginx_bin):
            self.skipTest("nginx not found (Debian package nginx-light)")
        server = self.serve(ARGS.model)
        tmp = tempfile.mkdtemp(prefix="trit-webui-nginx-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        os.chmod(tmp, 0o755)  # nginx workers may run as another user
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        conf = os.path.join(tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(nginx_conf(tmp, NGINX_PREFIX_SERVER.format(port=port, upstream=server.port)))
        nginx = subprocess.Popen([nginx_bin, "-e", os.path.join(tmp, "error.log"), "-p", tmp, "-c", conf,
                                  "-g", "daemon off;"])
        self.addCleanup(nginx.wait, 10)
        self.addCleanup(nginx.terminate)
        url = f"http://127.0.0.1:{port}/trit"
        def up():
            try:
                return get(url + "/health")[0] == 200
            except OSError:
                return nginx.poll() is not None  # exited: fail below, not after the timeout

        wait_for("nginx", up, timeout=20)
        self.assertIsNone(nginx.poll(), "nginx exited: " + open(os.path.join(tmp, "error.log")).read())
        p = Page(self.driver, url)
        p.open()
        p.reset_storage()
        self.addCleanup(lambda: self.driver.execute_script("localStorage.clear()"))
        p.type_and_enter("Once upon a time")
        wait_for("the reply", lambda: len(p.messages()) == 2 and not p.busy())
        self.assertEqual(p.messages()[-1][2], "")
        self.assertRegex(p.messages()[-1][3], r"tokens/s")
        # Every request the page made went through the prefix.
        urls = p.js("return performance.getEntriesByType('resource').map(e => e.name)")
        self.assertTrue(urls)
        for u in urls:
            self.assertTrue(u.startswith(url + "/"), u)


class PageHeadersTest(unittest.TestCase):
    """What the server sends with the page, and --no-webui."""

    def test_headers_and_no_webui(self):
        server = TritServer(ARGS.trit, ARGS.model)
        self.addCleanup(server.stop)
        server.wait_healthy()
        status, headers, body = get(server.url + "/")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "text/html; charset=utf-8")
        csp = headers["Content-Security-Policy"]
        for directive in ("default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"):
            self.assertIn(directive, csp)
        self.assertNotIn("unsafe-inline", csp)
        self.assertEqual(headers["X-Content-Type-Options"], "nosniff")
        self.assertIn(b'src="webui/app.js"', body)
        status, headers, _ = get(server.url + "/webui/app.js")
        self.assertEqual((status, headers["Content-Type"]), (200, "text/javascript; charset=utf-8"))
        status, _, body = get(server.url + "/webui/missing.js")
        self.assertEqual(status, 404)
        self.assertIn("missing.js", json.loads(body)["error"]["message"])
        off = TritServer(ARGS.trit, ARGS.model, "--no-webui")
        self.addCleanup(off.stop)
        off.wait_healthy()
        self.assertEqual(get(off.url + "/")[0], 404)
        self.assertEqual(get(off.url + "/webui/app.js")[0], 404)
        self.assertEqual(get(off.url + "/v1/models")[0], 200)


def browser_missing():
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.path.exists(path):
            return f"{path} not found (Debian package {package})"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "Selenium is not installed (tests/python/requirements.txt)"
    return None


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--trit", required=True)
    p.add_argument("--model", required=True, help="the bundled model (models/stories260K.gguf)")
    p.add_argument("--make-model", required=True)
    p.add_argument("--vocab", required=True)
    p.add_argument("--template", required=True)
    p.add_argument("--screenshots", default=os.path.join(tempfile.gettempdir(), "trit-webui-screenshots"))
    ARGS, rest = p.parse_known_args()
    missing = browser_missing()
    if missing:
        print(f"SKIP: {missing}")
        sys.exit(77)
    shutil.rmtree(ARGS.screenshots, ignore_errors=True)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
