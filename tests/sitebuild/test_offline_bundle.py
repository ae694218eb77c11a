"""sitebuild/offline_bundle.py: the offline demo's zip and its launcher."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

import sitebuild as B  # on the path through tests/conftest.py
from built_site import http_get

REPO = Path(__file__).resolve().parents[2]


def test_bundle_holds_the_site_and_a_working_launcher(site, tmp_path):
    out = B.bundle(tmp_path / "demo.zip", dist=site, build_first=False, quiet=True)
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        assert "poolgrad-offline/serve.py" in names
        # Already compressed: stored as it is.
        assert zf.getinfo("poolgrad-offline/site/pyodide/snapshot.bin.gz").compress_type == zipfile.ZIP_STORED
        for p in site.rglob("*"):
            if p.is_file():
                assert f"poolgrad-offline/site/{p.relative_to(site).as_posix()}" in names
        zf.extractall(tmp_path / "unzipped")
    launcher = tmp_path / "unzipped" / "poolgrad-offline" / "serve.py"
    src = launcher.read_text()
    assert src == (REPO / "sitebuild" / "server.py").read_text()  # the server module, whole
    proc = subprocess.Popen([sys.executable, str(launcher), "--port", "0", "--no-browser"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert m, line
        status, ctype, body = http_get(m.group(0) + "pyodide/pyodide.asm.wasm")
        assert status == 200 and ctype == "application/wasm" and body == b"\0asm\1\0\0\0"
        status, ctype, _ = http_get(m.group(0))
        assert ctype.startswith("text/html")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert proc.returncode == 0  # SIGTERM stops it cleanly


def test_bundle_refuses_an_unbuilt_site(tmp_path):
    with pytest.raises(B.BuildError, match="index.html"):
        B.bundle(tmp_path / "x.zip", dist=tmp_path / "empty", build_first=False, quiet=True)


def test_the_offline_bundles_server_sends_the_same_headers(site, tmp_path):
    (site / "_headers").write_text("/\n  Cache-Control: no-cache\n/wheels/*\n  Cache-Control: public, max-age=31536000, immutable\n")
    out = B.bundle(tmp_path / "demo.zip", dist=site, build_first=False, quiet=True)
    with zipfile.ZipFile(out) as zf:
        zf.extractall(tmp_path / "unzipped")
    proc = subprocess.Popen([sys.executable, str(tmp_path / "unzipped" / "poolgrad-offline" / "serve.py"), "--port", "0",
                             "--no-browser"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        base = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline()).group(0)
        with urllib.request.urlopen(base + "wheels/poolgrad-0.1.0-py3-none-any.whl", timeout=10) as r:
            assert r.headers.get_all("Cache-Control") == ["public, max-age=31536000, immutable"]
        with urllib.request.urlopen(base, timeout=10) as r:
            assert r.headers.get_all("Cache-Control") == ["no-cache"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_bundles_readme_is_readable_by_everyone_and_says_how_to_start(site, tmp_path):
    out = B.bundle(tmp_path / "demo.zip", dist=site, build_first=False, quiet=True)
    with zipfile.ZipFile(out) as zf:
        info = zf.getinfo("poolgrad-offline/README.txt")
        text = zf.read(info).decode()
    assert (info.external_attr >> 16) & 0o777 == 0o644
    assert "python serve.py" in text and "py serve.py" in text and "--host 0.0.0.0" in text


def _recording_browser(tmp_path):
    """An executable $BROWSER that writes the URL it is asked to open to a file."""
    record = tmp_path / "opened.txt"
    script = tmp_path / "browser"
    script.write_text(f"#!{sys.executable}\nimport sys\nopen({str(record)!r}, 'a').write(sys.argv[1] + '\\n')\n")
    script.chmod(0o755)
    return script, record


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_the_bundles_serve_py_opens_the_page_in_the_browser(site, tmp_path, host):
    out = B.bundle(tmp_path / "demo.zip", dist=site, build_first=False, quiet=True)
    with zipfile.ZipFile(out) as zf:
        zf.extractall(tmp_path / "unzipped")
    browser, record = _recording_browser(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["BROWSER"] = str(browser)
    proc = subprocess.Popen([sys.executable, str(tmp_path / "unzipped" / "poolgrad-offline" / "serve.py"),
                             "--port", "0", "--host", host], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path, env=env)
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline()).group(0)
        deadline = time.monotonic() + 20
        while not record.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert record.read_text() == url + "\n"  # this machine's URL, never 0.0.0.0
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_no_browser_is_opened_where_none_would_show():
    assert not B.server.can_open_a_browser({"TERM": "xterm"}, "linux")
    assert B.server.can_open_a_browser({"DISPLAY": ":0"}, "linux")
    assert B.server.can_open_a_browser({}, "darwin")
