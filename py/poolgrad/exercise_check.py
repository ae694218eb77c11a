"""Judges a learner's answer to one of the lesson's exercises against :mod:`poolgrad.exercises`.

The cases are the lesson's examples and cases made to break one rule each (ties,
negatives, sizes that do not divide, overlapping windows, integer dtypes, rounding; for the
chain's exercises a 1 x 1 filter, a filter as big as its input, an asymmetric filter,
negative and non-square inputs, the mean over every cell); their expected answers are
computed when this module is imported. :mod:`poolgrad.exercise_run`
runs the learner's code on the cases' inputs (:func:`case_inputs`) and reports what it
returned as plain data; :func:`judge` compares those reports with the expected answers,
stops at the first case that is wrong and says which rule that case tests, so the page can
show the case with each wrong cell marked: a pooling case in the widget's grids, a chain
case (a bare function call, with no pooling or loss around it) in the panel's own.

In the page the two halves never share a Python: the judge lives in a worker that runs no
learner code (web/exercise/exercise-judge.js, entry :func:`run_check`), the learner's code
in a fresh worker per Run, so nothing that code does can change what any case expects or
how it is compared. :func:`check` runs both halves here, for native use and tests.

Every answer is a JSON-safe dict with ``state`` (``"pass"``, ``"fail"``, ``"error"`` or
``"timeout"``) and a ``sentence`` for the learner; a ``fail`` (and an ``error`` raised
while a case ran) also carries the ``case`` and, cell by cell, the ``mismatches``
(``{grid, row, col, expected, got}``; ``grid`` is ``"output"`` or ``"grad-input"`` for the
pooling exercises, ``"grad-weight"`` and ``"grad-input"`` for ``conv2d_backward``,
``"grad-prediction"`` for ``mse_loss_backward``). Numbers
the learner's code returned that strict JSON cannot write travel as ``"NaN"``,
``"Infinity"`` and ``"-Infinity"``, as :mod:`poolgrad.json_numbers` writes them.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import exercise_run, exercises
from .exercise_run import clip as _clip
from .exercise_run import number as _number
from .json_numbers import NUMBER_NAMES

#: The names the page uses for the exercises, and the function each one asks for.
FUNCTION_NAMES = {exercise: function.__name__ for exercise, function in exercise_run.REFERENCES.items()}

#: How far two gradient cells may differ and still agree (the answers are rounded to 4
#: decimals; this only absorbs how the rounding itself was done).
GRADIENT_TOLERANCE = 1e-9

#: The chain's exercises are not rounded: a cell agrees within this much, relative to the
#: expected value's size (at least 1), whatever order the learner's sums run in.
CHAIN_TOLERANCE = 1e-9

#: Each rule a case can test, as the sentence that names it.
RULES = {
    "example": "the lesson's example",
    "fixture": "the widget's fixture: the 4 x 4 input the grids start with",
    "negatives": "negatives: the maximum of negative numbers is negative (do not start from 0)",
    "leftover": "sizes that do not divide: leftover rows and columns are dropped",
    "pool-size": "pool_size: it is the window's side and the stride",
    "non-square": "non-square inputs: rows and columns are counted separately",
    "dtype": "dtype: the output keeps the input's dtype (integers stay integers)",
    "ties": "ties: the first maximum in reading order wins",
    "overlap": "overlap: where windows overlap (stride < pool_size), gradients that reach the same cell add up",
    "gaps": "gaps: with stride > pool_size, cells between windows get 0",
    "rounding": "rounding: results are rounded to 4 decimals",
    "random": "random inputs: every rule at once",
    "flip": "the flipped filter: dL/dX correlates dL/dY with w turned 180° (both axes), and dL/dW is x ⋆ dL/dY",
    "one-by-one": "a 1 x 1 filter: dL/dY is as big as x, and dL/dW sums x · dL/dY over every cell",
    "whole-filter": "a filter as big as its input: one output, so dL/dW = x · dL/dY and dL/dX = w · dL/dY",
    "signs": "negative values: each product keeps its sign in the sums",
    "decimals": "decimals: no rounding; each cell is compared to within 1e-9",
    "mean": "the mean: divide by n, the number of cells (rows × columns)",
    "direction": "the sign: 2/n (prediction − target) is positive where the prediction is too high",
    "perfect": "a perfect prediction: the gradient is 0 everywhere",
    "one-cell": "one cell: n = 1, so the gradient is 2 (prediction − target)",
    "return-type": "the return type",
    "shape": "the output's shape",
}


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: its arguments and the reference's answer."""

    rule: str
    x: np.ndarray
    pool_size: int
    stride: int
    grad_output: list | None
    expected: Any


def _forward_case(rule, image, pool_size=2):
    # Python ints become int64 everywhere (NumPy's default integer is int32 under Pyodide).
    image = np.asarray(image, dtype=np.int64) if isinstance(image, list) else image
    return Case(rule, image, pool_size, pool_size, None, exercises.max_pool2d(image, pool_size))


def _backward_case(rule, input_map, grad_output, pool_size=2, stride=2):
    expected = exercises.max_pool2d_backward(input_map, grad_output, pool_size, stride)
    return Case(rule, np.asarray(input_map), pool_size, stride, grad_output, expected)


def _random_ints(seed, shape, low=-9, high=9):
    """Small integers, so windows often tie, from a fixed seed (the same cases every run).
    Drawn with Python's ``random``, not ``numpy.random``: the page's NumPy leaves that
    module out (docs/startup.md), and the checker runs in every exercise Python.

    >>> _random_ints(1, (2, 3)).tolist()
    [[-5, 9, -7], [-1, -6, 6]]
    """
    draw = random.Random(seed)
    return np.array([draw.randint(low, high) for _ in range(math.prod(shape))]).reshape(shape)


FIXTURE = [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]]


def _forward_cases():
    return (
        _forward_case("example", [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]),
        _forward_case("negatives", [[-1, -2, -7, -3], [-5, -4, -8, -6]]),
        _forward_case("fixture", FIXTURE),
        _forward_case("leftover", np.arange(30).reshape(5, 6) * 0.5, pool_size=3),
        _forward_case("leftover", [[4, 1, 0, 2, 9], [3, 8, 5, 6, 9], [9, 9, 9, 9, 9]]),
        _forward_case("pool-size", [[3, 1, 2], [0, 5, 4]], pool_size=1),
        _forward_case("pool-size", np.arange(36).reshape(6, 6)[::-1] % 7, pool_size=3),
        _forward_case("non-square", [[1, 9, 2, 8, 3, 7], [6, 4, 5, 5, 4, 6], [0, 1, 0, 1, 0, 1], [2, 0, 2, 0, 2, 0]]),
        _forward_case("dtype", np.array([[1, -2, 3, 4], [120, 6, -128, 8]], dtype=np.int8)),
        _forward_case("dtype", np.array([[0.5, -1.5], [2.25, 1.0]], dtype=np.float32)),
        _forward_case("dtype", np.array([[7, 3, 1], [2, 9, 4], [8, 6, 5]], dtype=np.uint16), pool_size=2),
        _forward_case("random", _random_ints(1, (7, 5)), pool_size=2),
        _forward_case("random", _random_ints(2, (9, 8)).astype(np.int32), pool_size=3),
    )


def _backward_cases():
    return (
        _backward_case("example", [[1, 3, 2, 4], [5, 2, 8, 6], [3, 7, 1, 5], [2, 4, 9, 0]],
                       [[1.5, 2.5], [3.5, 4.5]]),
        _backward_case("example", [[10, 20], [15, 5]], [[1]]),
        _backward_case("overlap", [[1, 5, 2], [3, 4, 1]], [[1, 2]], 2, 1),
        _backward_case("negatives", [[-3, -1, -8, -9], [-2, -5, -7, -4]], [[1, 2]]),
        _backward_case("fixture", FIXTURE, [[1, 2], [3, 4]]),
        _backward_case("ties", [[5, 5], [5, 5]], [[1]]),
        _backward_case("ties", [[1, 7, 3, 3], [7, 2, 3, 3]], [[2, 3]]),
        _backward_case("overlap", FIXTURE, [[1, 2], [3, 4]], 3, 1),
        _backward_case("leftover", [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15],
                                    [16, 17, 18, 19, 20], [21, 22, 23, 24, 25]], [[1, 2], [3, 4]]),
        _backward_case("gaps", [[1, 2, 0, 3, 4], [5, 6, 0, 7, 8]], [[1, 2]], 2, 3),
        _backward_case("rounding", [[1, 2, 4, 3], [3, 4, 2, 1]], [[1 / 3, 2 / 3]]),
        _backward_case("random", _random_ints(3, (6, 7)).tolist(),
                       _random_ints(4, (2, 3), 1, 5).tolist(), 3, 2),
        _backward_case("random", _random_ints(5, (5, 5)).tolist(),
                       (_random_ints(6, (4, 4), -9, 9) / 4).tolist(), 2, 1),
    )


@dataclass(frozen=True)
class ConvCase:
    """One call of ``conv2d_backward(x, w, grad_output)`` and the reference's
    ``(grad_w, grad_x)``."""

    rule: str
    x: np.ndarray
    w: np.ndarray
    grad_output: np.ndarray
    expected: tuple


@dataclass(frozen=True)
class LossCase:
    """One call of ``mse_loss_backward(prediction, target)`` and the reference's gradient."""

    rule: str
    prediction: np.ndarray
    target: np.ndarray
    expected: np.ndarray


def _conv_case(rule, x, w, grad_output):
    x, w, grad_output = (np.asarray(values, dtype=np.float64) for values in (x, w, grad_output))
    return ConvCase(rule, x, w, grad_output, exercises.conv2d_backward(x, w, grad_output))


def _loss_case(rule, prediction, target):
    prediction, target = np.asarray(prediction, dtype=np.float64), np.asarray(target, dtype=np.float64)
    return LossCase(rule, prediction, target, exercises.mse_loss_backward(prediction, target))


#: The lesson's conv example (its numbers are recorded in tests/data/golden.npz, "lesson/").
LESSON_X = [[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]]
VERTICAL_EDGE = [[1, 0, -1], [1, 0, -1], [1, 0, -1]]


def _conv_cases():
    return (
        _conv_case("example", LESSON_X, VERTICAL_EDGE, np.arange(1, 10).reshape(3, 3)),
        _conv_case("flip", [[1, 2, 0, 3], [0, 1, 2, 1], [3, 0, 1, 2], [1, 1, 0, 2]], [[1, 2], [3, 4]],
                   [[1, 0, 2], [0, 3, 1], [2, 1, 0]]),
        _conv_case("one-by-one", [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], [[3]],
                   [[1, 0, -1, 2], [0, 2, 1, 0], [1, 1, 0, -2]]),
        _conv_case("whole-filter", [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[0, 1, 0], [2, 0, -1], [0, -3, 1]], [[2]]),
        _conv_case("signs", [[-1, 2, -3], [4, -5, 6], [-7, 8, -9]], [[-1, 0], [2, -2]], [[-1, 2], [3, -4]]),
        _conv_case("non-square", np.arange(24).reshape(4, 6) % 5, [[1, 0, -1], [2, 1, 0]],
                   [[1, 2, 0, 1], [0, -1, 3, 2], [2, 0, 1, -1]]),
        _conv_case("decimals", [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]], [[0.1, -0.3], [0.7, 0.2]],
                   [[0.3, -0.1], [0.6, 0.7]]),
        _conv_case("random", _random_ints(7, (6, 5)), _random_ints(8, (3, 2), -3, 3),
                   _random_ints(9, (4, 4)) / 4),
    )


def _loss_cases():
    return (
        # The capstone's pooled output Y2 against its target T.
        _loss_case("example", [[4, 2], [3.5, 3]], [[2, 1], [0, 3]]),
        _loss_case("mean", [[1, 2, 3], [4, 5, 6]], [[0, 0, 0], [0, 0, 0]]),
        _loss_case("direction", [[-1, 2], [0, -3]], [[1, -2], [0, -1]]),
        _loss_case("perfect", [[1.5, -2], [0, 7]], [[1.5, -2], [0, 7]]),
        _loss_case("one-cell", [[5]], [[2]]),
        _loss_case("non-square", [[1, 0, 2, 0, 3], [0, 1, 0, 2, 0]], [[0, 0, 0, 0, 0], [1, 1, 1, 1, 1]]),
        _loss_case("decimals", [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]], np.zeros((3, 3))),
        _loss_case("random", _random_ints(10, (4, 4)) / 2, _random_ints(11, (4, 4)) / 2),
    )


#: Every exercise's cases, in the order they are tried: the lesson's examples first.
CASES = {"forward": _forward_cases(), "backward": _backward_cases(), "conv2d_backward": _conv_cases(),
         "mse_loss_backward": _loss_cases()}


class _Verdict(Exception):
    """The learner's answer to one case is wrong; carries the failure's fields."""

    def __init__(self, rule, detail, got=None, mismatches=()):
        super().__init__(detail)
        self.rule = rule
        self.detail = detail
        self.got = got
        self.mismatches = list(mismatches)


def case_inputs(exercise: str) -> list:
    """The inputs of ``exercise``'s cases as plain data, the form the exercise worker runs
    the learner's code on (no expected answer in it).

    >>> case_inputs("backward")[1]
    {'x': [[10, 20], [15, 5]], 'pool_size': 2, 'stride': 2, 'grad_output': [[1]]}
    >>> case_inputs("mse_loss_backward")[4]
    {'prediction': [[5.0]], 'target': [[2.0]]}
    """
    cases = CASES[exercise]
    if exercise == "forward":
        return [{"x": case.x.tolist(), "dtype": case.x.dtype.str, "pool_size": case.pool_size,
                 "stride": case.stride} for case in cases]
    if exercise == "backward":
        return [{"x": case.x.tolist(), "pool_size": case.pool_size, "stride": case.stride,
                 "grad_output": [list(row) for row in case.grad_output]} for case in cases]
    if exercise == "conv2d_backward":
        return [{"x": case.x.tolist(), "w": case.w.tolist(), "grad_output": case.grad_output.tolist()}
                for case in cases]
    return [{"prediction": case.prediction.tolist(), "target": case.target.tolist()} for case in cases]


def case_inputs_json(exercise: str) -> str:
    """:func:`case_inputs` as the JSON text the page hands, untouched, to the exercise worker."""
    return json.dumps(case_inputs(exercise), allow_nan=False)


def check(fn_or_source: Callable | str, exercise: str) -> dict:
    """Run the learner's answer to ``exercise`` (``"forward"``, ``"backward"``,
    ``"conv2d_backward"`` or ``"mse_loss_backward"``) on every case and judge what it
    returned; the answer says what happened, as JSON-safe data.

    The answer is a function (from Python: ``check(my_max_pool2d, "forward")``) or the
    source text that defines it under the exercise's name, as the page's panel sends it.
    Here it runs in this Python (:mod:`poolgrad.exercise_run`): natively this is a teaching
    aid, not a sandbox; the page runs it in a worker of its own.

    >>> good = "from poolgrad.exercises import max_pool2d"
    >>> check(good, "forward")["state"], check(good, "forward")["sentence"]
    ('pass', "All 13 cases pass: the lesson's example, negatives, the widget's fixture, sizes that do not divide, pool_size, non-square inputs, dtype, random inputs.")

    A function that keeps the last of equal maxima gets the ties case wrong:

    >>> last_wins = '''
    ... def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):
    ...     rows, cols = len(input_map), len(input_map[0])
    ...     grad = [[0.0] * cols for _ in range(rows)]
    ...     for i, grad_row in enumerate(grad_output):
    ...         for j, g in enumerate(grad_row):
    ...             cells = [(r, c) for r in range(i * stride, i * stride + pool_size)
    ...                      for c in range(j * stride, j * stride + pool_size)]
    ...             best = max(input_map[r][c] for r, c in cells)
    ...             r, c = [cell for cell in cells if input_map[cell[0]][cell[1]] == best][-1]
    ...             grad[r][c] = round(grad[r][c] + g, 4)
    ...     return grad
    ... '''
    >>> answer = check(last_wins, "backward")
    >>> answer["state"], answer["rule"], answer["sentence"]
    ('fail', 'ties', 'Case 6 of 13 fails on ties: the first maximum in reading order wins. 2 cells differ from the reference: the case is loaded into the grids, wrong input-gradient cells marked.')
    >>> answer["mismatches"]
    [{'grid': 'grad-input', 'row': 0, 'col': 0, 'expected': 1.0, 'got': 0.0}, {'grid': 'grad-input', 'row': 1, 'col': 1, 'expected': 0.0, 'got': 1.0}]

    >>> check("def max_pool2d(image, pool_size=2)\\n    return image", "forward")["sentence"]
    "SyntaxError on line 1 of your code: expected ':'."

    A function works as well as its source:

    >>> def first_cell(image, pool_size=2):
    ...     return image[::pool_size, ::pool_size]
    >>> check(first_cell, "forward")["sentence"][:49]
    "Case 1 of 13 fails on the lesson's example. 4 cel"

    The chain's exercises are checked the same way; conv2d_backward returns two grids, and
    each wrong cell says which:

    >>> unflipped = '''
    ... import numpy as np
    ... from numpy.lib.stride_tricks import sliding_window_view
    ... def conv2d_backward(x, w, grad_output):
    ...     grad_w = np.einsum("ijab,ij->ab", sliding_window_view(x, w.shape), grad_output)
    ...     padded = np.pad(grad_output, [(w.shape[0] - 1,) * 2, (w.shape[1] - 1,) * 2])
    ...     grad_x = np.einsum("rcab,ab->rc", sliding_window_view(padded, w.shape), w)
    ...     return grad_w, grad_x
    ... '''
    >>> answer = check(unflipped, "conv2d_backward")
    >>> answer["sentence"]
    "Case 1 of 8 fails on the lesson's example. 25 cells differ from the reference (25 of dL/dX): the case is shown below, wrong cells marked."
    >>> answer["mismatches"][0]
    {'grid': 'grad-input', 'row': 0, 'col': 0, 'expected': 1.0, 'got': -1.0}
    """
    _check_exercise(exercise)
    if not callable(fn_or_source) and not isinstance(fn_or_source, str):
        raise TypeError(f"fn_or_source must be a function or its source as a string, got "
                        f"{type(fn_or_source).__name__}")
    inputs = json.loads(case_inputs_json(exercise))
    return judge(exercise, exercise_run.run(fn_or_source, exercise, inputs))


def _check_exercise(exercise):
    if exercise not in FUNCTION_NAMES:
        raise ValueError(f"exercise must be one of {', '.join(FUNCTION_NAMES)}; got {exercise!r}")


class _Unreadable(Exception):
    """A report is not one exercise_run writes (only a learner's forgery makes one)."""


def judge(exercise: str, reports, ended: dict | None = None) -> dict:
    """The verdict on ``reports`` (:mod:`poolgrad.exercise_run`'s JSON texts, in case order),
    judged case by case against the expected answers computed at import, on the data alone.
    ``ended`` says why the reports stop, when they stop early: ``{"how": "timeout",
    "seconds": 5}`` or ``{"how": "crash", "detail": the JavaScript error's text}``.

    >>> judge("forward", [])["state"]
    'error'
    >>> judge("forward", [], {"how": "timeout", "seconds": 5})["sentence"]
    "Your code was still running after 5 s, on case 1 of 13 (the lesson's example), so it was stopped: a loop that never ends, or far too much work. The widget was not affected."
    """
    _check_exercise(exercise)
    cases = CASES[exercise]
    reports = iter(reports)
    for number, case in enumerate(cases, start=1):
        where = f"Case {number} of {len(cases)}"
        text = next(reports, None)
        if text is None:
            return _unfinished(exercise, number, len(cases), case, ended)
        try:
            report = _read(text, number)
            if "load" in report:
                return {"state": "error", "exercise": exercise, "sentence": _clip(str(report["load"]["sentence"])),
                        "line": _line(report["load"].get("line"))}
            if "raised" in report:
                raised = report["raised"]
                return {"state": "error", "exercise": exercise, "line": _line(raised.get("line")),
                        "sentence": f"{where} ({RULES[case.rule]}): {_raised_text(raised)}.",
                        "case": _describe(case, exercise, number, len(cases), None), "mismatches": []}
            JUDGES[exercise](case, report["returned"])
        except _Verdict as verdict:
            return {"state": "fail", "exercise": exercise, "rule": verdict.rule,
                    "sentence": f"{where} fails on {RULES[verdict.rule]}. {verdict.detail}",
                    "case": _describe(case, exercise, number, len(cases), verdict.got),
                    "mismatches": verdict.mismatches}
        except (_Unreadable, KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError):
            return {"state": "error", "exercise": exercise,
                    "sentence": f"{where}: what your code returned could not be read, so it cannot pass."}
    return {"state": "pass", "exercise": exercise,
            "sentence": f"All {len(cases)} cases pass: {_rules_covered(cases)}."}


def run_check(request_json: str) -> str:
    """The judge's entry (web/exercise/exercise-judge.js): ``{"exercise", "reports",
    "ended"}`` as JSON in, :func:`judge`'s answer as strict JSON out (a malformed request is
    answered with ``state`` ``"error"``).

    >>> reports = ['{"load": {"sentence": "Your code does not define max_pool2d.", "line": null}}']
    >>> json.loads(run_check(json.dumps({"exercise": "forward", "reports": reports})))["sentence"]
    'Your code does not define max_pool2d.'
    >>> json.loads(run_check('{"exercise": "sideways", "reports": []}'))["sentence"]
    "exercise must be one of forward, backward, conv2d_backward, mse_loss_backward; got 'sideways'"
    """
    try:
        request = json.loads(request_json)
        if not isinstance(request, dict) or not isinstance(request.get("reports"), list):
            raise TypeError("the request must be a JSON object with exercise and reports")
        ended = request.get("ended")
        answer = judge(request.get("exercise"), [str(text) for text in request["reports"]],
                       ended if isinstance(ended, dict) else None)
    except (ValueError, TypeError, KeyError) as refused:
        answer = {"state": "error", "sentence": str(refused)}
    return json.dumps(answer, allow_nan=False)


# ------------------------------------------------------------------ reading the reports


def _line(value):
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _read(text, number):
    report = json.loads(text)
    if not isinstance(report, dict) or len(report) != 1 or not ({"load", "raised", "returned"} & set(report)):
        raise _Unreadable(text)
    if "load" in report and number != 1:
        raise _Unreadable(text)
    if not all(isinstance(value, dict) for value in report.values()):
        raise _Unreadable(text)
    return report


def _raised_text(raised):
    """The learner's exception as the sentence says it: what, on which line, its message."""
    line = _line(raised.get("line"))
    where = f" on line {line} of your code" if line else ""
    kind, name, message = raised.get("kind"), _clip(str(raised["type"])), _clip(str(raised.get("message", "")))
    if kind == "not-implemented":
        return f"your function still raises NotImplementedError{where}: replace it with your code"
    if kind == "exit":
        return f"your function calls sys.exit({message}){where}, which would end Python: return the result instead"
    if kind == "recursion":
        return (f"RecursionError{where}: your function calls itself too deeply (more than Python's recursion "
                f"limit), or without end")
    return f"{name}{where}{': ' + message if message else ''}"


def _unfinished(exercise, number, total, case, ended):
    """The answer when the reports stop before case ``number``: the run was stopped, or
    Python itself stopped under the learner's code."""
    how = ended.get("how") if isinstance(ended, dict) else None
    where = f"case {number} of {total} ({RULES[case.rule]})"
    if how == "timeout":
        seconds = float(ended["seconds"])
        return {"state": "timeout", "exercise": exercise,
                "sentence": f"Your code was still running after {seconds:g} s, on {where}, so it was stopped: a loop "
                            f"that never ends, or far too much work. The widget was not affected."}
    if how == "crash":
        detail = _clip(str(ended.get("detail", "")))
        if "exit(" in detail or detail.startswith("Exit"):
            sentence = (f"Your code stopped Python itself ({detail}) before {where} finished: os._exit() and "
                        f"os.abort() end the whole interpreter. Remove that call; the checker needs your function "
                        f"to return.")
        elif "call stack" in detail or "too much recursion" in detail:
            sentence = (f"Your code overflowed the browser's stack on {where} ({detail}): a recursion too deep "
                        f"for the browser. Python was restarted.")
        else:
            sentence = f"Python stopped while running your code on {where} ({detail}). It was restarted."
        return {"state": "error", "exercise": exercise, "sentence": sentence}
    return {"state": "error", "exercise": exercise,
            "sentence": f"Your code's run stopped before {where} without saying why. Run it again."}


# ------------------------------------------------------------------ judging an answer


def _shape_text(shape):
    return " x ".join(str(side) for side in shape)


def _judge_forward(case, got):
    """Judges a returned value's plain data (exercise_run.returned) against the reference."""
    expected = case.expected
    if got["kind"] != "ndarray":
        raise _Verdict("return-type", f"max_pool2d must return a NumPy array; yours returned "
                                      f"{_clip(str(got['type']))}.")
    shape = tuple(int(side) for side in got["shape"])
    if shape != expected.shape:
        raise _Verdict("shape" if case.rule not in ("leftover", "pool-size", "non-square") else case.rule,
                       f"The output should be {_shape_text(expected.shape)}; yours is {_shape_text(shape)}.")
    dtype = np.dtype(str(got["dtype"]))
    if dtype.kind not in "biuf" or got["values"] is None:
        raise _Verdict("return-type", f"The output should hold numbers; yours has dtype {dtype}.")
    values = np.array(_decoded(got["values"]), dtype=dtype)
    if values.shape != shape:
        raise _Unreadable(got)
    wrong = np.argwhere(values != expected)
    if len(wrong):
        raise _Verdict(case.rule, _cells_text(len(wrong), _loaded("output")), values.tolist(),
                       [_mismatch("output", r, c, expected[r, c], values[r, c]) for r, c in wrong.tolist()])
    if dtype != expected.dtype:
        raise _Verdict("dtype", f"The input is {case.x.dtype}, so the output should be {expected.dtype}; "
                                f"yours is {dtype}.", values.tolist())


def _judge_backward(case, got):
    """Judges a returned value's plain data (exercise_run.returned) against the reference."""
    expected = case.expected
    height, width = len(expected), len(expected[0])
    rows = got.get("rows")
    if got["kind"] != "list" or rows is None:
        raise _Verdict("return-type", f"max_pool2d_backward must return a list of lists (one per row); yours "
                                      f"returned {_clip(str(got['type']))}"
                                      f"{' (call .tolist() on it)' if got['kind'] == 'ndarray' else ''}.")
    if len(rows) != height or any(len(row) != width for row in rows):
        widths = sorted({len(row) for row in rows})
        raise _Verdict("shape", f"The gradient should have {height} rows of {width} values, one per input cell; "
                                f"yours has {len(rows)} rows of {', '.join(map(str, widths)) or 'no'} values.")
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if isinstance(value, dict):
                raise _Verdict("return-type", f"Row {r}, col {c} of your gradient is {_clip(str(value['type']))}, "
                                              f"not a number.")
    values = [[_as_float(value) for value in row] for row in _decoded(rows)]
    wrong = [(r, c) for r in range(height) for c in range(width)
             if not abs(values[r][c] - expected[r][c]) <= GRADIENT_TOLERANCE]
    if wrong:
        raise _Verdict(case.rule, _cells_text(len(wrong), _loaded("input-gradient")), values,
                       [_mismatch("grad-input", r, c, expected[r][c], values[r][c]) for r, c in wrong])


def _shape_of(got):
    """A returned grid's shape (rows x the row widths, for a list), or None if it has none."""
    if got["kind"] == "ndarray":
        return tuple(int(side) for side in got["shape"])
    if got["kind"] == "list" and got.get("rows") is not None:
        widths = {len(row) for row in got["rows"]} or {0}
        return (len(got["rows"]), widths.pop()) if len(widths) == 1 else (len(got["rows"]), None)
    return None


def _grid_values(got, name):
    """The values of a returned grid of the right shape, as float64, or a verdict on why it
    holds no numbers."""
    if got["kind"] == "ndarray":
        dtype = np.dtype(str(got["dtype"]))
        if dtype.kind not in "iuf" or got["values"] is None:
            raise _Verdict("return-type", f"{name} should hold numbers; yours has dtype {dtype}.")
        return np.array(_decoded(got["values"]), dtype=np.float64)
    for r, row in enumerate(got["rows"]):
        for c, value in enumerate(row):
            if isinstance(value, dict):
                raise _Verdict("return-type", f"Row {r}, col {c} of {name} is {_clip(str(value['type']))}, "
                                              f"not a number.")
    return np.array([[_as_float(value) for value in row] for row in _decoded(got["rows"])], dtype=np.float64)


def _wrong_cells(grid, expected, values):
    """The mismatches of one grid: cells further than CHAIN_TOLERANCE (relative) from the
    reference, NaN included."""
    close = np.abs(values - expected) <= CHAIN_TOLERANCE * np.maximum(1.0, np.abs(expected))
    return [_mismatch(grid, r, c, expected[r, c], values[r, c]) for r, c in np.argwhere(~close).tolist()]


def _shape_words(shape):
    if len(shape) == 0:
        return "a single number"
    return f"{shape[0]} rows of different lengths" if shape[-1] is None else _shape_text(shape)


def _judge_conv(case, got):
    """Judges conv2d_backward's two grids, (grad_w, grad_x), each cell within CHAIN_TOLERANCE."""
    expected_w, expected_x = case.expected
    if got["kind"] != "tuple":
        what = "one grid" if got["kind"] in ("ndarray", "list") else _clip(str(got["type"]))
        raise _Verdict("return-type", f"conv2d_backward must return two grids, grad_w, grad_x (a tuple); yours "
                                      f"returned {what}.")
    if got["length"] != 2:
        raise _Verdict("return-type", f"conv2d_backward must return two grids, grad_w, grad_x; yours returned "
                                      f"{got['length']} item{'' if got['length'] == 1 else 's'}.")
    items = got["items"]
    shapes = [_shape_of(item) for item in items]
    if shapes == [expected_x.shape, expected_w.shape] and expected_x.shape != expected_w.shape:
        raise _Verdict("shape", f"dL/dW comes first, shaped like w ({_shape_text(expected_w.shape)}), then dL/dX, "
                                f"shaped like x ({_shape_text(expected_x.shape)}); yours are the other way round: "
                                f"return grad_w, grad_x.")
    for item, shape, expected, name, like in ((items[0], shapes[0], expected_w, "grad_w (dL/dW)", "w"),
                                              (items[1], shapes[1], expected_x, "grad_x (dL/dX)", "x")):
        if shape is None or item["kind"] not in ("ndarray", "list"):
            raise _Verdict("return-type", f"{name} must be a NumPy array (or a list of rows); yours is "
                                          f"{_clip(str(item['type']))}.")
        if shape != expected.shape:
            raise _Verdict("shape", f"{name} should be {_shape_text(expected.shape)}, the shape of {like}; yours is "
                                    f"{_shape_words(shape)}.")
    got_w, got_x = _grid_values(items[0], "grad_w"), _grid_values(items[1], "grad_x")
    wrong_w, wrong_x = _wrong_cells("grad-weight", expected_w, got_w), _wrong_cells("grad-input", expected_x, got_x)
    if wrong_w or wrong_x:
        parts = [f"{len(wrong)} of {name}" for wrong, name in ((wrong_w, "dL/dW"), (wrong_x, "dL/dX")) if wrong]
        raise _Verdict(case.rule, _cells_text(len(wrong_w) + len(wrong_x), f" ({', '.join(parts)}){SHOWN_BELOW}"),
                       (got_w, got_x), wrong_w + wrong_x)


def _judge_mse(case, got):
    """Judges mse_loss_backward's gradient, each cell within CHAIN_TOLERANCE."""
    expected = case.expected
    shape = _shape_of(got)
    if shape is None or got["kind"] not in ("ndarray", "list"):
        number = str(got["type"]).startswith(("float", "int"))
        raise _Verdict("return-type", f"mse_loss_backward must return a NumPy array shaped like prediction "
                                      f"({_shape_text(expected.shape)}), one gradient per cell; yours returned "
                                      f"{_clip(str(got['type']))}"
                                      f"{': the loss is one number, its gradient one per cell' if number else ''}.")
    if shape != expected.shape:
        hint = ": the loss is one number, its gradient one per cell" if len(shape) == 0 else ""
        raise _Verdict("shape", f"The gradient should be {_shape_text(expected.shape)}, the shape of prediction; "
                                f"yours is {_shape_words(shape)}{hint}.")
    values = _grid_values(got, "the gradient")
    wrong = _wrong_cells("grad-prediction", expected, values)
    if wrong:
        raise _Verdict(case.rule, _cells_text(len(wrong), SHOWN_BELOW), values, wrong)


def _decoded(values):
    """Plain data's numbers back as Python numbers (the non-finite names as floats)."""
    if isinstance(values, list):
        return [_decoded(value) for value in values]
    if isinstance(values, str):
        return NUMBER_NAMES[values]
    if isinstance(values, bool) or isinstance(values, (int, float)):
        return values
    raise _Unreadable(values)


#: Where a chain case's wrong cells are marked: the panel draws the case under the sentence.
SHOWN_BELOW = ": the case is shown below, wrong cells marked."


def _loaded(grid):
    """Where a pooling case's wrong cells are marked: in the widget's grid ``grid``."""
    return f": the case is loaded into the grids, wrong {grid} cells marked."


def _cells_text(count, where):
    """How many cells differ from the reference; ``where`` ends the sentence."""
    cells = "1 cell differs" if count == 1 else f"{count} cells differ"
    return f"{cells} from the reference{where}"


def _as_float(value):
    """``float(value)``, with an int too large for a float as an infinity."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _mismatch(grid, row, col, expected, got):
    return {"grid": grid, "row": row, "col": col, "expected": _number(expected), "got": _number(got)}


def _matrix(values):
    return [[_number(value) for value in row] for row in np.asarray(values).tolist()]


def _describe(case, exercise, number, total, got):
    """The case as the page shows it: for the pooling exercises the input, window, stride
    and upstream gradient it loads into the widget; for the chain's the function's
    arguments; and what the reference answers and what the learner's code returned."""
    if exercise == "conv2d_backward":
        return {"number": number, "total": total, "rule": case.rule, "x": _matrix(case.x), "w": _matrix(case.w),
                "grad_output": _matrix(case.grad_output),
                "expected": {"grad_w": _matrix(case.expected[0]), "grad_x": _matrix(case.expected[1])},
                "got": None if got is None else {"grad_w": _matrix(got[0]), "grad_x": _matrix(got[1])}}
    if exercise == "mse_loss_backward":
        return {"number": number, "total": total, "rule": case.rule, "prediction": _matrix(case.prediction),
                "target": _matrix(case.target), "expected": _matrix(case.expected),
                "got": None if got is None else _matrix(got)}
    return {
        "number": number,
        "total": total,
        "rule": case.rule,
        "x": _matrix(case.x),
        "dtype": str(case.x.dtype) if exercise == "forward" else None,
        "pool_size": case.pool_size,
        "stride": case.stride,
        "grad_output": None if case.grad_output is None else _matrix(case.grad_output),
        "expected": _matrix(case.expected),
        "got": None if got is None else _matrix(got),
    }


#: Each exercise's judge: it raises a _Verdict when the returned value is wrong.
JUDGES = {"forward": _judge_forward, "backward": _judge_backward, "conv2d_backward": _judge_conv,
          "mse_loss_backward": _judge_mse}


def _rules_covered(cases):
    seen = []
    for case in cases:
        name = RULES[case.rule].split(":")[0]
        if name not in seen:
            seen.append(name)
    return ", ".join(seen)
