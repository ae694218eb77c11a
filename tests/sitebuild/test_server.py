"""sitebuild/server.py: MIME types, the request log, the port, and the caching headers."""

from __future__ import annotations

import http.client
import socket
import threading
import urllib.error
import urllib.request

import pytest

import sitebuild as B  # on the path through tests/conftest.py
from built_site import FIXED_NAMES, build_info, http_get, published_files


@pytest.mark.parametrize("path, ctype", [
    ("/pyodide/pyodide.asm.wasm", "application/wasm"),
    ("/pyodide/pyodide.mjs", "text/javascript"),
    ("/app.mjs", "text/javascript"),
    ("/worker.js", "text/javascript"),
    ("/build-info.json", "application/json"),
    ("/style.css", "text/css"),
    ("/icon.svg", "image/svg+xml"),
    ("/pyodide/python_stdlib.zip", "application/zip"),
    ("/wheels/poolgrad-0.1.0-py3-none-any.whl", "application/zip"),
    ("/pyodide/snapshot.bin.gz", "application/gzip"),
    ("/", "text/html"),
    ("/index.html", "text/html"),
])
def test_server_sends_the_right_mime_type(server, path, ctype):
    base, _ = server
    with urllib.request.urlopen(base + path, timeout=10) as r:
        status, got = r.status, r.headers.get("Content-Type")
        # The worker gunzips the snapshot itself: the server must not label it gzip-encoded.
        assert r.headers.get("Content-Encoding") is None
    assert status == 200
    assert got.split(";")[0].strip() == ctype


def test_every_kind_of_file_the_site_ships_has_a_served_type(dist):
    # Every suffix in the built site must be in the server's table, so none of its files
    # goes out as application/octet-stream (a .wasm served so makes Pyodide's boot hang).
    shipped = {p.suffix for p in dist.rglob("*") if p.is_file() and p.suffix}
    assert shipped, "the built site is empty"
    unknown = sorted(suffix for suffix in shipped if suffix not in B.MIME_TYPES)
    assert not unknown, f"files with these suffixes would be served without a type: {unknown}"


def test_server_listens_on_loopback_by_default(site):
    srv = B.make_server(site, request_log=[])
    try:
        assert srv.server_address[0] == "127.0.0.1" and srv.server_address[1] > 0
    finally:
        srv.server_close()


def test_request_log_records_every_request_and_nothing_is_printed(server, capfd):
    base, log = server
    http_get(base + "/index.html")
    http_get(base + "/pyodide/pyodide.asm.wasm?v=1")
    with pytest.raises(urllib.error.HTTPError):
        http_get(base + "/missing.js")
    assert log == ["/index.html", "/pyodide/pyodide.asm.wasm?v=1", "/missing.js"]
    assert [r.status for r in log] == [200, 200, 404]
    assert all(r.method == "GET" and r.client == "127.0.0.1" for r in log)
    assert all(r.host == base.split("//")[1] for r in log)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_port_in_use_raises_eaddrinuse(site):
    import errno
    first = B.make_server(site, request_log=[])
    try:
        with pytest.raises(OSError) as e:
            B.make_server(site, port=first.server_address[1], request_log=[])
        assert e.value.errno == errno.EADDRINUSE
    finally:
        first.server_close()


def test_headers_file_and_the_local_server_agree_on_caching(dist):
    rules = B.read_header_rules(dist)
    log = []
    srv = B.make_server(dist, request_log=log)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    t.start()
    base = B.server_url(srv)
    try:
        for rel in published_files(dist) + [""]:
            expected = [v for n, v in B.headers_for(rules, "/" + rel) if n == "Cache-Control"]
            with urllib.request.urlopen(base + rel, timeout=10) as r:
                got = r.headers.get_all("Cache-Control")
                ctype = r.headers.get("Content-Type")
            if rel in FIXED_NAMES - {"_headers", ".nojekyll"} or rel == "":
                assert expected == got == ["no-cache"], rel
            elif rel not in FIXED_NAMES:
                assert expected == got == ["public, max-age=31536000, immutable"], rel
            if rel.endswith(".wasm"):
                assert ("Content-Type", "application/wasm") in B.headers_for(rules, "/" + rel)
                assert ctype == "application/wasm"
        # A date-based 304 only for content-hashed files: a fixed name is always sent whole.
        late = "Fri, 01 Jan 2100 00:00:00 GMT"
        wheel = build_info(dist)["poolgrad_wheel"]
        for rel, status in (("sw.js", 200), ("index.html", 200), (wheel, 304)):
            request = urllib.request.Request(base + rel, headers={"If-Modified-Since": late})
            try:
                with urllib.request.urlopen(request, timeout=10) as r:
                    got = r.status
            except urllib.error.HTTPError as e:
                got = e.code
            assert got == status, rel
    finally:
        srv.shutdown()
        srv.server_close()


def test_headers_rules_follow_the_hosts_format():
    combined = [("/*", [("X-A", "1")]), ("/app/*", [("X-A", "2"), ("Cache-Control", "immutable")])]
    assert B.headers_for(combined, "/app/x/y.js?v=1") == [("X-A", "1, 2"), ("Cache-Control", "immutable")]
    assert B.headers_for(combined, "/index.html") == [("X-A", "1")]
    assert B.headers_for([("/", [("Cache-Control", "no-cache")])], "/index.html") == []


class _FakeSockets:
    """socket's names lan_address uses, recording what it does with its socket."""

    AF_INET, SOCK_DGRAM = socket.AF_INET, socket.SOCK_DGRAM

    def __init__(self, address):
        self.address, self.calls = address, []

    def socket(self, family, kind):
        self.calls.append(("socket", family, kind))
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def connect(self, where):
        self.calls.append(("connect", where))

    def getsockname(self):
        if isinstance(self.address, Exception):
            raise self.address
        return (self.address, 40000)

    def __getattr__(self, name):  # send, sendto, ...: lan_address must never call them
        raise AssertionError(f"lan_address called {name}")


def test_the_lan_address_is_found_without_sending_anything():
    fake = _FakeSockets("192.168.1.23")
    assert B.server.lan_address(fake) == "192.168.1.23"
    assert fake.calls == [("socket", socket.AF_INET, socket.SOCK_DGRAM), ("connect", ("192.0.2.1", 9))]
    assert B.server.lan_address(_FakeSockets("127.0.0.1")) is None
    assert B.server.lan_address(_FakeSockets(OSError("Network is unreachable"))) is None


def test_serving_every_interface_prints_the_lan_address_and_what_plain_http_cannot(site, monkeypatch):
    srv = B.make_server(site, "0.0.0.0", 0, request_log=[])
    try:
        port = srv.server_address[1]
        monkeypatch.setattr(B.server, "lan_address", lambda: "192.168.1.23")
        lines = B.server.announce(srv)
        assert lines[0] == f"open http://127.0.0.1:{port}/  (Ctrl-C to stop)"
        assert lines[1] == f"on the same network, students open: http://192.168.1.23:{port}/"
        assert "not a secure context" in lines[2] and "service worker" in lines[2]
        assert not any("0.0.0.0" in line for line in lines)
        monkeypatch.setattr(B.server, "lan_address", lambda: None)
        assert "no network address found" in B.server.announce(srv)[1]
    finally:
        srv.server_close()
    local = B.make_server(site, request_log=[])
    try:
        assert B.server.announce(local) == [f"open {B.server.server_url(local)}  (Ctrl-C to stop)"]
    finally:
        local.server_close()


def test_an_error_is_never_cached_whatever_the_rules_say(site):
    """Issue 19, 3: a 404 under a year-long "immutable" rule was cached as long, so a file
    missing while a deploy was halfway through stayed missing for every later try."""
    (site / "_headers").write_text("/wheels/*\n  Cache-Control: public, max-age=31536000, immutable\n  X-Kept: 1\n")
    srv = B.make_server(site, request_log=[])
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    base = B.server_url(srv)
    try:
        for rel, code in (("wheels/gone.whl", 404), ("pyodide/", 404), ("wheels/poolgrad-0.1.0-py3-none-any.whl", 200)):
            request = urllib.request.Request(base + rel, method="POST" if rel == "pyodide/" else "GET")
            try:
                with urllib.request.urlopen(request, timeout=10) as r:
                    got, headers = r.status, r.headers
            except urllib.error.HTTPError as e:
                got, headers = e.code, e.headers
            assert got in (code, 501), rel
            if got >= 400:
                assert headers.get_all("Cache-Control") == ["no-store"], rel
            else:
                assert headers.get_all("Cache-Control") == ["public, max-age=31536000, immutable"], rel
                assert headers.get("X-Kept") == "1"
        # A kept-alive connection: the error's header does not leak into the next answer.
        connection = http.client.HTTPConnection(*srv.server_address[:2], timeout=10)
        for rel, cache_control in (("/wheels/gone.whl", "no-store"),
                                   ("/wheels/poolgrad-0.1.0-py3-none-any.whl", "public, max-age=31536000, immutable")):
            connection.request("GET", rel)
            answer = connection.getresponse()
            answer.read()
            assert answer.getheader("Cache-Control") == cache_control, rel
        connection.close()
    finally:
        srv.shutdown()
        srv.server_close()
