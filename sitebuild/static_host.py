"""A static host behind one slow link, for ``python build.py bench --link``: it serves a
built site the way GitHub Pages does (gzip Content-Encoding made on the fly for compressible
types, an ``ETag``, ``Cache-Control: max-age=600``, 304 to a matching ``If-None-Match``)
and sends every byte through one paced link that all connections share (a token bucket
at the link's rate, and its round-trip time before each response).

Standard library only. ``hosting(root, link)`` serves from a thread and yields the server,
whose ``traffic`` records what crossed the link.
"""

from __future__ import annotations

import contextlib
import email.utils
import gzip
import hashlib
import http.server
import os
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from .server import MIME_TYPES

# What GitHub Pages compresses (its text types and wasm); an archive or a .gz is sent as it is.
COMPRESSIBLE = {".html", ".htm", ".js", ".mjs", ".css", ".json", ".map", ".wasm", ".svg", ".txt", ".md",
                ".webmanifest", ".ico"}
MAX_AGE_S = 600
CHUNK = 16 * 1024  # what one turn on the link sends


@dataclass(frozen=True)
class LinkSpeed:
    """A link: ``mbit`` megabits per second (None: unpaced, loopback) and ``rtt_ms`` of
    latency before each response.

    >>> LinkSpeed.parse("10,40"), LinkSpeed.parse("2").rtt_ms, LinkSpeed.parse("loopback").label
    (LinkSpeed(mbit=10.0, rtt_ms=40.0), 0.0, 'loopback')
    """

    mbit: float | None
    rtt_ms: float = 0.0

    @classmethod
    def parse(cls, text: str) -> "LinkSpeed":
        if text.strip().lower() in ("loopback", "0"):
            return cls(None, 0.0)
        rate, _, rtt = text.partition(",")
        try:
            speed = cls(float(rate), float(rtt) if rtt else 0.0)
        except ValueError:
            raise ValueError(f"--link takes MBIT[,RTT_MS] or loopback, not {text!r}") from None
        if not speed.mbit > 0 or speed.rtt_ms < 0:
            raise ValueError(f"--link {text}: the rate must be above 0 Mbit/s and the RTT at least 0 ms")
        return speed

    @property
    def label(self) -> str:
        if self.mbit is None:
            return "loopback"
        return f"{self.mbit:g} Mbit/s + {self.rtt_ms:g} ms"


class Link:
    """One link shared by every connection: each chunk waits for its turn, so N downloads
    at once share the rate, as they do on a real line."""

    def __init__(self, speed: LinkSpeed):
        self.speed = speed
        self.rate = None if speed.mbit is None else speed.mbit * 1e6 / 8  # bytes per second
        self.lock = threading.Lock()
        self.free_at = 0.0

    def send(self, write, data: bytes) -> None:
        for start in range(0, len(data), CHUNK):
            chunk = data[start:start + CHUNK]
            if self.rate is not None:
                with self.lock:
                    begin = max(time.monotonic(), self.free_at)
                    self.free_at = begin + len(chunk) / self.rate
                    done = self.free_at
                delay = done - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            write(chunk)

    def wait_rtt(self) -> None:
        if self.speed.rtt_ms:
            time.sleep(self.speed.rtt_ms / 1000)


@dataclass
class Crossing:
    """One response that crossed the link: its path, status and the bytes of its body as
    sent (compressed when it was)."""

    path: str
    status: int
    bytes: int
    encoding: str = ""
    at: float = field(default_factory=time.monotonic)


class Traffic:
    """What crossed the link, and when it last carried a byte."""

    def __init__(self):
        self.lock = threading.Lock()
        self.crossings: list[Crossing] = []
        self.active = 0
        self.last = time.monotonic()

    def begin(self):
        with self.lock:
            self.active += 1
            self.last = time.monotonic()

    def end(self, crossing: Crossing):
        with self.lock:
            self.active -= 1
            self.crossings.append(crossing)
            self.last = time.monotonic()

    def mark(self) -> int:
        with self.lock:
            return len(self.crossings)

    def since(self, mark: int) -> list:
        with self.lock:
            return self.crossings[mark:]

    def quiet_for(self) -> float:
        """Seconds since the link last carried anything (0 while a response is being sent)."""
        with self.lock:
            return 0.0 if self.active else time.monotonic() - self.last


class _Body:
    """A file's bytes, ETag and gzipped bytes, read once per (size, mtime)."""

    def __init__(self, data: bytes, compress: bool):
        self.data = data
        self.etag = '"' + hashlib.sha256(data).hexdigest()[:20] + '"'
        self.gzipped = gzip.compress(data, compresslevel=6, mtime=0) if compress else None


class HostHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "HostServer"

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.answer(head=True)

    def do_GET(self):
        self.answer(head=False)

    def answer(self, head: bool):
        host = self.server
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        body, ext = host.body(path)
        host.traffic.begin()
        status, sent, encoding = 404, b"", ""
        try:
            host.link.wait_rtt()
            if body is None:
                sent = b"Not found\n"
                self.send_response(404)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(sent)))
                self.send_header("Cache-Control", f"max-age={MAX_AGE_S}")
                self.end_headers()
            elif self.headers.get("If-None-Match") == body.etag:
                status = 304
                self.send_response(304)
                self.send_header("ETag", body.etag)
                self.send_header("Cache-Control", f"max-age={MAX_AGE_S}")
                self.end_headers()
            else:
                status = 200
                gzip_ok = "gzip" in self.headers.get("Accept-Encoding", "")
                sent, encoding = (body.gzipped, "gzip") if body.gzipped is not None and gzip_ok else (body.data, "")
                self.send_response(200)
                self.send_header("Content-Type", host.mime.get(ext) or MIME_TYPES.get(ext, "application/octet-stream"))
                self.send_header("Content-Length", str(len(sent)))
                if encoding:
                    self.send_header("Content-Encoding", encoding)
                self.send_header("Vary", "Accept-Encoding")
                self.send_header("ETag", body.etag)
                self.send_header("Cache-Control", f"max-age={MAX_AGE_S}")
                self.send_header("Last-Modified", email.utils.formatdate(usegmt=True))
                self.end_headers()
            self.wfile.flush()
            if not head:
                host.link.send(self.wfile.write, sent)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            host.traffic.end(Crossing(path, status, 0 if head else len(sent), encoding))


class HostServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root: Path, speed: LinkSpeed, pages: dict | None = None, mime: dict | None = None,
                 gzip: bool = True):
        super().__init__(("127.0.0.1", 0), HostHandler)
        self.gzip = gzip  # False: every file as it is, as a host without compression sends it
        self.root = Path(root).resolve()
        self.link = Link(speed)
        self.traffic = Traffic()
        self.pages = dict(pages or {})  # URL path -> bytes, served like files
        self.mime = dict(mime or {})  # extension -> Content-Type, in place of MIME_TYPES'
        self.bodies: dict = {}
        self.bodies_lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def body(self, path: str):
        """(_Body or None, extension) for a URL path."""
        if path.endswith("/"):
            path += "index.html"
        ext = os.path.splitext(path)[1].lower()
        if path in self.pages:
            key, read = ("page", path), lambda: self.pages[path]
        else:
            file = (self.root / path.lstrip("/")).resolve()
            if self.root not in file.parents or not file.is_file():
                return None, ext
            stat = file.stat()
            key, read = (str(file), stat.st_size, stat.st_mtime_ns), file.read_bytes
        with self.bodies_lock:
            if key not in self.bodies:
                self.bodies[key] = _Body(read(), self.gzip and ext in COMPRESSIBLE)
            return self.bodies[key], ext


@contextlib.contextmanager
def hosting(root, speed: LinkSpeed, pages: dict | None = None, mime: dict | None = None, gzip: bool = True):
    """Serve ``root`` (plus ``pages``: URL path -> bytes) through one link of ``speed`` from
    a background thread; yields the HostServer (``.url``, ``.traffic``). ``mime`` overrides
    the Content-Type of an extension (a host that sends .wasm as application/octet-stream);
    ``gzip=False`` sends every file uncompressed, as a host without compression does.

    >>> with hosting(".", LinkSpeed(None), pages={"/a.txt": b"hi"}) as host:
    ...     import urllib.request
    ...     urllib.request.urlopen(host.url + "a.txt").read()
    b'hi'
    """
    server = HostServer(root, speed, pages, mime, gzip)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
