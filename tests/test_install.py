"""Every command the docs give to install poolgrad works, as written, in a fresh virtual
environment with no network: from a checkout, and from the built site's own wheel by its
address (served here by the project's own server). The commands are read from the docs,
so the docs and this test cannot drift apart."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import poolgrad
import sitebuild as B  # on the path through tests/conftest.py

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# A pip install, %pip in a notebook, in a code block's line or an inline code span.
COMMAND = re.compile(r"(?:^|`)%?(pip install [^`\n]+)", re.M)
# The built site's wheel as the docs spell its address: any site, its hash, the version.
WHEEL_ADDRESS = re.compile(r"https?://\S+?/(wheels/<hash>/poolgrad-<version>-py3-none-any\.whl)")


def install_commands() -> list[str]:
    """The docs' commands that install poolgrad (not the ones for PyTorch, say)."""
    found = []
    for page in DOCS:
        for command in COMMAND.findall(page.read_text(encoding="utf-8")):
            words = shlex.split(command)[2:]
            if any("poolgrad" in word or re.fullmatch(r"\.(\[[\w,]+\])?", word) for word in words):
                found.append(command.strip())
    return sorted(set(found))


def test_the_docs_install_from_a_checkout_and_from_the_sites_wheel_only():
    commands = install_commands()
    assert 'pip install ".[widget]"' in commands
    assert any(WHEEL_ADDRESS.search(command) for command in commands)
    # poolgrad is not on the package index: every command names a checkout or the wheel.
    for command in commands:
        words = shlex.split(command)[2:]
        assert any(word.startswith(".") or WHEEL_ADDRESS.search(word) for word in words), command


@pytest.fixture(scope="module")
def site_address(dist):
    server = B.make_server(dist, request_log=[])
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A copy of the package's sources: pip builds a checkout in place, and writes there."""
    copy = tmp_path_factory.mktemp("checkout")
    for name in ("pyproject.toml", "LICENSE", "README.md"):
        shutil.copy2(REPO / name, copy / name)
    shutil.copytree(REPO / "py", copy / "py", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return copy


def _fresh_venv(path: Path) -> Path:
    # The interpreter's own site-packages stay visible (NumPy, anywidget, pip, setuptools):
    # with no network, pip finds poolgrad's dependencies there and nowhere else.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(path)],
                   check=True, capture_output=True)
    python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    probe = subprocess.run([str(python), "-c", (
        "import setuptools, numpy, anywidget, pip, sys; "
        "sys.exit(int(setuptools.__version__.split('.')[0]) < 77)")], capture_output=True)
    assert probe.returncode == 0, (
        "a fresh venv here does not see NumPy, anywidget, pip and setuptools 77+ in the interpreter's own "
        "site-packages: installing with no network needs them there (python build.py test installs them)")
    return python


@pytest.mark.slow
@pytest.mark.parametrize("command", install_commands())
def test_each_install_command_of_the_docs_works_with_no_network(command, checkout, site_address, dist,
                                                               tmp_path):
    info = json.loads((dist / "build-info.json").read_text(encoding="utf-8"))
    shipped = WHEEL_ADDRESS.search(command)
    if shipped:
        documented = re.escape(shipped.group(1)).replace("<hash>", "[0-9a-f]+").replace(
            "<version>", re.escape(poolgrad.__version__))
        assert re.fullmatch(documented, info["poolgrad_wheel"]), (shipped.group(1), info["poolgrad_wheel"])
        command = command.replace(shipped.group(0), site_address + info["poolgrad_wheel"])
    python = _fresh_venv(tmp_path / "venv")
    result = subprocess.run(
        [str(python), "-m", *shlex.split(command), "--no-index", "--no-build-isolation",
         "--disable-pip-version-check", "--no-cache-dir"],
        cwd=checkout, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    check = subprocess.run(
        [str(python), "-c", "import poolgrad, poolgrad.widget; print(poolgrad.__file__, poolgrad.__version__); "
                            "print(poolgrad.Widget([[1, 2], [3, 4]]).output.tolist())"],
        cwd=tmp_path, capture_output=True, text=True, check=True)
    where, version = check.stdout.splitlines()[0].rsplit(" ", 1)
    assert Path(where).resolve().is_relative_to((tmp_path / "venv").resolve()), where
    assert version == poolgrad.__version__
    assert check.stdout.splitlines()[1] == "[[4]]"
