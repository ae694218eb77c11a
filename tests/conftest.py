"""Shared by every test: the site builder (the ``sitebuild`` package behind build.py),
imported once, so every test module and fixture sees and monkeypatches the same modules,
and this folder on the import path for the modules the test folders share
(``lesson_fixture``). Test modules use ``import sitebuild as B``; fixtures take
``build_module``."""

import os
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# With pytest's importlib import mode no test folder is on sys.path by itself; the
# repository is, for the site builder beside build.py.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(REPO))

import sitebuild  # noqa: E402


@pytest.fixture(scope="session")
def build_module():
    return sitebuild


@pytest.fixture(scope="session")
def dist(build_module):
    """The built site: dist/ as `python build.py test` built it (POOLGRAD_SKIP_BUILD=1),
    else built now (which also warms the download cache)."""
    existing = Path(build_module.paths.DIST)
    if os.environ.get("POOLGRAD_SKIP_BUILD") == "1" and (existing / "build-info.json").is_file():
        return existing
    return Path(build_module.build(quiet=True))


@pytest.fixture(scope="session")
def browser(build_module):
    """The one headless Chromium of the run (Debian's, driven by Playwright), shared by the
    page's tests and the notebook's: Playwright's sync API allows one running instance."""
    executable = build_module.find_chromium()
    if not executable:
        # A browser test that cannot run has not passed: say what to do instead of skipping.
        pytest.fail("no Chromium for the browser tests: run `python build.py test` (it installs "
                    "Debian's chromium when run as root) or set POOLGRAD_CHROMIUM")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=build_module.CHROMIUM_ARGS)
        yield launched
        launched.close()


# Each kind of browser test: its folder and the fixture it stands on. A test in the folder,
# or one that uses the fixture anywhere, carries the marker whatever its module says, so
# the fast tier (`python build.py test --fast`, which leaves these markers out) never
# opens a browser, and a test that opens none is never left out of it for want of a marker.
BROWSER_TESTS = {"browser": ("web", "browser"), "engines": ("engines", "driver")}
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items):
    for item in items:
        for marker, (folder, fixture) in BROWSER_TESTS.items():
            if (TESTS / folder) in Path(item.path).parents or fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)


def pytest_terminal_summary(terminalreporter):
    """Say once why the PyTorch parity tests were skipped, when they were: a bare "270
    skipped" reads as broken to a newcomer."""
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if isinstance(report.longrepr, tuple) and "could not import 'torch'" in report.longrepr[2]]
    if not skipped:
        return
    pin = re.search(r"torch==[\d.]+", (REPO / ".ci" / "run").read_text(encoding="utf-8"))
    terminalreporter.write_line(
        f"{len(skipped)} skipped: the PyTorch parity tests (marked torch); torch is not installed. "
        "Their torch-free twins ran (golden data: tests/data/golden.npz). To run them too: "
        f"pip install {pin.group(0) if pin else 'torch'}")
