"""sitebuild/pins.py: every pin is well formed."""

from __future__ import annotations

import re

import sitebuild as B  # on the path through tests/conftest.py


def test_pins_are_well_formed():
    pins = list(B.PYODIDE_CORE_SHA256.values()) + [h for _, h in B.PYODIDE_WHEELS.values()]
    pins += [B.PYODIDE_TARBALL_SHA256, B.PYODIDE_LOCK_SHA256, B.CARRIER_WHEEL_SHA256]
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in pins)
    assert set(B.PYODIDE_WHEELS) == {"numpy", "micropip", "packaging"}
    for core in ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip"):
        assert core in B.PYODIDE_CORE_SHA256
