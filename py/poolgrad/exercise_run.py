"""Runs a learner's exercise code on the cases it is given and reports what it returned, as
plain data; it knows no expected answer (:mod:`poolgrad.exercise_check` judges the reports).

In the browser this module runs in the exercise worker (web/exercise/exercise-worker.js), a
fresh, locked-down Python per Run that holds nothing the verdict depends on: whatever the
learner's code patches there (this module, the builtins, NumPy, ``json``) can change only
the reports, and a report passes only if it holds the right values. The values are read
with the base types' own C methods (``numpy.ndarray.tolist``, the ``shape`` and ``dtype``
getters, ``list.__getitem__``), never through the returned object's methods, so an
``ndarray`` subclass whose comparison or ``tolist`` lies is reported as the data it holds.

Each report is one JSON text: ``{"load": {"sentence", "line"}}`` when the code cannot be
loaded (the only report then), else one per case in order, ``{"returned": value}`` or
``{"raised": {"type", "message", "line", "kind"}}``. A returned value is ``{"kind": "ndarray",
"type", "shape", "dtype", "values"}``, ``{"kind": "list", "type", "rows"}`` (each cell a
number or ``{"type": name}``), ``{"kind": "tuple", "type", "length", "items"}`` (its first
items, each reported as a value that is not a tuple; ``conv2d_backward`` returns two grids)
or ``{"kind": "other", "type"}``; numbers strict JSON cannot write travel as ``"NaN"``,
``"Infinity"``, ``"-Infinity"``.
"""

from __future__ import annotations

import inspect
import json
import math
import numbers
import sys
import traceback

import numpy as np

from . import exercises
from .json_numbers import number_name

#: The page's name of each exercise, and the reference function it asks learners to write
#: (its name and signature are the ones the learner's code must define).
REFERENCES = {"forward": exercises.max_pool2d, "backward": exercises.max_pool2d_backward,
              "conv2d_backward": exercises.conv2d_backward, "mse_loss_backward": exercises.mse_loss_backward}

#: The file name compile() gives the learner's code, so tracebacks can find its lines.
SOURCE_NAME = "<your code>"

#: Text the learner wrote (an exception's message) is clipped to this many characters.
MAX_MESSAGE = 300

#: A returned value with more cells than this is reported by its shape alone (every case's
#: answer fits the widget's 16 x 16 grids).
MAX_CELLS = 4096

#: A returned tuple reports this many items (and its length): no answer holds more than two.
MAX_ITEMS = 4


def signature_text(exercise: str) -> str:
    """The ``def`` line the exercise asks for, written from the reference's own signature.

    >>> signature_text("backward")
    'def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2)'
    """
    function = REFERENCES[exercise]
    parameters = [name if parameter.default is inspect.Parameter.empty else f"{name}={parameter.default!r}"
                  for name, parameter in inspect.signature(function).parameters.items()]
    return f"def {function.__name__}({', '.join(parameters)})"


def clip(text: str) -> str:
    """``text`` cut to MAX_MESSAGE characters (an ellipsis says it was cut).

    >>> len(clip("x" * 1000))
    301
    """
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "…"


def number(value):
    """A number as strict JSON carries it: non-finite floats as their names, an int too large
    for a double's exact range as a float.

    >>> number(float("nan")), number(-math.inf), number(3), number(10 ** 400)
    ('NaN', '-Infinity', 3, 'Infinity')
    """
    if isinstance(value, numbers.Integral) and abs(int(value)) <= 2**53:
        return int(value)
    try:
        value = float(value)
    except OverflowError:
        value = math.inf if value > 0 else -math.inf
    return value if math.isfinite(value) else number_name(value)


def _raised(error):
    """What an exception the learner's code raised says: its type, the learner's line, its
    message, and a ``kind`` for the ones the judge words specially."""
    if isinstance(error, SyntaxError) and error.filename == SOURCE_NAME:
        line = error.lineno
    else:
        lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == SOURCE_NAME]
        line = lines[-1] if lines else None
    kind = {NotImplementedError: "not-implemented", SystemExit: "exit", RecursionError: "recursion"}.get(type(error))
    return {"type": type(error).__name__, "message": clip(str(error)), "line": line, "kind": kind}


class _LoadError(Exception):
    def __init__(self, sentence, line=None):
        super().__init__(sentence)
        self.report = {"load": {"sentence": sentence, "line": line}}


def _nul_position(source):
    line = source.count("\n", 0, source.index("\0")) + 1
    column = source.index("\0") - (source.rfind("\n", 0, source.index("\0")) + 1) + 1
    return line, column


def load(source: str, exercise: str):
    """Compile and run ``source``; return the function the exercise asks for. Raises
    ``_LoadError`` (its ``report`` is the one report of a Run that cannot start).

    >>> load("def max_pool2d(image, pool_size=2):\\n    return image", "forward").__name__
    'max_pool2d'
    >>> try:
    ...     load("x = 1\\0", "forward")
    ... except Exception as refused:
    ...     print(refused)
    Your code holds a NUL character (an invisible zero byte) on line 1, column 6: delete it; pasted text sometimes carries one.
    """
    if "\0" in source:
        line, column = _nul_position(source)
        raise _LoadError(f"Your code holds a NUL character (an invisible zero byte) on line {line}, column {column}: "
                         f"delete it; pasted text sometimes carries one.", line)
    try:
        code = compile(source, SOURCE_NAME, "exec")
    except SyntaxError as error:  # IndentationError and TabError are SyntaxErrors too
        message = (error.msg or "invalid syntax").rstrip(".")
        where = f" on line {error.lineno} of your code" if error.lineno else " in your code"
        raise _LoadError(f"{type(error).__name__}{where}: {message}.", error.lineno) from None
    except ValueError as error:
        raise _LoadError(f"Your code cannot be compiled: {clip(str(error))}.") from None
    namespace = {"__name__": "exercise"}
    try:
        exec(code, namespace)
    # BaseException: sys.exit() in the learner's code is reported too, not obeyed.
    except BaseException as error:  # noqa: BLE001 - whatever the learner's code raises is reported
        raised = _raised(error)
        where = f" on line {raised['line']} of your code" if raised["line"] else ""
        if raised["kind"] == "exit":
            sentence = (f"Your code calls sys.exit({raised['message']}){where}, which would end Python before the "
                        f"checker calls your function: remove it.")
        else:
            sentence = f"Running your code raised {raised['type']}{where}{': ' + raised['message'] if raised['message'] else ''}."
        raise _LoadError(sentence, raised["line"]) from None
    name = REFERENCES[exercise].__name__
    function = namespace.get(name)
    if not callable(function):
        raise _LoadError(f"Your code does not define {name}; write {signature_text(exercise)}: ...")
    return function


def _cell(value):
    """One cell of a returned list: a number read with its base type's own method."""
    kind = type(value)
    if issubclass(kind, bool) or issubclass(kind, np.bool_):
        return {"type": kind.__name__}
    if issubclass(kind, float):
        return number(float.__float__(value))
    if issubclass(kind, int):
        return number(int.__int__(value))
    if issubclass(kind, np.generic) and np.dtype(kind).kind in "iuf":
        return number(np.ndarray.tolist(np.array(np.generic.item(value))))
    if isinstance(value, numbers.Real):
        return number(float(value))
    return {"type": kind.__name__}


def returned(value) -> dict:
    """The plain data of what the learner's function returned (see the module's docstring).

    >>> class Liar(np.ndarray):
    ...     def __eq__(self, other): return np.ones(self.shape, bool)
    ...     def tolist(self): return [[6, 8], [14, 16]]
    >>> returned(np.zeros((1, 2), np.int8).view(Liar))
    {'kind': 'ndarray', 'type': 'Liar', 'shape': [1, 2], 'dtype': '|i1', 'values': [[0, 0]]}
    >>> returned([[1.5, True]])
    {'kind': 'list', 'type': 'list', 'rows': [[1.5, {'type': 'bool'}]]}
    >>> returned(([[2]], ((),)))
    {'kind': 'tuple', 'type': 'tuple', 'length': 2, 'items': [{'kind': 'list', 'type': 'list', 'rows': [[2]]}, {'kind': 'other', 'type': 'tuple'}]}
    """
    kind = type(value)
    if issubclass(kind, tuple):
        items = [tuple.__getitem__(value, i) for i in range(min(tuple.__len__(value), MAX_ITEMS))]
        return {"kind": "tuple", "type": kind.__name__, "length": tuple.__len__(value),
                "items": [{"kind": "other", "type": type(item).__name__} if issubclass(type(item), tuple)
                          else returned(item) for item in items]}
    if issubclass(kind, np.ndarray):
        shape = [int(side) for side in np.ndarray.shape.__get__(value)]
        dtype = np.ndarray.dtype.__get__(value)
        plain = {"kind": "ndarray", "type": kind.__name__, "shape": shape, "dtype": dtype.str, "values": None}
        if dtype.kind in "biuf" and math.prod(shape) <= MAX_CELLS:
            plain["values"] = _numbers(np.ndarray.tolist(np.ndarray.view(value, np.ndarray)))
        return plain
    if issubclass(kind, list):
        rows = [list.__getitem__(value, i) for i in range(min(list.__len__(value), MAX_CELLS))]
        plain = {"kind": "list", "type": kind.__name__, "rows": []}
        for row in rows:
            if not issubclass(type(row), list):
                return {"kind": "list", "type": kind.__name__, "rows": None, "row_type": type(row).__name__}
            plain["rows"].append([_cell(list.__getitem__(row, j)) for j in range(min(list.__len__(row), MAX_CELLS))])
        return plain
    return {"kind": "other", "type": kind.__name__}


def _numbers(values):
    if isinstance(values, list):
        return [_numbers(value) for value in values]
    return values if isinstance(values, bool) else number(values)


def _arguments(exercise, case):
    """The learner's function's arguments for one case, as the exercise's text promises them."""
    if exercise == "forward":
        return np.array(case["x"], dtype=np.dtype(case["dtype"])), case["pool_size"]
    if exercise == "backward":
        return case["x"], case["grad_output"], case["pool_size"], case["stride"]
    if exercise == "conv2d_backward":
        return tuple(np.array(case[name], dtype=np.float64) for name in ("x", "w", "grad_output"))
    return np.array(case["prediction"], dtype=np.float64), np.array(case["target"], dtype=np.float64)


def _call(function, exercise, case):
    arguments = _arguments(exercise, case)
    try:
        return {"returned": returned(function(*arguments))}
    except BaseException as error:  # noqa: BLE001 - whatever the learner's code raises is reported
        return {"raised": _raised(error)}


def run(fn_or_source, exercise: str, cases: list):
    """Yield the reports (JSON texts) of the learner's function, or of the source that
    defines it, run on ``cases`` (the inputs, as :func:`poolgrad.exercise_check.case_inputs`
    writes them), lazily: one per case.

    >>> cases = [{"x": [[1, 2], [3, 4]], "dtype": "<i8", "pool_size": 2, "stride": 2}]
    >>> list(run("from poolgrad.exercises import max_pool2d", "forward", cases))
    ['{"returned": {"kind": "ndarray", "type": "ndarray", "shape": [1, 1], "dtype": "<i8", "values": [[4]]}}']
    """
    if callable(fn_or_source):
        function = fn_or_source
    else:
        try:
            function = load(fn_or_source, exercise)
        except _LoadError as refused:
            yield json.dumps(refused.report)
            return
    for case in cases:
        yield json.dumps(_call(function, exercise, case), allow_nan=False)


def run_request(request_json: str):
    """The exercise worker's entry: ``{"exercise", "source", "cases"}`` (``cases`` the JSON
    text of the inputs) in, :func:`run`'s reports out."""
    request = json.loads(request_json)
    return run(request["source"], request["exercise"], json.loads(request["cases"]))


def guard():
    """Called in the exercise worker before the learner's code: Python's recursion limit may
    be lowered but not raised. Python 3.12 keeps Python frames off the C stack, so a limit of
    10**7 lets an endless recursion fill memory for minutes instead of ending in a
    RecursionError."""
    limit = sys.getrecursionlimit()
    set_limit = sys.setrecursionlimit

    def setrecursionlimit(value, /):
        if value > limit:
            raise ValueError(f"the exercises keep Python's recursion limit at most {limit}; "
                             f"sys.setrecursionlimit({value}) would let an endless recursion run for minutes")
        set_limit(value)

    sys.setrecursionlimit = setrecursionlimit
