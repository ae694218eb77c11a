"""Shared pieces of the core tests: the loop reference on the import path, and torch."""

import sys
from pathlib import Path

import pytest

# The loop reference (reference.py) sits next to the tests; with pytest's importlib
# import mode the tests' folder is not on sys.path by itself.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def torch():
    """PyTorch on one thread, or a skip when it is not installed."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    return torch
