#!/usr/bin/python3
"""A loopback HTTP server for Pepper's list-update tests.

    list_server.py DIR

Serves the routes described in DIR/routes.json (re-read on every request, so a test changes
what is served by rewriting it) and appends one JSON line per request to DIR/requests.log.
Prints the port it listens on (127.0.0.1 only), then serves until killed.

A route: {"body": "...", or "body_file": "name in DIR",
          "status": 200, "content_type": "text/plain", "headers": {...},
          "etag": true,                 # ETag from the body; If-None-Match answered with 304
          "last_modified": "...",       # Last-Modified; If-Modified-Since answered with 304
          "delay": 0.0,                 # seconds before answering
          "chunk_delay": 0.0,           # seconds between 1 KiB chunks of the body
          "truncate": false,            # announce the full length, send half, close
          "size": 0}                    # serve this many bytes of repeated body (huge bodies)
"""

import hashlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIRECTORY = sys.argv[1]
LOG_LOCK = threading.Lock()


def load_routes():
    with open(os.path.join(DIRECTORY, "routes.json")) as handle:
        return json.load(handle)


def log(entry):
    line = (json.dumps(entry) + "\n").encode()
    with LOG_LOCK:
        descriptor = os.open(os.path.join(DIRECTORY, "requests.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, line)  # one write per line: lines never interleave
        finally:
            os.close(descriptor)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path, _, query = self.path.partition("?")
        log({"path": path, "query": query or None, "if_none_match": self.headers.get("If-None-Match"),
             "if_modified_since": self.headers.get("If-Modified-Since")})
        route = load_routes().get(path)
        if route is None:
            self.send_simple(404, b"not found")
            return
        if route.get("delay"):
            time.sleep(route["delay"])
        if "body_file" in route:
            with open(os.path.join(DIRECTORY, route["body_file"]), "rb") as handle:
                body = handle.read()
        else:
            body = route.get("body", "").encode()
        size = route.get("size", 0)
        status = route.get("status", 200)
        etag = '"%s"' % hashlib.sha1(body).hexdigest()[:16] if route.get("etag") else None
        last_modified = route.get("last_modified")
        if status == 200 and etag and self.headers.get("If-None-Match") == etag:
            self.send_simple(304, b"", extra={"ETag": etag})
            return
        if status == 200 and last_modified and self.headers.get("If-Modified-Since") == last_modified:
            self.send_simple(304, b"", extra={"Last-Modified": last_modified})
            return
        length = size if size else len(body)
        self.send_response(status)
        self.send_header("Content-Type", route.get("content_type", "text/plain; charset=utf-8"))
        self.send_header("Content-Length", str(length))
        if etag:
            self.send_header("ETag", etag)
        if last_modified:
            self.send_header("Last-Modified", last_modified)
        for name, value in route.get("headers", {}).items():
            self.send_header(name, value)
        self.end_headers()
        try:
            if size:
                chunk = (body or b"x") * (65536 // max(1, len(body)) + 1)
                sent = 0
                while sent < size:
                    part = chunk[: min(len(chunk), size - sent)]
                    self.wfile.write(part)
                    sent += len(part)
                return
            if route.get("truncate"):
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            delay = route.get("chunk_delay", 0)
            for start in range(0, len(body), 1024):
                self.wfile.write(body[start:start + 1024])
                self.wfile.flush()
                if delay:
                    time.sleep(delay)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def send_simple(self, status, body, extra=None):
        self.send_response(status)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
