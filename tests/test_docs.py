"""What a newcomer must find in the documentation before it bites: the prerequisites up
front, where every download comes from and how it is checked, what a classroom needs.
The facts are read from the code they describe (the pins, the server), not retyped."""

from __future__ import annotations

import re
from pathlib import Path

import sitebuild as B  # on the path through tests/conftest.py

REPO = Path(__file__).resolve().parents[1]


def _text(name):
    return (REPO / name).read_text(encoding="utf-8")


def test_the_readme_says_what_the_first_build_needs_before_the_first_command():
    readme = _text("README.md")
    before = readme[:readme.index("python build.py serve")]
    assert f"Node.js {B.pins.NODE_MIN_MAJOR}+ with npm" in before
    assert "docs/publishing.md#what-the-first-build-downloads" in before


def test_the_docs_say_where_numpys_wasm_wheel_comes_from_and_how_it_is_checked():
    section = _text("docs/publishing.md").split("## What the first build downloads", 1)[1].split("\n## ", 1)[0]
    assert B.pins.CARRIER_WHEEL in section and f"{B.pins.CARRIER_NAME}=={B.pins.CARRIER_VERSION}" in section
    assert B.pins.CARRIER_ASSET_DIR in section
    numpy_wheel = B.pins.PYODIDE_WHEELS["numpy"][0]
    assert "NumPy " + numpy_wheel.split("-")[1] in section
    assert "pyodide-lock.json" in section and "sha256" in section
    assert "never installs" in section


def test_the_classroom_page_gives_the_command_the_limits_and_the_bytes():
    page = _text("docs/classroom.md")
    assert "python serve.py --host 0.0.0.0" in page and "py serve.py" in page
    assert "secure context" in page and "service worker" in page
    assert re.search(r"class of 30 that is about \*\*\d+ MB\*\*", page)
    assert "docs/classroom.md" in _text("README.md")
    # The server's own hint points at this page.
    assert "docs/classroom.md" in (REPO / "sitebuild" / "server.py").read_text()


def test_the_documented_sizing_snippet_is_the_one_the_widget_copies():
    # One host snippet: docs/embedding.md shows web/embed-sizing.js's function as the
    # Copy embed code button writes it (snippets.js: `<script>(${sizePoolgradFrames})();`).
    source = next((REPO / "web").rglob("embed-sizing.js")).read_text(encoding="utf-8")
    function = source[source.index("export function sizePoolgradFrames"):].removeprefix("export ").rstrip("\n")
    page = _text("docs/embedding.md")
    assert f"<script>({function})();</script>" in page
    assert "once per page" in page and "event.source" in page
    # The old one-frame snippet (document.querySelector("iframe")) is gone everywhere.
    for name in ("README.md", "docs/embedding.md", "docs/publishing.md"):
        assert 'querySelector("iframe")' not in _text(name), name


def test_every_query_key_the_page_reads_is_documented_with_what_it_hides():
    early = next((REPO / "web").rglob("early.js")).read_text(encoding="utf-8")
    keys = sorted(set(re.findall(r'params\.get\("(\w+)"\)', early)))
    assert {"embed", "lesson", "code", "worker"} <= set(keys)
    page = _text("docs/embedding.md")
    for key in keys + ["id"]:
        assert re.search(rf"^\| `{key}=", page, re.M), key
