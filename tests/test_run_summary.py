"""The run's summary (tests/conftest.py): a run without PyTorch says once why its parity
tests were skipped, what ran in their place and how to run them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PARITY = "tests/poolgrad/test_golden.py"


def _run(tmp_path, *args, hide_torch):
    env_path = []
    if hide_torch:
        # A torch that cannot be imported, as on a machine without it.
        (tmp_path / "torch").mkdir()
        (tmp_path / "torch" / "__init__.py").write_text('raise ImportError("No module named \'torch\'")\n')
        env_path = [str(tmp_path)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(env_path + [os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def test_a_run_without_torch_says_why_its_parity_tests_were_skipped(tmp_path):
    out = _run(tmp_path, PARITY, hide_torch=True)
    skipped = int(re.search(r"(\d+) skipped", out).group(1))
    pin = re.search(r"torch==[\d.]+", (REPO / ".ci" / "run").read_text()).group(0)
    assert out.count("PyTorch") == 1
    assert (f"{skipped} skipped: the PyTorch parity tests (marked torch); torch is not installed. "
            "Their torch-free twins ran (golden data: tests/data/golden.npz). To run them too: "
            f"pip install {pin}") in " ".join(out.split())


@pytest.mark.slow
def test_a_run_that_skipped_nothing_for_torch_says_nothing_of_it(tmp_path):
    assert "PyTorch" not in _run(tmp_path, PARITY, "-m", "not torch", hide_torch=True)
    pytest.importorskip("torch")
    assert "PyTorch" not in _run(tmp_path, "tests/poolgrad/test_max_pool.py", "-m", "torch", hide_torch=False)
