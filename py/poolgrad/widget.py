"""The widget in a notebook: :class:`Widget`, computed by the kernel's own poolgrad.

An anywidget (https://anywidget.dev): the front end is the page's own mount, bundled into
one ES module (``poolgrad/widget.js``, built by ``python build.py widget-bundle`` from
``web/``), and every view it draws is a :func:`poolgrad.trace` the kernel computes
natively: the one of the view this module holds, synced as the ``trace`` trait (with the
settings it is of, ``trace_settings``), and any other the front end asks for, answered
by :func:`poolgrad.wire.run_trace` (a custom message). No Pyodide, no download: the
numbers are exactly those the functions return. anywidget is an optional dependency
(poolgrad's ``[widget]`` extra); ``import poolgrad`` never imports this module.

>>> import poolgrad
>>> w = poolgrad.Widget([[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]])
>>> w.output, w.indices
(array([[ 4,  8],
       [ 9, -2]]), array([[ 5,  6],
       [13, 11]]))
>>> w.kernel_size = 3; w.stride = 1
>>> w.trace["output"]
[[8, 8], [9, 9]]
>>> w.kernel_size = 0
Traceback (most recent call last):
...
ValueError: kernel_size must be at least 1, got 0
>>> w.kernel_size
3
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

try:
    import anywidget
    import traitlets
except ImportError as missing:  # pragma: no cover - exercised by test_widget's subprocess
    raise ImportError(
        f"poolgrad.Widget needs anywidget ({missing}): install it with poolgrad's [widget] extra "
        f"(in a checkout: pip install \".[widget]\") or alone (pip install anywidget)"
    ) from missing

from . import exercise_check
from .adaptive_pool import (adaptive_avg_pool2d, adaptive_avg_pool2d_backward, adaptive_max_pool2d,
                            adaptive_max_pool2d_backward)
from .avg_pool import avg_pool2d, avg_pool2d_backward
from .lp_pool import lp_pool2d, lp_pool2d_backward
from .max_pool import max_pool2d, max_pool2d_backward
from .trace import ADAPTIVE_MODES, MAX_MODES, json_values, trace
from .unpool import unpool_planes
from .validation import as_flag, as_input, as_norm_type, as_output_size
from .wire import NUMBER_NAMES, run_trace, unexpected_failure

#: The front end: the page's modules bundled into one ES module, and the page's style.css
#: scoped to the widget (sitebuild/widget_bundle.py).
BUNDLE = Path(__file__).with_name("widget.js")
STYLESHEET = BUNDLE.with_name("widget.css")

#: The traits that say what is computed, in poolgrad.trace()'s keyword names.
SETTINGS = ("x", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "count_include_pad",
            "mode", "grad_output", "output_size", "norm_type", "unpool")


class View(NamedTuple):
    """One computed view: the trace the front end draws and the functions' own arrays."""

    trace: dict
    output: np.ndarray
    indices: np.ndarray | None
    grad_input: np.ndarray
    unpooled: np.ndarray | None


def trace_arguments(x, kernel_size=2, stride=None, padding=0, dilation=1, ceil_mode=False,
                    count_include_pad=True, mode="max", grad_output=None, output_size=2,
                    norm_type=2, unpool=False) -> dict[str, Any]:
    """The :func:`poolgrad.trace` keywords of a widget's settings. The widget holds every
    setting at once, as the page's model does (web/widget/state.js, ``traceRequest``): a
    mode's own (``output_size``, ``norm_type``, ``unpool``) is kept while another mode
    shows, and the kernel and stride while an adaptive mode does; each is passed only where
    it applies. Padding, dilation and ceil mode are always passed, so trace() refuses them
    where they do not apply, as the page does.

    >>> sorted(trace_arguments([[1]], mode="adaptive_avg", output_size=1))
    ['ceil_mode', 'dilation', 'grad_output', 'mode', 'output_size', 'padding', 'unpool', 'x']
    """
    arguments = {"x": x, "padding": padding, "dilation": dilation, "ceil_mode": ceil_mode, "mode": mode,
                 "grad_output": 1 if grad_output is None else grad_output,
                 "unpool": unpool if mode in MAX_MODES else False}
    if mode in ADAPTIVE_MODES:
        arguments["output_size"] = output_size
    else:
        arguments.update(kernel_size=kernel_size, stride=stride)
    if mode in ("max", "avg"):
        arguments["count_include_pad"] = count_include_pad
    if mode == "lp":
        arguments["norm_type"] = norm_type
    return arguments


def compute(x, kernel_size=2, stride=None, padding=0, dilation=1, ceil_mode=False,
            count_include_pad=True, mode="max", grad_output=None, output_size=2, norm_type=2,
            unpool=False) -> View:
    """The view of one setting: :func:`poolgrad.trace` and the functions' arrays, or the
    functions' own ``ValueError`` / ``TypeError``. ``grad_output=None`` is all ones, as
    on the page; ``unpooled`` is ``max_unpool2d(output, indices)`` onto ``x``'s plane,
    with ``unpool`` on in the max modes (else None).

    >>> compute([[1, 2], [3, 4]], 2).indices
    array([[3]])
    >>> compute([[1, 2, 3], [3, 4, 5], [6, 7, 8]], 2, mode="avg", dilation=2)
    Traceback (most recent call last):
    ...
    ValueError: dilation=2 is not available for average pooling (avg_pool2d has no dilation): use dilation=1 or mode='max'

    Adaptive windows of 3 lines into 2 share the middle line, where unpooling writes one
    value and the gradient adds two:

    >>> view = compute([[1, 9, 2], [0, 0, 0], [0, 0, 0]], mode="adaptive_max", output_size=(1, 2),
    ...                unpool=True)
    >>> view.output, view.unpooled[0], view.grad_input[0]
    (array([[9, 9]]), array([0, 9, 0]), array([0., 2., 0.]))
    """
    settings = trace_arguments(x, kernel_size, stride, padding, dilation, ceil_mode, count_include_pad,
                               mode, grad_output, output_size, norm_type, unpool)
    described = trace(**settings)
    plane = np.asarray(x)
    upstream = (np.ones(described["output_shape"]) if grad_output is None
                else np.asarray(grad_output, dtype=np.float64))
    indices = None
    if mode == "max":
        output, indices = max_pool2d(plane, kernel_size, stride, padding, dilation, ceil_mode,
                                     return_indices=True)
        grad_input = max_pool2d_backward(upstream, indices, plane.shape)
    elif mode == "avg":
        output = avg_pool2d(plane, kernel_size, stride, padding, ceil_mode, count_include_pad)
        grad_input = avg_pool2d_backward(upstream, plane.shape, kernel_size, stride, padding, ceil_mode,
                                         count_include_pad)
    elif mode == "adaptive_max":
        output, indices = adaptive_max_pool2d(plane, output_size, return_indices=True)
        grad_input = adaptive_max_pool2d_backward(upstream, indices, plane.shape)
    elif mode == "adaptive_avg":
        output = adaptive_avg_pool2d(plane, output_size)
        grad_input = adaptive_avg_pool2d_backward(upstream, plane.shape)
    else:
        output = lp_pool2d(plane, norm_type, kernel_size, stride, ceil_mode)
        grad_input = lp_pool2d_backward(upstream, plane, norm_type, kernel_size, stride, ceil_mode)
    unpooled = unpool_planes(output, indices, plane.shape) if settings["unpool"] else None
    for array in (output, indices, grad_input, unpooled):
        if array is not None:
            array.flags.writeable = False
    return View(described, output, indices, grad_input, unpooled)


# ----------------------------------------------------------------- the wire to JavaScript
# Traits travel as JSON: a matrix as nested lists with the non-finite numbers named (as in
# poolgrad.wire), a pair as [h, w]. Python keeps what the user gave, checked.

def _matrix_to_json(value, widget=None):
    return None if value is None else json_values(np.asarray(value))


def _matrix_from_json(value, widget=None):
    if value is None:
        return None
    decoded = [[NUMBER_NAMES.get(cell, cell) if isinstance(cell, str) else cell for cell in row]
               if isinstance(row, list) else row for row in value]
    return np.asarray(decoded)


def _pair_to_json(value, widget=None):
    if value is None:
        return None
    pair = np.broadcast_to(np.asarray(value), (2,)) if np.ndim(value) == 0 else np.asarray(value)
    return [int(v) for v in pair.tolist()] if pair.dtype.kind in "iu" else pair.tolist()


def _pair_from_json(value, widget=None):
    return tuple(value) if isinstance(value, list) else value


def _output_size_to_json(value, widget=None):
    # The front end's output size is two numbers: a None side ("keep the input's side") is
    # sent as the side of the input it keeps, and sent again when x changes (Widget._redraw).
    sides = as_output_size(value)
    shape = np.shape(widget.x) if widget is not None and widget.x is not None else (None, None)
    return [kept if side is None else side for side, kept in zip(sides, shape)]


def _number_to_json(value, widget=None):
    return json_values(np.float64(value))


def _number_from_json(value, widget=None):
    return NUMBER_NAMES.get(value, value) if isinstance(value, str) else value


def _selection_to_json(value, widget=None):
    return None if value is None else [int(value[0]), int(value[1])]


def as_selection(value, output_shape):
    """``value`` as a selected output cell ``(row, col)`` of an output of ``output_shape``,
    or None; else a ``ValueError`` that says which cells there are.

    >>> as_selection([1, 0], (2, 3))
    (1, 0)
    >>> as_selection((2, 0), (2, 3))
    Traceback (most recent call last):
    ...
    ValueError: selection=(2, 0) is not a cell of the 2 x 3 output: rows 0 to 1, columns 0 to 2
    """
    if value is None:
        return None
    try:
        cells = np.asarray(value)
    except (ValueError, TypeError):
        cells = np.asarray(None)
    if cells.shape != (2,) or cells.dtype.kind not in "iu" or (cells < 0).any():
        raise ValueError(f"selection must be None or (row, col) of an output cell, got {value!r}")
    (row, col), (height, width) = cells.tolist(), output_shape
    if row >= height or col >= width:
        raise ValueError(f"selection=({row}, {col}) is not a cell of the {height} x {width} output: "
                         f"rows 0 to {height - 1}, columns 0 to {width - 1}")
    return (row, col)


def _matrix_trait():
    return traitlets.Any(None, allow_none=True).tag(sync=True, to_json=_matrix_to_json,
                                                     from_json=_matrix_from_json)


def _pair_trait(default):
    return traitlets.Any(default, allow_none=True).tag(sync=True, to_json=_pair_to_json,
                                                        from_json=_pair_from_json)


class Widget(anywidget.AnyWidget):
    """The pooling widget for one 2D plane ``x``, in a Jupyter notebook.

    The parameters are those of :func:`poolgrad.trace`: ``mode`` is ``"max"``, ``"avg"``,
    ``"adaptive_max"``, ``"adaptive_avg"`` (their windows follow ``output_size``) or
    ``"lp"`` (``norm_type`` is its p); ``unpool`` shows ``max_unpool2d(output, indices)``
    in the max modes; ``grad_output=None`` is all ones. Plus ``gradient`` (show the
    gradient's routing) and ``selection`` (the selected output cell, ``(row, col)`` or
    None). Each is a synced trait: setting it redraws, and the widget's controls and taps
    set it. A mode's own setting is kept while another mode shows, as on the page. A value
    the functions refuse raises their ``ValueError`` or ``TypeError`` and the view stays;
    one from the widget's own controls is shown in the widget (the ``error`` trait).

    Read-only: ``trace`` (the dict poolgrad.trace returns for the view shown), and the
    functions' NumPy arrays ``output``, ``indices`` (the max modes, else None),
    ``grad_input`` (with ``gradient`` on, else None) and ``unpooled`` (with ``unpool`` on
    in the max modes, else None).

    >>> w = Widget([[1, 2], [3, 4]], gradient=True, grad_output=[[2.5]])
    >>> w.grad_input
    array([[0. , 0. ],
           [0. , 2.5]])
    >>> w.selection = (0, 0); w.selection
    (0, 0)
    >>> w.mode = "avg"; w.output, w.indices
    (array([[2.5]]), None)
    >>> w.output_size = 1; w.mode = "adaptive_avg"; w.output
    array([[2.5]])
    """

    _esm = BUNDLE
    _css = STYLESHEET

    x = _matrix_trait()
    kernel_size = _pair_trait(2)
    stride = _pair_trait(None)
    padding = _pair_trait(0)
    dilation = _pair_trait(1)
    ceil_mode = traitlets.Any(False).tag(sync=True)
    count_include_pad = traitlets.Any(True).tag(sync=True)
    mode = traitlets.Any("max").tag(sync=True)
    gradient = traitlets.Any(False).tag(sync=True)
    grad_output = _matrix_trait()
    output_size = traitlets.Any(2).tag(sync=True, to_json=_output_size_to_json, from_json=_pair_from_json)
    norm_type = traitlets.Any(2.0).tag(sync=True, to_json=_number_to_json, from_json=_number_from_json)
    unpool = traitlets.Any(False).tag(sync=True)
    selection = traitlets.Any(None, allow_none=True).tag(sync=True, to_json=_selection_to_json,
                                                         from_json=_pair_from_json)
    #: The marks of poolgrad.check's failing case: exercise_check's mismatches.
    mismatches = traitlets.List().tag(sync=True)
    #: The page's readable error for a value the widget's own controls sent, else "".
    error = traitlets.Unicode("").tag(sync=True)
    trace = traitlets.Dict(read_only=True).tag(sync=True)
    #: The settings ``trace`` is of, as the front end spells them (its request key's source).
    trace_settings = traitlets.Dict(read_only=True).tag(sync=True)

    def __init__(self, x, kernel_size=2, stride=None, padding=0, dilation=1, ceil_mode=False,
                 count_include_pad=True, mode="max", gradient=False, grad_output=None, selection=None,
                 output_size=2, norm_type=2.0, unpool=False, **kwargs):
        self._view: tuple[str, View] | None = None
        super().__init__(x=x, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
                         ceil_mode=ceil_mode, count_include_pad=count_include_pad, mode=mode,
                         gradient=gradient, grad_output=grad_output, selection=selection,
                         output_size=output_size, norm_type=norm_type, unpool=unpool, **kwargs)
        self._show(self._settings())
        self.on_msg(self._answer)

    # traitlets validates every trait of one change together (the constructor's, and the
    # front end's batch of keys), each seeing the others' new values: so each validator
    # checks the whole setting it would make, by computing it.
    @traitlets.validate(*SETTINGS)
    def _check_setting(self, proposal):
        name = proposal["trait"].name
        value = proposal["value"]
        if name in ("ceil_mode", "count_include_pad", "unpool"):
            value = as_flag(value, name)
        elif name == "output_size":
            as_output_size(value)  # checked in every mode: it is kept for the adaptive ones
        elif name == "norm_type":
            as_norm_type(value)
        elif name in ("x", "grad_output") and value is not None:
            value = np.array(as_input(value, name))
            value.flags.writeable = False
        self._computed({**self._settings(), name: value})
        return value

    @traitlets.validate("gradient")
    def _check_gradient(self, proposal):
        return as_flag(proposal["value"], "gradient")

    @traitlets.validate("selection")
    def _check_selection(self, proposal):
        return as_selection(proposal["value"], self.output.shape)

    @traitlets.observe(*SETTINGS)
    def _redraw(self, change):
        if change["name"] == "x" and None in as_output_size(self.output_size):
            self.send_state("output_size")  # its JSON names the sides of x it keeps
        self._show(self._settings())

    def notify_change(self, change):
        # A setting, and the trace computed for it with its settings, reach the front end in
        # one message: the view never holds a setting beside another setting's trace.
        if change["name"] not in SETTINGS:
            super().notify_change(change)
            return
        with self.hold_sync():
            super().notify_change(change)

    def _answer(self, _widget, content, _buffers):
        """A trace request of the front end (web/notebook.js): ``{type: "trace", id, key}``,
        where the key is the JSON of poolgrad.trace()'s keyword arguments; the answer is
        run_trace's JSON, as the page's worker gives it."""
        if isinstance(content, dict) and content.get("type") == "trace" and isinstance(content.get("key"), str):
            self.send({"type": "trace", "id": content.get("id"), "answer": run_trace(content["key"])})

    def set_state(self, sync_data):
        """A change from the widget's controls: a refused one becomes the ``error`` shown
        in the widget, and the front end gets the good state back, instead of an exception
        in the kernel's log. The whole batch is checked first (the settings by computing
        their view, then ``gradient`` and ``selection`` against it): traitlets rolls a
        batch back on its own TraitError only, not on the functions' ValueError."""
        previous = {name: getattr(self, name) for name in sync_data if self.has_trait(name)}
        try:
            decoded = {name: self.trait_metadata(name, "from_json", self._trait_from_json)(value, self)
                       for name, value in sync_data.items() if name in SETTINGS + ("gradient", "selection")}
            candidate = {**self._settings(), **{n: v for n, v in decoded.items() if n in SETTINGS}}
            for flag in ("ceil_mode", "count_include_pad", "unpool"):
                candidate[flag] = as_flag(candidate[flag], flag)
            as_output_size(candidate["output_size"])
            as_norm_type(candidate["norm_type"])
            view = self._computed(candidate)
            if "gradient" in decoded:
                as_flag(decoded["gradient"], "gradient")
            if "selection" in decoded:
                as_selection(decoded["selection"], view.output.shape)
            super().set_state(sync_data)
        except (ValueError, TypeError) as refused:
            self._refuse(str(refused), previous)
        except Exception as failure:  # a bug of poolgrad's: said in the widget, as run_trace says it
            self._refuse(unexpected_failure(failure), previous)

    def _refuse(self, message, previous):
        # Every value checked above is refused before it is set; this puts back what a
        # failure in the middle of traitlets' own setting left, so every later sync works.
        with self.hold_trait_notifications():
            for name, value in previous.items():
                if getattr(self, name) is not value:
                    self.set_trait(name, value)
        self.error = message
        self.send_state()

    def _settings(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in SETTINGS}

    def _computed(self, settings) -> View:
        # One view is kept: validating a change computes it, drawing it reuses it.
        key = repr({name: _matrix_to_json(v) if name in ("x", "grad_output") else v
                    for name, v in settings.items()})
        if self._view is None or self._view[0] != key:
            self._view = (key, compute(**settings))
        return self._view[1]

    def _show(self, settings):
        self.set_trait("trace", self._computed(settings).trace)
        self.set_trait("trace_settings", {
            name: self.trait_metadata(name, "to_json", self._trait_to_json)(value, self)
            for name, value in settings.items()})
        self.error = ""

    @property
    def output(self) -> np.ndarray:
        """The pooled output of the view shown (max_pool2d's or avg_pool2d's)."""
        return self._computed(self._settings()).output

    @property
    def indices(self) -> np.ndarray | None:
        """max_pool2d's indices of the view shown (flat into the plane), None in avg mode."""
        return self._computed(self._settings()).indices

    @property
    def grad_input(self) -> np.ndarray | None:
        """The gradient routed back to x, with ``gradient`` on (else None)."""
        return self._computed(self._settings()).grad_input if self.gradient else None

    @property
    def unpooled(self) -> np.ndarray | None:
        """``max_unpool2d(output, indices)`` onto x's plane, with ``unpool`` on in the max
        modes (else None): each maximum written back once where the gradient adds."""
        return self._computed(self._settings()).unpooled


def check(fn, exercise: str) -> Widget | dict:
    """Check the learner's own function for an exercise as the page's exercise panel does,
    and print its verdict sentence.

    For the pooling exercises (``"forward"``: max_pool2d(image, pool_size), ``"backward"``:
    max_pool2d_backward(input_map, grad_output, pool_size, stride)) it returns a Widget of
    the first failing case, its wrong cells marked ``data-mismatch``, or of the lesson's
    first example when every case passes.

    >>> def last_wins(image, pool_size=2):
    ...     return poolgrad.exercises.max_pool2d(image, pool_size) * 0
    >>> import poolgrad
    >>> w = poolgrad.check(last_wins, "forward")
    Case 1 of 13 fails on the lesson's example. 4 cells differ from the reference: the case is loaded into the grids, wrong output cells marked.
    >>> w.kernel_size, len(w.mismatches)
    (2, 4)

    For the chain's exercises (``"conv2d_backward"``: conv2d_backward(x, w, grad_output) ->
    (grad_w, grad_x), ``"mse_loss_backward"``: mse_loss_backward(prediction, target)) a case
    is a bare function call that no view of the widget draws, so it returns the checker's
    answer: ``state``, ``sentence``, and for a failing case the ``case`` (its arguments,
    the expected and the returned grids) and the ``mismatches``.

    >>> def no_mean(prediction, target):
    ...     return 2 * (prediction - target)
    >>> answer = poolgrad.check(no_mean, "mse_loss_backward")
    Case 1 of 8 fails on the lesson's example. 3 cells differ from the reference: the case is shown below, wrong cells marked.
    >>> answer["case"]["expected"], answer["case"]["got"]
    ([[1.0, 0.5], [1.75, 0.0]], [[4.0, 2.0], [7.0, 0.0]])
    """
    answer = exercise_check.check(fn, exercise)
    print(answer["sentence"])
    if exercise not in ("forward", "backward"):
        return answer
    cases = exercise_check.CASES[exercise]
    case = cases[answer["case"]["number"] - 1] if "case" in answer else cases[0]
    return Widget(case.x, kernel_size=case.pool_size, stride=case.stride, gradient=exercise == "backward",
                  grad_output=case.grad_output, mismatches=answer.get("mismatches", []))

__all__ = ["Widget", "check", "compute", "View"]
