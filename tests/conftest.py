"""Shared by every test: build.py imported once, as the module ``poolgrad_build_script``,
and this folder on the import path for the modules the test folders share
(``lesson_fixture``).

build.py is a script at the repository's root, not a package, so it is loaded from its
path; doing that once, here, means every test module and fixture sees (and monkeypatches)
the same module object. Test modules use ``import poolgrad_build_script as B``; fixtures
take ``build_module``."""

import importlib.util
import sys
from pathlib import Path

import pytest

BUILD_SCRIPT = Path(__file__).resolve().parents[1] / "build.py"
MODULE_NAME = "poolgrad_build_script"

# With pytest's importlib import mode no test folder is on sys.path by itself.
sys.path.insert(0, str(Path(__file__).resolve().parent))

if MODULE_NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(MODULE_NAME, BUILD_SCRIPT)
    _module = importlib.util.module_from_spec(_spec)
    sys.modules[MODULE_NAME] = _module
    _spec.loader.exec_module(_module)


@pytest.fixture(scope="session")
def build_module():
    return sys.modules[MODULE_NAME]
