"""poolgrad as a Python package: the sdist and the wheel that `python -P -m build` makes
from a checkout hold the package, its licence and its type marker, with complete metadata."""

from __future__ import annotations

import email
import subprocess
import sys
import tarfile
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import poolgrad
import poolgrad.wire

REPO = Path(__file__).resolve().parents[1]
MODULES = {"__init__", "adaptive_pool", "avg_pool", "exercises", "geometry", "layers", "lp_pool", "max_pool", "trace", "unpool", "validation", "windows"}


def _local_backend_is_new_enough() -> bool:
    # setuptools 77 is the first to read the SPDX `license` and `license-files` keys;
    # an older local one means building in an isolated environment pip fills from the index.
    try:
        major = int(metadata.version("setuptools").split(".")[0])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return major >= 77


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    # -P: without it `python -m build` run from the repository would import build.py.
    cmd = [sys.executable, "-P", "-m", "build", "--outdir", str(out), str(REPO)]
    if _local_backend_is_new_enough():
        cmd.insert(4, "--no-isolation")
    result = subprocess.run(cmd, cwd=tmp_path_factory.getbasetemp(), capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    wheels = list(out.glob("poolgrad-*-py3-none-any.whl"))
    sdists = list(out.glob("poolgrad-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return wheels[0], sdists[0]


@pytest.mark.slow
def test_wheel_holds_the_package_licence_and_type_marker(built):
    wheel, _ = built
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    modules = {n[len("poolgrad/"):-3] for n in names if n.startswith("poolgrad/") and n.endswith(".py")}
    assert MODULES <= modules
    assert "poolgrad/py.typed" in names
    dist_info = f"poolgrad-{poolgrad.__version__}.dist-info"
    assert f"{dist_info}/licenses/LICENSE" in names
    assert not any(n.startswith(("tests/", "web/", "build.py")) for n in names)


@pytest.mark.slow
def test_wheel_metadata_is_complete_and_matches_the_module(built):
    wheel, _ = built
    with zipfile.ZipFile(wheel) as zf:
        meta = email.message_from_bytes(zf.read(f"poolgrad-{poolgrad.__version__}.dist-info/METADATA"))
    assert meta["Name"] == "poolgrad"
    assert meta["Version"] == poolgrad.__version__
    assert meta["License-Expression"] == "MIT"
    assert meta["Requires-Python"] == ">=3.10"
    assert meta.get_all("Requires-Dist") and any(r.startswith("numpy") for r in meta.get_all("Requires-Dist"))
    assert "Typing :: Typed" in meta.get_all("Classifier")
    assert meta["Summary"].startswith("PyTorch-exact 2D max/average pooling")
    description = meta.get_payload()
    assert description == (REPO / "py" / "README.md").read_text(encoding="utf-8")
    assert meta["Description-Content-Type"] == "text/markdown"


def test_the_pypi_description_is_short_and_shows_nothing_pypi_cannot():
    # PyPI renders the description alone: a relative image (docs/widget.png) would be a
    # broken picture there, and the project configures no public address for absolute ones.
    text = (REPO / "py" / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 45
    assert "![" not in text and "<img" not in text
    assert "max_pool2d(input=x, kernel_size=2" in text


@pytest.mark.slow
def test_sdist_holds_sources_licence_and_type_marker(built):
    _, sdist = built
    root = sdist.name[: -len(".tar.gz")]
    with tarfile.open(sdist) as tf:
        names = set(tf.getnames())
    for required in ("LICENSE", "py/README.md", "pyproject.toml", "py/poolgrad/py.typed", "py/poolgrad/__init__.py"):
        assert f"{root}/{required}" in names


def test_installed_version_is_the_module_version():
    assert metadata.version("poolgrad") == poolgrad.__version__


def _public_callables():
    import inspect

    for name in poolgrad.__all__:
        obj = getattr(poolgrad, name)
        if inspect.isclass(obj):
            # MaxUnpool2d, like torch's, has no backward.
            yield from ((f"{name}.{m}", getattr(obj, m)) for m in ("__init__", "forward", "backward")
                        if hasattr(obj, m))
        elif callable(obj):
            yield name, obj
    yield from ((f"exercises.{n}", getattr(poolgrad.exercises, n)) for n in ("max_pool2d", "max_pool2d_backward"))
    yield "wire.run_trace", poolgrad.wire.run_trace


@pytest.mark.parametrize("name, function", list(_public_callables()))
def test_public_api_is_fully_annotated(name, function):
    # py.typed promises type checkers annotations: every parameter and the return value,
    # resolvable (not just strings naming something that does not exist).
    import inspect
    import typing

    hints = typing.get_type_hints(function)
    parameters = [p for p in inspect.signature(function).parameters if p != "self"]
    assert [p for p in parameters if p not in hints] == [], f"{name} has unannotated parameters"
    assert "return" in hints, f"{name} has no return annotation"
