"""A real Jupyter server (JupyterLab 4 and Notebook 7 in one) for the notebook tests,
started on 127.0.0.1 with its own token, a temporary root, and temporary Jupyter config,
data, runtime and settings folders (nothing of this machine's Jupyter setup leaks in; the
extensions come from the Python environment, as a user's install puts them), and
headless Chromium (Debian's, driven by Playwright) to use it."""

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

# The driver sits next to the tests; with pytest's importlib import mode their folder is not
# on sys.path by itself.
sys.path.insert(0, str(Path(__file__).parent))

pytest.importorskip("anywidget")
pytest.importorskip("jupyterlab")
pytest.importorskip("notebook")

from notebook_driver import JupyterPage  # noqa: E402

START_TIMEOUT_S = 90

# anywidget's state is saved with the notebook (for the static HTML export) only when the
# widget manager's saveState setting is on; every cell stays in the page (JupyterLab's
# windowing would take a cell out of view out of the DOM, and the tests read earlier cells).
SETTINGS = {
    "@jupyter-widgets/jupyterlab-manager/plugin.jupyterlab-settings": {"saveState": True},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


class JupyterServer:
    def __init__(self, root, url, token, process, log):
        self.root, self.url, self.token, self.process, self.log = root, url, token, process, log

    def lab(self, name):
        return f"{self.url}lab/tree/{name}?token={self.token}"

    def notebook7(self, name):
        return f"{self.url}notebooks/{name}?token={self.token}"


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def jupyter(tmp_path_factory):
    base = tmp_path_factory.mktemp("jupyter")
    root = base / "root"
    root.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON"))}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR",
                 "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
        (base / name).mkdir()
        env[name] = str(base / name)
    for path, values in SETTINGS.items():
        target = base / "JUPYTERLAB_SETTINGS_DIR" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values), encoding="utf-8")
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    token = secrets.token_hex(16)
    port = _free_port()
    log = open(base / "server.log", "w", encoding="utf-8")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         "--LabApp.expose_app_in_browser=True", "--JupyterNotebookApp.expose_app_in_browser=True",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--ServerApp.open_browser=False", "--LabApp.extension_manager=readonly",
         # Test machines and CI run as root, which the server refuses unless told.
         "--allow-root"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            with urllib.request.urlopen(f"{url}api/status?token={token}", timeout=2):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                log.close()
                pytest.fail(f"the Jupyter server did not start: {(base / 'server.log').read_text()[-2000:]}")
            time.sleep(0.3)
    try:
        yield JupyterServer(root, url, token, process, base / "server.log")
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture
def open_notebook(jupyter, browser):
    """open_notebook(cells, app="lab" | "notebook7", scheme="light", kinds=None) -> a
    JupyterPage on a new notebook holding `cells` (sources; code cells unless `kinds` gives
    each cell's type), its kernel ready."""
    contexts = []

    def open_(cells, app="lab", scheme="light", kinds=None):
        name = f"t{secrets.token_hex(4)}.ipynb"
        notebook = _notebook(cells, kinds or ["code"] * len(cells))
        (jupyter.root / name).write_text(json.dumps(notebook), encoding="utf-8")
        context = browser.new_context(viewport={"width": 1280, "height": 1000}, color_scheme=scheme)
        contexts.append(context)
        page = JupyterPage(context.new_page(), jupyter, name)
        page.open(jupyter.lab(name) if app == "lab" else jupyter.notebook7(name))
        return page

    yield open_
    for context in contexts:
        context.close()


def _notebook(cells, kinds):
    def cell(i, source, kind):
        made = {"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": source}
        return {**made, "outputs": [], "execution_count": None} if kind == "code" else made

    return {
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [cell(i, source, kind) for i, (source, kind) in enumerate(zip(cells, kinds))],
    }
