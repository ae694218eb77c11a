"""The standard library's subset (sitebuild/subset.py) holds what the site's Python uses:
under Node, with the subset alone mounted, a trace, an exercise check and a learner's Run
fetch nothing; a module outside it fetches the official zip once (and NumPy's outside the
NumPy subset the official wheel), and offline such an import says why it fails."""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path

import pytest
import sitebuild as B

from built_site import build_info

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_the_subset_alone_runs_the_site_and_fetches_the_official_zip_for_the_rest(node, dist):
    proc = subprocess.run([node, str(HERE / "stdlib_subset_check.mjs"), str(dist)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["inSubset"] == [[[1, 2, 2], [3, 4, 4], [3, 4, 4]], ["pass", "error"]]
    assert seen["requestsInSubset"] == []
    assert seen["offlineMessage"] == ("unittest is not in the part of Python's standard library this page loads at "
                                      "start, and the full standard library could not be fetched: Error: "
                                      "NetworkError: the network is off")
    assert seen["outside"] == ["7", [128], [1, 1, 1, 1], "TestCase"]
    # The failed request offline, then one that succeeds: once, for both modules.
    assert seen["requests"] == ["python_stdlib.zip", "python_stdlib.zip", "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"]


def test_the_built_subset_is_the_official_zips_own_entries_and_is_recorded(dist):
    # Each entry byte for byte the official one's; its sha256 and what it leaves out are in
    # build-info.json, so a reviewer can check the derived file against the pinned one.
    info = build_info(dist)
    subset = dist / info["stdlib_subset"]
    official = subset.with_name("python_stdlib.zip")
    with zipfile.ZipFile(subset) as part, zipfile.ZipFile(official) as whole:
        kept = [entry.filename for entry in part.infolist() if not entry.is_dir()]
        assert kept and all(part.read(name) == whole.read(name) for name in kept)
        assert {"encodings/utf_8.py", "json/__init__.py", "zipfile/__init__.py"} <= set(kept)
        assert len(kept) < len([entry for entry in whole.infolist() if not entry.is_dir()])
    assert {"file": info["stdlib_subset"], "sha256": hashlib.sha256(subset.read_bytes()).hexdigest()} in info["derived"]
    assert info["stdlib_left_out"] == B.subset.left_out_modules(official, subset.read_bytes())
    assert "unittest" in info["stdlib_left_out"]
