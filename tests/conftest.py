"""Shared by every test: the site builder (the ``sitebuild`` package behind build.py),
imported once, so every test module and fixture sees and monkeypatches the same modules,
and this folder on the import path for the modules the test folders share
(``lesson_fixture``). Test modules use ``import sitebuild as B``; fixtures take
``build_module``."""

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
