"""Record poolgrad.trace() answers for the front end's fast tests (tests/js/).

The pure ES modules of web/ (state, format, lesson text, player frames, guide steps) are
tested under ``node --test`` without a browser or Pyodide. They consume traces, so this
script writes real ones, computed by the very package the worker runs, to
tests/js/traces.json:

    python scripts/record_traces.py          # write the file
    python scripts/record_traces.py --check  # exit 1 if the file is out of date

Each entry is ``{"request": <trace() keyword arguments>, "trace": <its result>}``, keyed
by a name the tests use. tests/test_js_traces.py runs the check, so a change to trace()
cannot leave the JS tests reading stale answers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from poolgrad import wire

TESTS = Path(__file__).resolve().parent.parent / "tests"
OUTPUT = TESTS / "js" / "traces.json"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
from lesson_fixture import FIXTURE_ROWS as FIXTURE  # noqa: E402  (the lesson's 4 x 4 input)

AVERAGE_EXAMPLE = [[12, 10, 9, 6], [11, 8, 13, 5], [2, 14, 15, 0], [4, 3, 7, 1]]
TIES = [[3, 3, 1, 0], [2, 3, 3, 1], [0, 1, 2, 2], [1, 0, 2, 1]]

REQUESTS = {
    # The lesson's reference views: 2 x 2 / stride 2 and the overlapping 3 x 3 / stride 1.
    "fixture_k2_grad": dict(x=FIXTURE, kernel_size=2, stride=2, mode="max", grad_output=[[1, 2], [3, 4]]),
    "fixture_k3s1_grad": dict(x=FIXTURE, kernel_size=3, stride=1, mode="max", grad_output=1),
    "fixture_k2_nograd": dict(x=FIXTURE, kernel_size=2, stride=2, mode="max"),
    "average_k2_grad": dict(x=AVERAGE_EXAMPLE, kernel_size=2, stride=2, mode="avg", grad_output=[[1, 2], [3, 4]]),
    "fixture_avg_k3s1p1_grad": dict(x=FIXTURE, kernel_size=3, stride=1, padding=1, mode="avg", grad_output=1),
    "fixture_k3s1p1": dict(x=FIXTURE, kernel_size=3, stride=1, padding=1, mode="max", grad_output=1),
    "fixture_k2s1d2": dict(x=FIXTURE, kernel_size=2, stride=1, dilation=2, mode="max", grad_output=1),
    "ties_k2": dict(x=TIES, kernel_size=2, stride=2, mode="max", grad_output=1),
    "nan_k2": dict(x=[[1.0, "NaN"], ["-Infinity", 2.5]], kernel_size=2, mode="max", grad_output=1),
    # The rest of the family: adaptive windows that vary and share cells, unpooling, LP.
    "adaptive_avg_5to3_grad": dict(x=[[5 * r + c + 1 for c in range(5)] for r in range(5)],
                                   output_size=[3, 3], mode="adaptive_avg", grad_output=1),
    "adaptive_max_5to3_unpool": dict(x=[[5 * r + c + 1 for c in range(5)] for r in range(5)],
                                     output_size=[3, 3], mode="adaptive_max", grad_output=1, unpool=True),
    "global_avg_fixture": dict(x=FIXTURE, output_size=[1, 1], mode="adaptive_avg", grad_output=1),
    "fixture_k3s1_unpool": dict(x=FIXTURE, kernel_size=3, stride=1, mode="max", grad_output=1, unpool=True),
    "lp2_fixture_k2": dict(x=FIXTURE, kernel_size=2, stride=2, mode="lp", norm_type=2, grad_output=1),
}


def record() -> str:
    """The file's text: every request with the trace poolgrad gives for it, asked as the
    page's worker asks (poolgrad.wire, which reads the JSON spelling of non-finite values).

    >>> '"fixture_k2_grad"' in record()
    True
    """
    entries = {}
    for name, request in REQUESTS.items():
        entries[name] = {"request": request, "trace": json.loads(wire.run_trace(json.dumps(request)))["trace"]}
    # One entry a line: a change to one trace shows as one changed line in a diff.
    lines = [f"{json.dumps(name)}: {json.dumps(entry, allow_nan=False, sort_keys=True, separators=(',', ':'))}"
             for name, entry in entries.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv: list[str]) -> int:
    text = record()
    if argv == ["--check"]:
        if not OUTPUT.is_file() or OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT.name} is out of date: run python scripts/record_traces.py", file=sys.stderr)
            return 1
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(REQUESTS)} traces, {len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
