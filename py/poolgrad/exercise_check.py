"""Checks a learner's answer to one of the lesson's exercises against :mod:`poolgrad.exercises`.

The page's exercise panel sends the learner's source and the exercise's name; its worker
(web/exercise/exercise-worker.js) hands them to :func:`run_check` as JSON and shows the answer.
:func:`check` compiles the source, takes the function the exercise asks for and calls it
on the lesson's examples and on cases made to break one rule each (ties, negatives,
sizes that do not divide, overlapping windows, integer dtypes, rounding). It stops at the
first case the function gets wrong and says which rule that case tests, so the page can
load the case into the widget's grids and mark each wrong cell.

Every answer is a JSON-safe dict with ``state`` (``"pass"``, ``"fail"`` or ``"error"``)
and a ``sentence`` for the learner; a ``fail`` (and an ``error`` raised while a case ran)
also carries the ``case`` and, cell by cell, the ``mismatches``. Numbers the learner's
code returned that strict JSON cannot write travel as ``"NaN"``, ``"Infinity"`` and
``"-Infinity"``, as :mod:`poolgrad.json_numbers` writes them.

The expected answers are computed when this module is imported, before any learner code
runs, and each call gets its own copy of the inputs: what a learner's function does to
its arguments or to NumPy cannot change what the next case expects.
"""

from __future__ import annotations

import json
import math
import numbers
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import exercises
from .json_numbers import number_name

#: The names the page uses for the two exercises, and the function each one asks for.
FUNCTION_NAMES = {"forward": "max_pool2d", "backward": "max_pool2d_backward"}

#: The file name compile() gives the learner's code, so tracebacks can find its lines.
SOURCE_NAME = "<your code>"

#: How far two gradient cells may differ and still agree (the answers are rounded to 4
#: decimals; this only absorbs how the rounding itself was done).
GRADIENT_TOLERANCE = 1e-9

#: Text the learner wrote (an exception's message) is clipped to this many characters.
MAX_MESSAGE = 300

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
    """Small integers, so windows often tie, from a fixed seed (the same cases every run)."""
    return np.random.default_rng(seed).integers(low, high + 1, size=shape)


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


#: Every exercise's cases, in the order they are tried: the lesson's examples first.
CASES = {"forward": _forward_cases(), "backward": _backward_cases()}


class _Verdict(Exception):
    """The learner's answer to one case is wrong; carries the failure's fields."""

    def __init__(self, rule, detail, got=None, mismatches=()):
        super().__init__(detail)
        self.rule = rule
        self.detail = detail
        self.got = got
        self.mismatches = list(mismatches)


def check(fn_or_source: Callable | str, exercise: str) -> dict:
    """Run the learner's answer to ``exercise`` (``"forward"`` or ``"backward"``) on every
    case; the answer says what happened, as JSON-safe data.

    The answer is a function (from Python: ``check(my_max_pool2d, "forward")``) or the
    source text that defines it under the exercise's name, as the page's panel sends it.

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
    """
    if exercise not in FUNCTION_NAMES:
        raise ValueError(f"exercise must be one of {', '.join(FUNCTION_NAMES)}; got {exercise!r}")
    if callable(fn_or_source):
        function = fn_or_source
    elif isinstance(fn_or_source, str):
        try:
            function = _load(fn_or_source, FUNCTION_NAMES[exercise])
        except _LoadError as refused:
            return {"state": "error", "exercise": exercise, "sentence": str(refused), "line": refused.line}
    else:
        raise TypeError(f"fn_or_source must be a function or its source as a string, got "
                        f"{type(fn_or_source).__name__}")
    cases = CASES[exercise]
    for number, case in enumerate(cases, start=1):
        where = f"Case {number} of {len(cases)}"
        try:
            got = _call(function, case, exercise)
        except _LearnerException as raised:
            return {"state": "error", "exercise": exercise, "line": raised.line,
                    "sentence": f"{where} ({RULES[case.rule]}): {raised}.",
                    "case": _describe(case, exercise, number, len(cases), None), "mismatches": []}
        try:
            (_judge_forward if exercise == "forward" else _judge_backward)(case, got)
        except _Verdict as verdict:
            return {"state": "fail", "exercise": exercise, "rule": verdict.rule,
                    "sentence": f"{where} fails on {RULES[verdict.rule]}. {verdict.detail}",
                    "case": _describe(case, exercise, number, len(cases), verdict.got),
                    "mismatches": verdict.mismatches}
    return {"state": "pass", "exercise": exercise,
            "sentence": f"All {len(cases)} cases pass: {_rules_covered(cases)}."}


def run_check(request_json: str) -> str:
    """The worker's entry: ``{"exercise": ..., "source": ...}`` as JSON in, :func:`check`'s
    answer as strict JSON out (a malformed request is answered with ``state`` ``"error"``).

    >>> json.loads(run_check('{"exercise": "forward", "source": "x = 1"}'))["sentence"]
    'Your code does not define max_pool2d; write def max_pool2d(image, pool_size=2): ...'
    >>> json.loads(run_check('{"exercise": "sideways", "source": ""}'))["sentence"]
    "exercise must be one of forward, backward; got 'sideways'"
    """
    try:
        request = json.loads(request_json)
        if not isinstance(request, dict):
            raise TypeError("the request must be a JSON object with exercise and source")
        source = request.get("source")
        if not isinstance(source, str):
            raise TypeError(f"source must be the code as a string, got {type(source).__name__}")
        answer = check(source, request.get("exercise"))
    except (ValueError, TypeError) as refused:
        answer = {"state": "error", "sentence": str(refused)}
    return json.dumps(answer, allow_nan=False)


# ------------------------------------------------------------------ loading the code


class _LoadError(Exception):
    def __init__(self, message, line=None):
        super().__init__(message)
        self.line = line


class _LearnerException(Exception):
    """The learner's code raised: says what and on which of its lines."""

    def __init__(self, error):
        self.line = _learner_line(error)
        where = f" on line {self.line} of your code" if self.line else ""
        text = _clip(str(error))
        if isinstance(error, NotImplementedError):
            super().__init__(f"your function still raises NotImplementedError{where}: replace it with your code")
        else:
            super().__init__(f"{type(error).__name__}{where}{': ' + text if text else ''}")


def _clip(text):
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "…"


def _learner_line(error):
    """The line of the learner's code where ``error`` was raised (its last frame there)."""
    if isinstance(error, SyntaxError) and error.filename == SOURCE_NAME:
        return error.lineno
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == SOURCE_NAME]
    return lines[-1] if lines else None


def _load(source, name):
    try:
        code = compile(source, SOURCE_NAME, "exec")
    except SyntaxError as error:  # IndentationError and TabError are SyntaxErrors too
        message = (error.msg or "invalid syntax").rstrip(".")
        raise _LoadError(f"{type(error).__name__} on line {error.lineno} of your code: {message}.",
                         error.lineno) from None
    except ValueError as error:  # e.g. a NUL character in the text
        raise _LoadError(f"Your code cannot be compiled: {_clip(str(error))}.") from None
    namespace = {"__name__": "exercise"}
    try:
        exec(code, namespace)
    # BaseException: sys.exit() in the learner's code is reported too, not obeyed.
    except BaseException as error:  # noqa: BLE001 - whatever the learner's code raises is reported
        raised = _LearnerException(error)
        raise _LoadError(f"Running your code raised {raised}.", raised.line) from None
    function = namespace.get(name)
    if not callable(function):
        signature = ("image, pool_size=2" if name == "max_pool2d"
                     else "input_map, grad_output, pool_size=2, stride=2")
        raise _LoadError(f"Your code does not define {name}; write def {name}({signature}): ...")
    return function


def _call(function, case, exercise):
    try:
        if exercise == "forward":
            return function(case.x.copy(), case.pool_size)
        return function(case.x.tolist(), [list(row) for row in case.grad_output], case.pool_size, case.stride)
    except BaseException as error:  # noqa: BLE001
        raise _LearnerException(error) from None


# ------------------------------------------------------------------ judging an answer


def _shape_text(shape):
    return " x ".join(str(side) for side in shape)


def _judge_forward(case, got):
    expected = case.expected
    if not isinstance(got, np.ndarray):
        raise _Verdict("return-type", f"max_pool2d must return a NumPy array; yours returned "
                                      f"{type(got).__name__}.")
    if got.shape != expected.shape:
        raise _Verdict("shape" if case.rule not in ("leftover", "pool-size", "non-square") else case.rule,
                       f"The output should be {_shape_text(expected.shape)}; yours is {_shape_text(got.shape)}.")
    if got.dtype.kind not in "biuf":
        raise _Verdict("return-type", f"The output should hold numbers; yours has dtype {got.dtype}.")
    wrong = np.argwhere(got != expected)
    if len(wrong):
        raise _Verdict(case.rule, _cells_text(len(wrong), "output"), got.tolist(),
                       [_mismatch("output", r, c, expected[r, c], got[r, c]) for r, c in wrong.tolist()])
    if got.dtype != expected.dtype:
        raise _Verdict("dtype", f"The input is {case.x.dtype}, so the output should be {expected.dtype}; "
                                f"yours is {got.dtype}.", got.tolist())


def _judge_backward(case, got):
    expected = case.expected
    height, width = len(expected), len(expected[0])
    if not isinstance(got, list) or not all(isinstance(row, list) for row in got):
        raise _Verdict("return-type", f"max_pool2d_backward must return a list of lists (one per row); yours "
                                      f"returned {type(got).__name__}"
                                      f"{' (call .tolist() on it)' if isinstance(got, np.ndarray) else ''}.")
    if len(got) != height or any(len(row) != width for row in got):
        widths = sorted({len(row) for row in got})
        raise _Verdict("shape", f"The gradient should have {height} rows of {width} values, one per input cell; "
                                f"yours has {len(got)} rows of {', '.join(map(str, widths)) or 'no'} values.")
    for r, row in enumerate(got):
        for c, value in enumerate(row):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise _Verdict("return-type", f"Row {r}, col {c} of your gradient is {type(value).__name__}, "
                                              f"not a number.")
    wrong = [(r, c) for r in range(height) for c in range(width)
             if not abs(_as_float(got[r][c]) - expected[r][c]) <= GRADIENT_TOLERANCE]
    if wrong:
        values = [[_as_float(value) for value in row] for row in got]
        raise _Verdict(case.rule, _cells_text(len(wrong), "input-gradient"), values,
                       [_mismatch("grad-input", r, c, expected[r][c], got[r][c]) for r, c in wrong])


def _cells_text(count, grid):
    cells = "1 cell differs" if count == 1 else f"{count} cells differ"
    return f"{cells} from the reference: the case is loaded into the grids, wrong {grid} cells marked."


def _as_float(value):
    """``float(value)``, with an int too large for a float as an infinity."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


#: Integers beyond this travel as floats: JavaScript's numbers hold them no more exactly.
MAX_EXACT_INT = 2**53


def _number(value):
    """A number as strict JSON can carry it: non-finite values as their names."""
    exact = isinstance(value, numbers.Integral) and abs(int(value)) <= MAX_EXACT_INT
    value = int(value) if exact else _as_float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return number_name(value)
    return value


def _mismatch(grid, row, col, expected, got):
    return {"grid": grid, "row": row, "col": col, "expected": _number(expected), "got": _number(got)}


def _matrix(values):
    return [[_number(value) for value in row] for row in np.asarray(values).tolist()]


def _describe(case, exercise, number, total, got):
    """The case as the page loads it into the widget: the input, window, stride and
    upstream gradient, what the reference answers and what the learner's code did."""
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


def _rules_covered(cases):
    seen = []
    for case in cases:
        name = RULES[case.rule].split(":")[0]
        if name not in seen:
            seen.append(name)
    return ", ".join(seen)
