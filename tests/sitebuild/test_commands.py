"""sitebuild/commands.py and build.py: one argument parser, one line per error, the
workflow that builds with it, and every sitebuild module's examples."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sitebuild as B  # on the path through tests/conftest.py

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_builder_does_no_work():
    # Module level only defines names: a fresh import in a subprocess prints nothing and
    # creates no dist/ or cache.
    env = dict(os.environ, POOLGRAD_CACHE=str(REPO / "nonexistent-cache-dir"))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import sitebuild as m; "
            "print(sorted(n for n in ('build', 'make_server', 'MIME_TYPES', 'find_chromium', 'DIST', 'WEB') "
            "if hasattr(m, n)))")
    r = subprocess.run([sys.executable, "-c", code, str(REPO)], capture_output=True, text=True, env=env, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "['DIST', 'MIME_TYPES', 'WEB', 'build', 'find_chromium', 'make_server']"
    assert not (REPO / "nonexistent-cache-dir").exists()


def test_build_py_is_a_thin_entry_with_one_argument_parser(capsys):
    # build.py only hands the command line to sitebuild.commands.main, whose one parser
    # gives every command's usage and refuses what it does not know.
    entry = (REPO / "build.py").read_text()
    assert "from sitebuild.commands import main" in entry and len(entry.splitlines()) < 40
    assert B.main(["--help"]) == 0
    usage = capsys.readouterr().out
    for command in ("build", "serve", "test", "bench", "bundle"):
        assert f"    {command} " in usage
    assert B.main(["bench", "--engine", "safari"]) == 2
    assert "invalid choice: 'safari'" in capsys.readouterr().err
    assert B.main(["serve", "--nope"]) == 2
    assert "unrecognized arguments for serve: --nope" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_the_test_commands_help_is_its_own_and_builds_nothing(flag, capsys, monkeypatch):
    def forbidden(*_args, **_kwargs):
        raise AssertionError("the help built or tested")

    for module, name in ((B.commands, "run_tests"), (B.assembly, "build"), (B.commands, "install_test_deps")):
        monkeypatch.setattr(module, name, forbidden)
    assert B.main(["test", flag]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert help_text.startswith("usage: python build.py test [-h] [--fast]")
    assert f"-m '{B.commands.FAST_TIER}'" in help_text
    assert "Every other argument goes to pytest as it is" in help_text
    assert "python -m pytest --help" in help_text  # pytest's own options, named not printed
    assert "pytest-timeout" not in help_text

def test_serve_reports_a_port_in_use_in_one_line(site, capsys, monkeypatch):
    first = B.make_server(site, request_log=[])
    monkeypatch.setattr(B.paths, "DIST", site)
    try:
        rc = B.main(["serve", "--no-build", "--port", str(first.server_address[1])])
    finally:
        first.server_close()
    err = capsys.readouterr().err
    assert rc == 1
    assert err.count("\n") == 1 and err.startswith("error: port ") and "--port" in err


def test_a_full_disk_is_one_clear_line(monkeypatch, capsys):
    import errno

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", "dist/pyodide/pyodide.asm.wasm")

    monkeypatch.setattr(B.assembly, "build", full)
    assert B.main(["build"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: disk full while writing dist/pyodide/pyodide.asm.wasm") and err.count("\n") == 1


def test_an_unexpected_error_is_one_line_without_traceback(monkeypatch, capsys):
    monkeypatch.delenv("POOLGRAD_DEBUG", raising=False)
    monkeypatch.setattr(B.assembly, "build", lambda *a, **k: 1 / 0)
    assert B.main(["build"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "ZeroDivisionError" in err


def test_the_pages_workflow_is_valid_yaml_that_builds_with_build_py_and_deploys_dist():
    try:
        import yaml
    except ImportError:
        pytest.fail("PyYAML is missing: it is in the [test] extra (`python build.py test` installs it)")
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers and "workflow_dispatch" in triggers
    assert workflow["permissions"] == {"contents": "read"}
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    uses = [step["uses"].split("@")[0] for step in steps if "uses" in step]
    for action in ("actions/checkout", "actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"):
        assert action in uses, action
    runs = [step["run"] for step in steps if "run" in step]
    assert any(re.search(r"^python build\.py\s*$", run, re.M) for run in runs), runs
    upload = next(step for step in steps if step.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "dist"
    deploy_job = next(job for job in workflow["jobs"].values()
                      if any(s.get("uses", "").startswith("actions/deploy-pages") for s in job["steps"]))
    assert deploy_job["environment"]["name"] == "github-pages" and deploy_job["needs"]
    # Write permissions for the job that deploys, and for no other.
    assert deploy_job["permissions"] == {"pages": "write", "id-token": "write"}
    for job in workflow["jobs"].values():
        if job is not deploy_job:
            assert not any(v == "write" for v in job.get("permissions", {}).values())
            assert not any("deploy-pages" in s.get("uses", "") or "configure-pages" in s.get("uses", "")
                           for s in job["steps"])


def _needs(job):
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else needs


def test_the_pages_workflow_runs_the_fast_tests_before_it_builds_and_deploys():
    import yaml

    jobs = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())["jobs"]
    runs = {name: "\n".join(s.get("run", "") for s in job["steps"]) for name, job in jobs.items()}
    testing = [name for name, run in runs.items() if "python -m pytest" in run and "node --test" in run]
    assert testing, runs
    building = next(name for name, run in runs.items() if re.search(r"^python build\.py\s*$", run, re.M))

    def upstream(name):
        seen = set(_needs(jobs[name]))
        for need in list(seen):
            seen |= upstream(need)
        return seen

    assert set(testing) & upstream(building)
    # Fast: nothing that starts a browser (those need the built site and its browsers).
    for name in testing:
        assert "tests/web" not in runs[name] and "tests/engines" not in runs[name]
        assert "build.py test" not in runs[name]


def test_the_pages_cache_key_hashes_everything_the_cached_snapshots_depend_on():
    import fnmatch

    import yaml

    jobs = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())["jobs"]
    cache = next(s for job in jobs.values() for s in job["steps"] if s.get("uses", "").startswith("actions/cache"))
    assert cache["with"]["path"] == "~/.cache/poolgrad"
    patterns = re.findall(r"'([^']+)'", re.search(r"hashFiles\(([^)]*)\)", cache["with"]["key"]).group(1))
    # What pyodide_snapshot() keys the cached snapshots by: the pins (the core, the lock,
    # the wheels, the versions), the scripts it runs, and the module that makes them.
    inputs = [REPO / "sitebuild" / "pins.py", REPO / "sitebuild" / "snapshot.py",
              B.snapshot.SNAPSHOT_SCRIPT, B.snapshot.SNAPSHOT_RESTORE]
    for path in inputs:
        relative = path.relative_to(REPO).as_posix()
        assert path.is_file(), relative
        assert any(fnmatch.fnmatch(relative, pattern.replace("**/", "*")) or fnmatch.fnmatch(relative, pattern)
                   for pattern in patterns), (relative, patterns)
    assert "build.py" not in patterns  # 24 lines that never change: it keyed nothing


def test_build_py_examples_run():
    import doctest
    attempted = 0
    for module in (B.assembly, B.server, B.common, B.snapshot, B.shipped, B.devenv):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted >= 5


@pytest.mark.slow  # a collection of the whole suite: tens of seconds
def test_the_fast_tier_runs_every_native_test_file_and_no_browser():
    # pytest's own selection with the fast tier's expression: no test of tests/web or
    # tests/engines, and every test file with a native test (one that opens no browser)
    # keeps at least one test (a file can only leave the tier test by test, each marked
    # slow). A file of browser tests outside those folders (tests/notebook's JupyterLab
    # tests, which take the `browser` fixture) is left out whole, by its markers.
    def collect(expression):
        r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                            "-m", expression], capture_output=True, text=True, cwd=REPO)
        assert r.returncode in (0, 5), r.stdout[-2000:] + r.stderr[-2000:]
        return {line.split("::")[0] for line in r.stdout.splitlines() if "::" in line}

    collected = collect(B.commands.FAST_TIER)
    assert not [f for f in collected if f.startswith(("tests/web/", "tests/engines/"))]
    native = {f for f in collect("not browser and not engines") if f.startswith("tests/")}
    assert native and native <= collected, sorted(native - collected)
    assert "tests/notebook/test_lesson_notebook.py" in collected
    assert any(f.startswith("py/poolgrad/") for f in collected)  # the doctests
