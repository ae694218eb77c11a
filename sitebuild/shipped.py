"""The traces of the views a learner lands on, computed at build time by poolgrad itself
(the very package the worker runs) and shipped in the site, so the first view answers
before Python has started in the browser; and, in a second file the page reads after
first paint, the traces of the first minute's views (one control change from a landing
view), so that no first change waits for Python either; and, in a third file the page
reads only when the chain view is first opened, the chain's landing views (its presets).

The views and the key each trace is filed under come from the front end
(web/lesson/first-views.js and web/chain/first-views.js, through sitebuild/shipped_views.mjs
under Node): each key is the page's own request text (web/widget/state.js requestKey, the
chain's web/chain/request.js chainRequestKey), handed as it is to ``poolgrad.wire.run_trace``,
the function the worker calls. poolgrad runs natively, in a subprocess of a Python that
has NumPy (this one, with the repository's py/ first on its path); when this Python has no
NumPy, the same sources run under the vendored Pyodide in Node
(sitebuild/pyodide_traces.mjs). The result is cached by the sha256 of its inputs; without
Node the site ships no traces and says why.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from .common import atomic_write_bytes, last_output_line, say, sha256_of
from .paths import ROOT, WEB
from .pins import PYODIDE_WHEELS
from .snapshot import SnapshotUnavailable, node_for_snapshot

SHIPPED_TRACES_FILE = "shipped-traces.json"  # at the site's root, beside app.js
FIRST_MINUTE_TRACES_FILE = "first-minute-traces.json"  # beside it
CHAIN_TRACES_FILE = "chain-traces.json"  # beside it; read when the chain view opens
HERE = Path(__file__).resolve().parent  # the Node helpers sit beside the code that runs them
VIEWS_SCRIPT = HERE / "shipped_views.mjs"
PYODIDE_SCRIPT = HERE / "pyodide_traces.mjs"
PACKAGE = ROOT / "py" / "poolgrad"
TIMEOUT_S = 120

# Run by the native Python: every key through the worker's own entry point.
NATIVE_PROGRAM = """\
import json, sys
from poolgrad.wire import run_trace
keys = json.load(sys.stdin)
json.dump([json.loads(run_trace(key)) for key in keys], sys.stdout)
"""


class TracesUnavailable(Exception):
    """Why no traces could be computed; the site is built without them."""


def _run(command: list[str], what: str, *, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """``command`` run to its end (``what`` names it in the message if it cannot run)."""
    try:
        return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, timeout=TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise TracesUnavailable(f"{what} did not run: {e}") from None


def _json_from(command: list[str], what: str, *, stdin: str | None = None, env: dict | None = None):
    """What ``command`` printed, read as JSON (None when it is not JSON); a failed run
    raises TracesUnavailable."""
    proc = _run(command, what, stdin=stdin, env=env)
    if proc.returncode != 0:
        raise TracesUnavailable(f"{what} failed (exit {proc.returncode}): {last_output_line(proc)}")
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return None


def view_keys() -> tuple[list[str], list[str], list[str]]:
    """The request keys of the landing views, of the first minute's views and of the chain's
    landing views, as the front end spells them (Node runs sitebuild/shipped_views.mjs).
    Raises TracesUnavailable."""
    try:
        node = node_for_snapshot()
    except SnapshotUnavailable as why:
        raise TracesUnavailable(f"{why} (the list of views comes from the front end's modules)") from None
    printed = _json_from([node, str(VIEWS_SCRIPT)], VIEWS_SCRIPT.name)
    names = ("landing", "first_minute", "chain")
    lists = [printed.get(name) if isinstance(printed, dict) else None for name in names]
    if not all(isinstance(keys, list) and keys and all(isinstance(key, str) for key in keys) for keys in lists):
        raise TracesUnavailable(f'{VIEWS_SCRIPT.name} printed no JSON {{"landing": [keys], "first_minute": [keys], '
                                f'"chain": [keys]}}')
    return lists[0], lists[1], lists[2]


def native_python(python: str | None = None) -> tuple[str, dict]:
    """``python`` (default: this one) and the environment in which it imports the
    repository's poolgrad. Raises TracesUnavailable when NumPy is not installed for it."""
    python = python or sys.executable
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(PACKAGE.parent), os.environ.get("PYTHONPATH")])))
    if _run([python, "-c", "import numpy"], python, env=env).returncode != 0:
        raise TracesUnavailable(f"NumPy is not installed for {Path(python).name} "
                                f"(pip install numpy, or pip install -e .[test], and rebuild)")
    return python, env


def _answers(command: list[str], keys: list[str], what: str, env: dict | None = None) -> list:
    answers = _json_from(command, what, stdin=json.dumps(keys), env=env)
    if not (isinstance(answers, list) and len(answers) == len(keys)):
        raise TracesUnavailable(f"{what} printed no JSON list of {len(keys)} answers")
    return answers


def native_answers(keys: list[str]) -> list:
    """poolgrad.wire.run_trace's answer to every key, from a native Python with NumPy.
    Raises TracesUnavailable."""
    python, env = native_python()
    return _answers([python, "-c", NATIVE_PROGRAM], keys, "poolgrad", env)


def pyodide_answers(keys: list[str], core: Path, wheels: Path) -> list:
    """The same answers from poolgrad's sources under the Pyodide core in ``core`` (with the
    NumPy wheel from ``wheels``) in Node. Raises TracesUnavailable."""
    try:
        node = node_for_snapshot()
    except SnapshotUnavailable as why:
        raise TracesUnavailable(str(why)) from None
    numpy_wheel = Path(wheels) / PYODIDE_WHEELS["numpy"][0]
    command = [node, str(PYODIDE_SCRIPT), str(core), str(PACKAGE), str(numpy_wheel)]
    return _answers(command, keys, f"poolgrad under Pyodide ({PYODIDE_SCRIPT.name})")


def compute_traces(keys: list[str], core: Path, wheels: Path, quiet: bool = True,
                   first_minute: list[str] = (), chain: list[str] = ()) -> tuple[dict, dict, dict]:
    """``({key: trace}, {key: trace}, {key: trace})`` for the landing views' ``keys``, the
    first minute's and the chain's landing views, in one run of poolgrad natively, or under
    Pyodide in Node when this Python has no NumPy. Raises TracesUnavailable, also when
    poolgrad refuses a landing view of either view (it must be a valid one); a first-minute
    view poolgrad refuses gets no trace (its refusal comes from Python, as for any view not
    shipped)."""
    every = [*keys, *first_minute, *chain]
    try:
        answers = native_answers(every)
    except TracesUnavailable as native:
        try:
            answers = pyodide_answers(every, core, wheels)
        except TracesUnavailable as pyodide:
            raise TracesUnavailable(f"{native}; and under Pyodide in Node: {pyodide}") from None
        say(f"  shipped traces computed under Pyodide in Node: {native}", quiet)
    landing, minute, chained = {}, {}, {}
    minute_start, chain_start = len(keys), len(keys) + len(first_minute)
    for index, (key, answer) in enumerate(zip(every, answers)):
        table = landing if index < minute_start else minute if index < chain_start else chained
        if isinstance(answer, dict) and "trace" in answer:
            table[key] = answer["trace"]
        elif table is not minute:
            why = answer.get("error") if isinstance(answer, dict) else answer
            raise TracesUnavailable(f"poolgrad refused a landing view ({why}): {key[:120]}")
        elif not (isinstance(answer, dict) and isinstance(answer.get("error"), str)):
            raise TracesUnavailable(f"poolgrad gave no answer for a first-minute view ({answer!r:.80}): {key[:120]}")
    return landing, minute, chained


def traces_file(traces: dict) -> bytes:
    """The shipped file's bytes: ``{"traces": {key: trace}}``, compact, one trace a line
    (a change to one view shows as one changed line).

    >>> data = traces_file({'{"x":[[1]]}': {"output": [[1]]}})
    >>> json.loads(data), data.count(b"\\n")
    ({'traces': {'{"x":[[1]]}': {'output': [[1]]}}}, 3)
    >>> traces_file({})
    b'{"traces":{}}\\n'
    """
    compact = {"separators": (",", ":"), "allow_nan": False}
    lines = [f"{json.dumps(key)}:{json.dumps(trace, **compact)}" for key, trace in traces.items()]
    body = "\n" + ",\n".join(lines) + "\n" if lines else ""
    return f'{{"traces":{{{body}}}}}\n'.encode()


def _inputs_digest() -> str:
    h = hashlib.sha256(NATIVE_PROGRAM.encode())
    files = [VIEWS_SCRIPT, PYODIDE_SCRIPT, *sorted(WEB.rglob("*.js")), *sorted(PACKAGE.rglob("*.py"))]
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
            h.update(f"{name}\0{sha256_of(path)}\n".encode())
    return h.hexdigest()


def shipped_traces(cache: Path, core: Path, wheels: Path, quiet: bool = True) -> tuple[Path, Path, Path]:
    """The shipped traces files (the landing views', the first minute's, the chain's) for
    the current front end and package: computed once, then taken from the cache (keyed by
    the sha256 of web/'s modules, poolgrad's sources and the scripts), so a warm build runs
    neither Node nor Python. ``core`` and ``wheels`` hold the verified Pyodide core and
    wheels, for a machine without NumPy. Raises TracesUnavailable."""
    folder = cache / "shipped-traces" / _inputs_digest()[:24]
    files = [folder / name for name in (SHIPPED_TRACES_FILE, FIRST_MINUTE_TRACES_FILE, CHAIN_TRACES_FILE)]
    if not all(path.is_file() for path in files):
        keys, first_minute, chain = view_keys()
        tables = compute_traces(keys, core, wheels, quiet, first_minute, chain)
        for path, table in zip(files, tables):
            atomic_write_bytes(path, traces_file(table))
    return files[0], files[1], files[2]
