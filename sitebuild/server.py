#!/usr/bin/env python3
"""Serve a built poolgrad site: correct MIME types (``.wasm`` as application/wasm), the
cache rules of its ``_headers`` file, a quiet request log for tests.

Standard library only (Python 3.8+), and self-contained: ``python build.py bundle`` copies
this file whole into the offline demo as ``serve.py``, where ``python serve.py`` (``py
serve.py`` on Windows) serves the ``site/`` folder beside it and opens it in the browser.
Options: --port N (default 8000; if that port is taken and no --port was given, a free one
is used), --host H (default 127.0.0.1; 0.0.0.0 for a classroom: the machine's own network
addresses are printed), --no-browser.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import http.server
import mimetypes
import os
import re
import socket
import sys
import urllib.parse
from pathlib import Path

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".gz": "application/gzip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
}


class RequestRecord(str):
    """One served request: the string is the request path; ``method``, ``host`` (the Host
    header), ``client`` (the peer's address) and ``status`` are attributes."""

    method = host = client = ""
    status = 0


def read_header_rules(root):
    r"""The rules of ``root``/_headers (the format Netlify and Cloudflare Pages read, which
    build.py writes): a list of (path pattern, [(name, value), ...]); [] without the file.

    >>> import tempfile; folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, "_headers"), "w").write("# c\n/app/*\n  Cache-Control: immutable\n")
    >>> read_header_rules(folder)
    [('/app/*', [('Cache-Control', 'immutable')])]
    """
    try:
        with open(os.path.join(root, "_headers"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    rules = []
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            rules.append((line.strip(), []))
        elif rules and ":" in line:
            name, value = line.split(":", 1)
            rules[-1][1].append((name.strip(), value.strip()))
    return rules


def headers_for(rules, url_path):
    """The headers the rules give ``url_path`` (its query ignored): every matching rule
    applies, ``*`` matches anything, and a header set by several is joined with ", ", as
    Netlify and Cloudflare Pages do.

    >>> headers_for([("/", [("Cache-Control", "no-cache")]), ("/app/*", [("Cache-Control", "x")])], "/app/1/a.js?v")
    [('Cache-Control', 'x')]
    """
    path = urllib.parse.unquote(url_path.split("?", 1)[0].split("#", 1)[0])
    chosen = {}
    for pattern, headers in rules:
        if re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), path):
            for name, value in headers:
                key = name.lower()
                chosen[key] = (name, f"{chosen[key][1]}, {value}" if key in chosen else value)
    return list(chosen.values())


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a built site with its MIME types and the cache rules of its _headers file
    (no-cache for a file no rule covers)."""

    request_log = None  # a list, or None to log each request to stderr
    use_site_headers = True  # False: send no _headers rules and no Cache-Control of its own

    def guess_type(self, path):
        ext = os.path.splitext(str(path))[1].lower()
        if ext in MIME_TYPES:
            return MIME_TYPES[ext]
        return mimetypes.guess_type(str(path))[0] or "application/octet-stream"

    def site_headers(self):
        """The headers the site's rules give this request (Content-Type comes from
        MIME_TYPES, which agrees with the rules' wasm type)."""
        if not self.use_site_headers:
            return []
        chosen = [(n, v) for n, v in headers_for(read_header_rules(self.directory), self.path)
                  if n.lower() != "content-type"]
        if not any(n.lower() == "cache-control" for n, _ in chosen):
            chosen.append(("Cache-Control", "no-cache"))
        return chosen

    def send_head(self):
        # A 304 from a file's date is safe only for a content-hashed file: a fixed name
        # (index.html, sw.js) may be replaced by a newer build with an older or equal date
        # (a copied folder), and a 304 would then keep the old build.
        self._request_headers = self.site_headers()  # end_headers sends them: _headers read once
        immutable = any("immutable" in v for n, v in self._request_headers if n.lower() == "cache-control")
        if not immutable and "If-Modified-Since" in self.headers:
            del self.headers["If-Modified-Since"]
        return super().send_head()

    def send_response(self, code, message=None):
        self._status = code
        super().send_response(code, message)

    def end_headers(self):
        # Popped, so the next request on a kept-alive connection reads its own; a response
        # sent without send_head (an error for an unsupported method) reads them here.
        headers = self.__dict__.pop("_request_headers", None)
        headers = self.site_headers() if headers is None else headers
        if self.__dict__.pop("_status", 200) >= 400 and self.use_site_headers:
            # An error is never cached: the rules' year-long "immutable" would replay a file
            # missing for a moment (a deploy caught halfway) to every later try.
            headers = [(n, v) for n, v in headers if n.lower() != "cache-control"] + [("Cache-Control", "no-store")]
        for name, value in headers:
            self.send_header(name, value)
        super().end_headers()

    def log_request(self, code="-", size="-"):
        if self.request_log is not None:
            rec = RequestRecord(self.path)
            rec.method = self.command or ""
            rec.host = self.headers.get("Host", "") if self.headers else ""
            rec.client = self.client_address[0]
            rec.status = int(code) if isinstance(code, int) or str(code).isdigit() else 0
            self.request_log.append(rec)
        else:
            super().log_request(code, size)

    def log_message(self, format, *args):
        if self.request_log is None:
            super().log_message(format, *args)


class SiteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    quiet = False

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)) or self.quiet:
            return
        print(f"error while serving {client_address[0]}: {exc!r}", file=sys.stderr)


def make_server(root, host="127.0.0.1", port=0, request_log=None, site_headers=True):
    """A ThreadingHTTPServer for the static site in ``root`` with correct MIME types.

    ``port=0`` picks a free port (read it from ``server.server_address``). When
    ``request_log`` is a list, each request is appended to it as a RequestRecord (a str:
    the path, with .method/.host/.client/.status) and nothing is printed per request.
    ``site_headers=False`` serves as a plain file host does (GitHub Pages reads no
    ``_headers``): no rules of ``_headers``, no Cache-Control, only the MIME types.
    Raises OSError (errno EADDRINUSE) when the port is taken.
    """
    handler = type("Handler", (SiteHandler,), {"request_log": request_log, "use_site_headers": site_headers})
    server = SiteServer((host, port), functools.partial(handler, directory=str(root)))
    server.quiet = request_log is not None
    return server


#: A documentation address (RFC 5737): connecting a UDP socket to it only asks the system
#: which local address its route leaves from; no packet is sent.
ROUTE_PROBE = ("192.0.2.1", 9)
EVERY_INTERFACE = "0.0.0.0"


def server_url(server):
    """The URL to open on this machine: a server on every interface is reached at
    127.0.0.1, never at 0.0.0.0, which names no machine."""
    host, port = server.server_address[:2]
    return f"http://{'127.0.0.1' if host == EVERY_INTERFACE else host}:{port}/"


def lan_address(sockets=socket):
    """This machine's address on its network (the one its default route leaves from),
    found without sending anything; None when it has no network.

    >>> address = lan_address()
    >>> address is None or not address.startswith("127.")
    True
    """
    try:
        with sockets.socket(sockets.AF_INET, sockets.SOCK_DGRAM) as probe:
            probe.connect(ROUTE_PROBE)
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") or address == EVERY_INTERFACE else address


def announce(server):
    """What to print when the server starts: where to open it, and, when it listens on
    every interface, the addresses students type and what a plain-http visit cannot do."""
    lines = [f"open {server_url(server)}  (Ctrl-C to stop)"]
    host, port = server.server_address[:2]
    if host == EVERY_INTERFACE:
        address = lan_address()
        if address:
            lines.append(f"on the same network, students open: http://{address}:{port}/")
        else:
            lines.append("no network address found: connect this machine to the class's network "
                         "(its address: ipconfig on Windows, ip addr or ifconfig elsewhere)")
        lines.append("over plain http from another machine the page is not a secure context: no "
                     "service worker, so keep this server running while the class works "
                     "(docs/classroom.md)")
    elif host not in ("127.0.0.1", "::1", "localhost"):
        lines.append(f"listening on {host} only")
    return lines


@contextlib.contextmanager
def serving(root, request_log=None):
    """Serve the site in ``root`` on a free local port from a background thread; yields its
    URL and stops and closes the server on leaving (``make_server`` says what
    ``request_log`` does).

    >>> with serving(".", request_log=[]) as url:
    ...     url.startswith("http://127.0.0.1:")
    True
    """
    import threading

    server = make_server(root, request_log=request_log)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server_url(server)
    finally:
        server.shutdown()
        server.server_close()


def run_server(server):
    """Serve until Ctrl-C, then close cleanly."""
    import signal
    import threading

    def _stop(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _stop)
    print("\n".join(announce(server)), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped", flush=True)
    finally:
        server.server_close()
    return 0


def port_in_use_message(host, port):
    return (f"port {port} on {host} is in use: stop what is using it, or pick another "
            f"port with --port N (--port 0 picks a free one)")


def can_open_a_browser(environ=os.environ, platform=sys.platform):
    """Whether opening a browser shows one: on Windows and macOS, or where a display (or
    $BROWSER) is set. Elsewhere Python's webbrowser would start a text browser in the
    terminal the server prints to.

    >>> can_open_a_browser({}, "win32"), can_open_a_browser({}, "linux")
    (True, False)
    >>> can_open_a_browser({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    True
    """
    if platform == "win32" or platform == "darwin":
        return True
    return any(environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"))


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="Serve the poolgrad widget offline.")
    ap.add_argument("--port", type=int, default=None)
    ap.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (0.0.0.0: every interface, for a classroom)")
    ap.add_argument("--no-browser", action="store_true", help="do not open the page in a browser")
    args = ap.parse_args(argv)
    site = Path(__file__).resolve().parent / "site"  # the offline bundle's layout
    if not (site / "index.html").is_file():
        print(f"error: {site / 'index.html'} not found: unzip the whole archive first", file=sys.stderr)
        return 1
    try:
        server = make_server(site, args.host, 8000 if args.port is None else args.port)
    except OSError as e:
        if e.errno != errno.EADDRINUSE:
            print(f"error: cannot listen on {args.host}: {e.strerror}", file=sys.stderr)
            return 1
        if args.port is not None:
            print("error: " + port_in_use_message(args.host, args.port), file=sys.stderr)
            return 1
        server = make_server(site, args.host, 0)
    if not args.no_browser and can_open_a_browser():
        import threading
        import webbrowser

        # From a thread: a slow browser start must not delay the first request.
        threading.Thread(target=webbrowser.open, args=(server_url(server),), daemon=True).start()
    return run_server(server)


if __name__ == "__main__":
    sys.exit(main())
