"""sitebuild/shipped.py: the traces shipped for the first views are poolgrad's answers,
and the build says why when it cannot make them."""

from __future__ import annotations

import gzip
import hashlib
import json
import re

import pytest

import sitebuild as B  # on the path through tests/conftest.py
from built_site import build_info


def _shipped(site):
    info = build_info(site)
    data = (site / info["shipped_traces_file"]).read_bytes()
    return info, data, json.loads(data)["traces"]


def _without_numpy(tmp_path, monkeypatch):
    """The builder's native Python is one that cannot import NumPy."""
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'numpy'\" >&2\nexit 1\n")
    fake.chmod(0o755)
    probe = B.shipped.native_python
    monkeypatch.setattr(B.shipped, "native_python", lambda python=None: probe(str(fake)))


def test_the_shipped_traces_are_poolgrads_answers_for_the_front_ends_views(node, traces_cache, tmp_path,
                                                                          monkeypatch):
    from poolgrad.wire import run_trace

    runs = []
    compute = B.shipped.compute_traces
    monkeypatch.setattr(B.shipped, "compute_traces", lambda *a: (runs.append(a), compute(*a))[1])
    first = B.build(tmp_path / "first", quiet=True)
    info, data, traces = _shipped(first)
    assert re.fullmatch(r"app/[0-9a-f]{12}/shipped-traces\.json", info["shipped_traces_file"])
    # The keys are the front end's own (web/lesson/first-views.js through Node), default view first.
    landing_keys, minute_keys, chain_keys = B.shipped.view_keys()
    assert list(traces) == landing_keys
    assert json.loads(next(iter(traces))) == {
        "x": [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]], "kernel_size": [2, 2],
        "stride": [2, 2], "padding": [0, 0], "dilation": [1, 1], "ceil_mode": False, "count_include_pad": True,
        "mode": "max", "grad_output": 1}
    # Default, 3 more presets and the 3 x 3 / stride 1 step, each in max and average; the
    # global and adaptive presets in both adaptive modes.
    assert info["shipped_traces"] == len(traces) == 14
    assert info["shipped_traces_bytes"] == len(data)
    assert info["shipped_traces_gzip_bytes"] == len(gzip.compress(data, compresslevel=9, mtime=0))
    assert info["shipped_traces_note"] is None
    for key, trace in traces.items():
        assert json.loads(run_trace(key)) == {"trace": trace}
    # The first minute's views: every one poolgrad answers, in the front end's order; the
    # ones it refuses (a window larger than the input, too much padding) are left out.
    minute_data = (first / info["first_minute_traces_file"]).read_bytes()
    minute = json.loads(minute_data)["traces"]
    assert info["first_minute_traces"] == len(minute) == 122
    assert info["first_minute_traces_bytes"] == len(minute_data)
    assert info["first_minute_traces_gzip_bytes"] == len(gzip.compress(minute_data, compresslevel=9, mtime=0))
    answers = {key: json.loads(run_trace(key)) for key in minute_keys}
    assert minute == {key: answer["trace"] for key, answer in answers.items() if "trace" in answer}
    assert list(minute) == [key for key in minute_keys if key in minute]
    assert all("error" in answers[key] for key in set(minute_keys) - set(minute))
    # The chain's landing views (web/chain/first-views.js): the view=chain link's first,
    # then each preset's but the random filter's (the capstone's is the link's).
    chain_data = (first / info["chain_traces_file"]).read_bytes()
    chain = json.loads(chain_data)["traces"]
    assert list(chain) == chain_keys
    assert info["chain_traces"] == len(chain) == 9
    assert info["chain_traces_bytes"] == len(chain_data)
    assert info["chain_traces_gzip_bytes"] == len(gzip.compress(chain_data, compresslevel=9, mtime=0))
    assert json.loads(chain_keys[0])["pool"] == "max" and json.loads(chain_keys[0])["loss"] == "mse"
    for key, trace in chain.items():
        assert json.loads(run_trace(key)) == {"trace": trace}
    # The service worker keeps them offline, like every other file of the site; the chain's
    # once a page has opened the chain.
    service_worker = (first / "sw.js").read_text()
    assert f'["{info["shipped_traces_file"]}","{hashlib.sha256(data).hexdigest()}",true,false]' in service_worker
    assert f'["{info["chain_traces_file"]}","{hashlib.sha256(chain_data).hexdigest()}",true,true]' in service_worker

    # A second build takes it from the cache: neither Node nor Python runs.
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    second = B.build(tmp_path / "second", quiet=True)
    assert len(runs) == 1
    assert _shipped(second)[1] == data


@pytest.mark.slow
def test_without_numpy_the_same_traces_come_from_pyodide_in_node(node, traces_cache, dist, tmp_path,
                                                                 monkeypatch, capsys):
    _without_numpy(tmp_path, monkeypatch)
    site = B.build(tmp_path / "site")
    said = [line for line in capsys.readouterr().out.splitlines() if "shipped traces" in line]
    assert said == ["  shipped traces computed under Pyodide in Node: NumPy is not installed for fake-python "
                    "(pip install numpy, or pip install -e .[test], and rebuild)"]
    assert _shipped(site)[1] == _shipped(dist)[1]
    for name in ("first_minute_traces_file", "chain_traces_file"):
        published = build_info(dist)[name]
        assert (site / published).read_bytes() == (dist / published).read_bytes()


def _failing_script(tmp_path, name):
    script = tmp_path / name
    script.write_text('console.error("Error: boom"); process.exit(1);\n')
    return script


@pytest.mark.parametrize("lacking, why", [
    ("node", "node not found on PATH (the list of views comes from the front end's modules)"),
    ("numpy", "NumPy is not installed for fake-python (pip install numpy, or pip install -e .[test], and "
              "rebuild); and under Pyodide in Node: poolgrad under Pyodide (broken.mjs) failed (exit 1): "
              "Error: boom"),
])
def test_without_a_way_to_run_poolgrad_the_site_ships_no_traces_and_says_why(node, traces_cache, tmp_path,
                                                                              monkeypatch, capsys, lacking, why):
    dist = tmp_path / "site"
    B.build(dist, quiet=True)
    if lacking == "node":
        monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    else:
        _without_numpy(tmp_path, monkeypatch)
        monkeypatch.setattr(B.shipped, "PYODIDE_SCRIPT", _failing_script(tmp_path, "broken.mjs"))
    # A change to the front end: the cached traces no longer fit it.
    monkeypatch.setattr(B.shipped, "NATIVE_PROGRAM", B.shipped.NATIVE_PROGRAM + "# changed\n")
    capsys.readouterr()
    B.build(dist)
    said = [line for line in capsys.readouterr().out.splitlines() if "shipped traces" in line]
    assert said == [f"  no shipped traces: {why}; the site works, but its first view waits for Python"]
    info, data, traces = _shipped(dist)
    assert traces == {} and data == b'{"traces":{}}\n'
    assert info["shipped_traces"] == 0 and info["shipped_traces_note"] == why
    assert info["chain_traces"] == 0 and (dist / info["chain_traces_file"]).read_bytes() == b'{"traces":{}}\n'
