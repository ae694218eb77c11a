"""What tests read off a built site: its build-info.json, its published files, a file
fetched from its server."""

import json
import urllib.request

import sitebuild as B  # on the path through tests/conftest.py


FIXED_NAMES = {"index.html", "embed-demo.html", "build-info.json", "sw.js", "_headers", ".nojekyll"}


def build_info(dist):
    return json.loads((dist / "build-info.json").read_text())


def http_get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers.get("Content-Type"), r.read()


def published_files(dist):
    return sorted(p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file() and p.name != B.DIST_MARKER)
