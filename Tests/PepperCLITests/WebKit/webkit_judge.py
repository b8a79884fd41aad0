#!/usr/bin/python3
"""Real WebKit (WebKitGTK 4.1) as the judge of Pepper's content-blocker output.

Two commands, both printing one JSON document on stdout:

  webkit_judge.py compile FILE...
      Compiles each WebKit rule-list JSON file with WebKit's own content-rule compiler
      (WebKit2.UserContentFilterStore) and reports, per file, whether WebKit accepted it,
      its error message and the seconds it took. Needs no display.

  webkit_judge.py browse SCENARIO.json
      Loads the rule lists named in the scenario into a WebView, serves the scenario's sites
      through a local logging proxy (so any host name works without /etc/hosts), visits each
      page, and reports which URLs the browser actually requested and, for each CSS selector
      to check, whether matching elements are displayed. Starts its own Xvfb when DISPLAY is
      not set.

  webkit_judge.py selectors FILE...
      Evaluates every css-display-none selector of the rule lists with document.querySelectorAll
      in a WebView and reports the selectors WebKit's CSS parser rejects (WebKit silently drops a
      hiding rule whose selector does not parse).

Scenario format:
  {"rules": ["blocker-1.json", ...],           # rule lists to load (may be empty)
   "sites": {"http://host/path": {"body": "...", "type": "text/html"}, ...},
   "visits": [{"url": "http://host/path", "checks": ["#ad", ".banner"]}, ...],
   "settle_ms": 600}

Result of browse:
  {"requests": ["http://...", ...],             # every URL the proxy served or refused
   "visits": [{"url": ..., "elements": {"#ad": {"found": 1, "visible": 0}}, "error": null}]}
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import gi

gi.require_version("WebKit2", "4.1")
gi.require_version("Gtk", "3.0")
# WebKit2 is imported inside the commands: importing it loads GTK, which must see DISPLAY first.


def compile_files(paths):
    from gi.repository import GLib, WebKit2

    store_dir = tempfile.mkdtemp(prefix="pepper-webkit-store-")
    store = WebKit2.UserContentFilterStore.new(store_dir)
    loop = GLib.MainLoop()
    results = []
    # A first, tiny compile so that the timings below exclude WebKit's one-time start-up.
    warm_up = b'[{"trigger":{"url-filter":"warm-up"},"action":{"type":"block"}}]'
    store.save("warm-up", GLib.Bytes.new(warm_up), None, lambda source, result, _data: (source.save_finish(result), loop.quit()), None)
    loop.run()
    try:
        for index, path in enumerate(paths):
            with open(path, "rb") as handle:
                data = handle.read()
            outcome = {}

            def done(source, result, _data, outcome=outcome):
                try:
                    source.save_finish(result)
                    outcome["ok"] = True
                    outcome["error"] = None
                except GLib.Error as error:
                    outcome["ok"] = False
                    outcome["error"] = error.message
                loop.quit()

            started = time.monotonic()
            store.save("list-%d" % index, GLib.Bytes.new(data), None, done, None)
            loop.run()
            outcome["seconds"] = round(time.monotonic() - started, 4)
            outcome["file"] = path
            results.append(outcome)
    finally:
        shutil.rmtree(store_dir, ignore_errors=True)
    return results


class ProxyLog:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []

    def add(self, url):
        with self.lock:
            self.requests.append(url)


def make_proxy(sites, log):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def handle_any(self, with_body=True):
            url = self.path
            if not url.startswith("http"):
                host = self.headers.get("Host", "localhost")
                url = "http://%s%s" % (host, url)
            log.add(url)
            site = sites.get(url) or sites.get(url.split("?", 1)[0])
            if site is None:
                body = b"not found"
                self.send_response(404)
                self.send_header("Content-Type", "text/plain")
            else:
                body = site.get("body", "").encode("utf-8")
                self.send_response(site.get("status", 200))
                self.send_header("Content-Type", site.get("type", "text/html; charset=utf-8"))
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def do_GET(self):
            self.handle_any()

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0") or "0")
            if length:
                self.rfile.read(length)
            self.handle_any()

        def do_HEAD(self):
            self.handle_any(with_body=False)

        def do_CONNECT(self):
            log.add("CONNECT " + self.path)
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def die_with_parent():
    """In the child before exec: no signal blocked (a child inherits the blocked set, and the
    test process that started this judge blocks SIGTERM on its threads, so `terminate()` did
    nothing), and SIGTERM when this judge ends, however it ends (an error, or the test killing
    it on a timeout), so no Xvfb outlives the run."""
    import ctypes

    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def ensure_display():
    if os.environ.get("DISPLAY"):
        return None
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise SystemExit("no DISPLAY and no Xvfb: install xvfb (the test command does)")
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen(
        [xvfb, "-displayfd", str(write_fd), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent,
    )
    os.close(write_fd)
    number = b""
    with os.fdopen(read_fd, "rb") as reader:
        while not number.endswith(b"\n"):
            chunk = reader.read(1)
            if not chunk:
                break
            number += chunk
    os.environ["DISPLAY"] = ":" + number.decode().strip()
    return process


def browse(scenario):
    xvfb = ensure_display()
    from gi.repository import GLib, Gtk, WebKit2

    Gtk.init(None)
    log = ProxyLog()
    proxy = make_proxy(scenario.get("sites", {}), log)
    port = proxy.server_address[1]
    loop = GLib.MainLoop()
    settle_ms = int(scenario.get("settle_ms", 600))

    data_manager = WebKit2.WebsiteDataManager.new_ephemeral()
    data_manager.set_network_proxy_settings(
        WebKit2.NetworkProxyMode.CUSTOM, WebKit2.NetworkProxySettings.new("http://127.0.0.1:%d" % port, [])
    )
    context = WebKit2.WebContext.new_with_website_data_manager(data_manager)
    context.set_cache_model(WebKit2.CacheModel.DOCUMENT_VIEWER)
    manager = WebKit2.UserContentManager()

    store_dir = tempfile.mkdtemp(prefix="pepper-webkit-store-")
    store = WebKit2.UserContentFilterStore.new(store_dir)
    for index, path in enumerate(scenario.get("rules", [])):
        with open(path, "rb") as handle:
            data = handle.read()
        holder = {}

        def saved(source, result, _data, holder=holder):
            try:
                holder["filter"] = source.save_finish(result)
            except GLib.Error as error:
                holder["error"] = error.message
            loop.quit()

        store.save("list-%d" % index, GLib.Bytes.new(data), None, saved, None)
        loop.run()
        if "error" in holder:
            raise SystemExit("WebKit rejected %s: %s" % (path, holder["error"]))
        manager.add_filter(holder["filter"])

    view = WebKit2.WebView(web_context=context, user_content_manager=manager)
    settings = view.get_settings()
    settings.set_enable_javascript(True)
    settings.set_javascript_can_open_windows_automatically(True)
    window = Gtk.Window()
    window.set_default_size(1024, 768)
    window.add(view)
    window.show_all()

    visits = []
    for visit in scenario.get("visits", []):
        state = {"error": None, "finished": False}

        def changed(_view, event, state=state):
            if event == WebKit2.LoadEvent.FINISHED and not state["finished"]:
                state["finished"] = True
                GLib.timeout_add(settle_ms, lambda: (loop.quit(), False)[1])

        def failed(_view, _event, uri, error, state=state):
            state["error"] = "%s: %s" % (uri, error.message)
            return False

        handlers = [view.connect("load-changed", changed), view.connect("load-failed", failed)]
        timer = {"fired": False}

        def timed_out(timer=timer):
            timer["fired"] = True
            loop.quit()
            return False

        # A pending timeout must not outlive its visit: it would cut a later visit short.
        timeout = GLib.timeout_add(20000, timed_out)
        view.load_uri(visit["url"])
        loop.run()
        if not timer["fired"]:
            GLib.source_remove(timeout)
        for handler in handlers:
            view.disconnect(handler)

        elements = {}
        checks = visit.get("checks", [])
        if checks:
            script = """
              (function(selectors) {
                var out = {};
                selectors.forEach(function(s) {
                  var nodes = document.querySelectorAll(s), visible = 0;
                  nodes.forEach(function(n) { if (getComputedStyle(n).display !== 'none') visible++; });
                  out[s] = {found: nodes.length, visible: visible};
                });
                return JSON.stringify(out);
              })(%s)
            """ % json.dumps(checks)
            holder = {}

            def evaluated(source, result, _data, holder=holder):
                try:
                    holder["value"] = source.evaluate_javascript_finish(result).to_string()
                except GLib.Error as error:
                    holder["error"] = error.message
                loop.quit()

            view.evaluate_javascript(script, -1, None, None, None, evaluated, None)
            loop.run()
            if "value" in holder:
                elements = json.loads(holder["value"])
            else:
                state["error"] = "script failed: %s" % holder.get("error")
        visits.append({"url": visit["url"], "elements": elements, "error": state["error"], "finished": state["finished"]})

    window.destroy()
    proxy.shutdown()
    shutil.rmtree(store_dir, ignore_errors=True)
    if xvfb is not None:
        xvfb.terminate()
    return {"requests": list(log.requests), "visits": visits}


def check_selectors(paths):
    selectors = []
    for path in paths:
        with open(path) as handle:
            for rule in json.load(handle):
                if rule["action"]["type"] == "css-display-none":
                    selectors.append(rule["action"]["selector"])
    scenario_page = "<html><body><div id=x></div></body></html>"
    result = browse_with_script(
        scenario_page,
        """
          (function(selectors) {
            var bad = [];
            selectors.forEach(function(s) { try { document.querySelectorAll(s); } catch (e) { bad.push(s); } });
            return JSON.stringify(bad);
          })(%s)
        """ % json.dumps(selectors),
    )
    return {"checked": len(selectors), "rejected": json.loads(result)}


def browse_with_script(page, script):
    xvfb = ensure_display()
    from gi.repository import GLib, Gtk, WebKit2

    Gtk.init(None)
    loop = GLib.MainLoop()
    view = WebKit2.WebView()
    window = Gtk.Window()
    window.add(view)
    window.show_all()
    view.connect("load-changed", lambda _v, event: loop.quit() if event == WebKit2.LoadEvent.FINISHED else None)
    view.load_html(page, "http://selectors.test/")
    loop.run()
    holder = {}

    def evaluated(source, result, _data):
        try:
            holder["value"] = source.evaluate_javascript_finish(result).to_string()
        except GLib.Error as error:
            holder["error"] = error.message
        loop.quit()

    view.evaluate_javascript(script, -1, None, None, None, evaluated, None)
    loop.run()
    window.destroy()
    if xvfb is not None:
        xvfb.terminate()
    if "error" in holder:
        raise SystemExit("script failed: %s" % holder["error"])
    return holder["value"]


def main(argv):
    if len(argv) < 2 or argv[1] not in ("compile", "browse", "selectors"):
        sys.stderr.write(__doc__)
        return 64
    if argv[1] == "compile":
        json.dump(compile_files(argv[2:]), sys.stdout)
    elif argv[1] == "selectors":
        json.dump(check_selectors(argv[2:]), sys.stdout)
    else:
        with open(argv[2]) as handle:
            scenario = json.load(handle)
        json.dump(browse(scenario), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
