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

import json
import re
from functools import lru_cache

from . import exercise_check
from .chain import chain_trace
from .adaptive_pool import (adaptive_avg_pool2d, adaptive_avg_pool2d_backward, adaptive_max_pool2d,
                            adaptive_max_pool2d_backward)
from .avg_pool import avg_pool2d, avg_pool2d_backward
from .lp_pool import lp_pool2d, lp_pool2d_backward
from .max_pool import max_pool2d, max_pool2d_backward
from .picture import PICTURE_SIZES, fit_picture, gradient_share, picture_planes, picture_rgba, pool_picture, zoom
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
#: The chain view's settings and the picture view's, named as the front end's model names
#: them (web/widget/state.js MODEL_KEYS). The picture is pooled with SETTINGS' pooling.
CHAIN_SETTINGS = ("chain_x", "chain_weight", "chain_bias", "chain_relu", "chain_pool",
                  "chain_pool_kernel_size", "chain_upstream", "chain_hot", "chain_target",
                  "learning_rate", "steps")
PICTURE_SETTINGS = ("picture_size", "picture_channel", "picture_repeat", "picture_selection")
#: The views: pooling one plane, the chain conv -> pool -> loss, a picture.
VIEWS = ("pool", "chain", "picture")
ALL_SETTINGS = ("view",) + SETTINGS + CHAIN_SETTINGS + PICTURE_SETTINGS
#: The chain view's upstream choices: a loss against the target, or a made-up gradient.
CHAIN_UPSTREAMS = {"loss-mse": "mse", "loss-l1": "l1", "ones": None, "ramp": None, "hot": None}


@lru_cache(maxsize=1)
def chain_start() -> dict[str, list]:
    """The chain view's start, the lesson's capstone (``x``, ``weight``, ``target``), as
    the front end holds it (web/chain/keys.js ``CHAIN_CAPSTONE``): read from the
    bundle this widget ships, so the kernel starts where the view does.

    >>> chain_start()["weight"]
    [[[[0.5, -0.5, 0], [0, 1, 0], [0.5, 0, -0.5]]]]
    """
    found = re.search(r"^const CHAIN_CAPSTONE = (\{.*?\n\});$", BUNDLE.read_text(encoding="utf-8"),
                      re.MULTILINE | re.DOTALL)
    if not found:
        raise RuntimeError(f"{BUNDLE.name} has no CHAIN_CAPSTONE: rebuild it (python build.py widget-bundle)")
    quoted = re.sub(r"^(\s*)(\w+):", r'\1"\2":', found.group(1), flags=re.MULTILINE)
    return json.loads(re.sub(r",(\s*\})", r"\1", quoted))


def chain_arguments(chain_x, chain_weight, chain_bias=None, chain_relu=False, chain_pool="max",
                    chain_pool_kernel_size=2, chain_upstream="loss-mse", chain_hot=None,
                    chain_target=None, learning_rate=0.01, steps=0) -> dict[str, Any]:
    """:func:`poolgrad.chain_trace`'s keywords of the chain view's settings, as the view
    asks for them (web/chain/request.js): ``chain_pool`` ``"none"`` is no pooling; a loss
    upstream (``"loss-mse"``, ``"loss-l1"``) compares with the target, a made-up one is
    ``"ones"``, ``"ramp"`` (1, 2, ... over each filter's last output) or ``"hot"`` (1 at
    ``chain_hot``, row and column of the first filter's last output, else 0).

    >>> chain_arguments([[1, 2, 3]], [[1]], chain_pool="none", chain_upstream="ramp")["grad_output"]
    [[[1, 2, 3]]]
    """
    if chain_upstream not in CHAIN_UPSTREAMS:
        raise ValueError(f"chain_upstream must be one of {', '.join(map(repr, CHAIN_UPSTREAMS))}, "
                         f"got {chain_upstream!r}")
    if chain_pool not in ("max", "avg", "none"):
        raise ValueError(f"chain_pool must be 'max', 'avg' or 'none', got {chain_pool!r}")
    loss = CHAIN_UPSTREAMS[chain_upstream]
    arguments = {"x": chain_x, "weight": chain_weight, "target": chain_target if loss else None,
                 "bias": chain_bias, "activation": "relu" if as_flag(chain_relu, "chain_relu") else None,
                 "pool": None if chain_pool == "none" else chain_pool,
                 "pool_kernel_size": chain_pool_kernel_size, "loss": loss, "grad_output": None,
                 "learning_rate": learning_rate, "steps": steps}
    if loss is None:
        arguments["grad_output"] = 1
        if chain_upstream != "ones":
            # The made-up gradient has the last output's shape, which the chain itself gives.
            last = np.asarray(chain_trace(**{**arguments, "steps": 0})["grad_last_output"])
            filters, rows, cols = last.shape
            if chain_upstream == "ramp":
                made_up = np.broadcast_to(np.arange(1, rows * cols + 1).reshape(rows, cols), last.shape)
            else:
                hot = as_selection((0, 0) if chain_hot is None else chain_hot, (rows, cols), "chain_hot")
                made_up = np.zeros(last.shape, dtype=int)
                made_up[0][hot] = 1
            arguments["grad_output"] = made_up.tolist()
    return arguments


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


def compute_picture(rgba, picture_size=128, picture_channel="rgb", picture_repeat=1,
                    picture_selection=None, gradient=False, **pooling) -> dict[str, Any]:
    """The picture view of ``rgba`` (:func:`poolgrad.picture.picture_rgba`'s pixels) with
    the pooling keywords of :func:`poolgrad.picture.pool_picture`: the picture at
    ``picture_size`` (its longer side, 32, 64, 128 or 256; a larger picture is scaled
    down, :func:`poolgrad.picture.fit_picture`), pooled ``picture_repeat`` times on the
    planes of ``picture_channel``. A dict of what the view draws:

    - ``input``: the planes pooled, ``(C, H, W)`` uint8 (C is 3 for ``"rgb"``, else 1);
    - ``stages``: each stage's output, ``(C, h, w)``; ``output``: the last one;
    - ``grad_input``: with ``gradient``, the gradient of ones on the last output routed
      back to ``input`` (float64), else None; ``gradient_share``: how many of the input's
      pixels got some (``{"reached", "pixels"}``), else None;
    - ``zoom``: the output pixel ``picture_selection`` (row, col) described as the zoom
      panel shows it (:func:`poolgrad.picture.zoom`, first channel), None without one or
      when the output has no such pixel.

    >>> rgba = picture_rgba([[1, 2, 5, 6], [3, 4, 8, 7]])
    >>> shown = compute_picture(rgba, picture_channel="grey", kernel_size=2, gradient=True,
    ...                         picture_selection=(0, 1))
    >>> shown["output"], shown["gradient_share"], shown["zoom"]["argmax"]
    (array([[[4, 8]]], dtype=uint8), {'reached': 2, 'pixels': 8}, {0: {1: [1, 2]}})
    """
    if isinstance(picture_size, bool) or picture_size not in PICTURE_SIZES:
        raise ValueError(f"picture_size must be one of {', '.join(map(str, PICTURE_SIZES))} (the longer "
                         f"side in pixels), got {picture_size!r}")
    planes = picture_planes(fit_picture(rgba, picture_size), picture_channel)
    pooled = pool_picture(planes, repeat=picture_repeat, gradient=gradient, **pooling)
    selected = None
    if picture_selection is not None:
        pixel = as_selection(picture_selection, (2 ** 31, 2 ** 31), "picture_selection")
        selected = zoom(pooled, pixel)
    grad = pooled.get("grad_input")
    for array in (planes, grad, *pooled["stages"]):
        if array is not None:
            array.flags.writeable = False
    return {"input": planes, "stages": pooled["stages"], "output": pooled["stages"][-1],
            "grad_input": grad, "gradient_share": None if grad is None else gradient_share(grad),
            "zoom": selected}


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


def as_selection(value, output_shape, name="selection"):
    """``value`` as a selected output cell ``(row, col)`` of an output of ``output_shape``,
    or None; else a ``ValueError`` (naming the setting ``name``) that says which cells there are.

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
        raise ValueError(f"{name} must be None or (row, col) of an output cell, got {value!r}")
    (row, col), (height, width) = cells.tolist(), output_shape
    if row >= height or col >= width:
        raise ValueError(f"{name}=({row}, {col}) is not a cell of the {height} x {width} output: "
                         f"rows 0 to {height - 1}, columns 0 to {width - 1}")
    return (row, col)


def _stack_to_json(rank):
    # The chain's arrays at full rank, as the front end's model holds them ((C, H, W) for x).
    def to_json(value, widget=None):
        if value is None:
            return None
        array = np.asarray(value)
        return json_values(array.reshape((1,) * max(0, rank - array.ndim) + array.shape))
    return to_json


def _stack_from_json(value, widget=None):
    def decoded(item):
        if isinstance(item, list):
            return [decoded(part) for part in item]
        return NUMBER_NAMES.get(item, item) if isinstance(item, str) else item
    return None if value is None else np.asarray(decoded(value))


def _numbers_to_json(value, widget=None):
    return None if value is None else json_values(np.asarray(value, dtype=np.float64).reshape(-1))


def _view_from_json(value, widget=None):
    return value or "pool"  # the front end's model has no view key in the pool view


def _stack_trait(rank):
    return traitlets.Any(None, allow_none=True).tag(sync=True, to_json=_stack_to_json(rank),
                                                     from_json=_stack_from_json)


def _matrix_trait():
    return traitlets.Any(None, allow_none=True).tag(sync=True, to_json=_matrix_to_json,
                                                     from_json=_matrix_from_json)


def _pair_trait(default):
    return traitlets.Any(default, allow_none=True).tag(sync=True, to_json=_pair_to_json,
                                                        from_json=_pair_from_json)


class Widget(anywidget.AnyWidget):
    """The pooling widget in a Jupyter notebook, in one of three views (``view``):
    ``"pool"``, one 2D plane ``x`` pooled; ``"chain"``, ``x`` the input X of the chain
    conv -> pool -> loss (:func:`poolgrad.chain_trace`); ``"picture"``, ``x`` a picture
    pooled. Without ``view``, a 3-D ``x`` (``(H, W, 3)`` or ``(3, H, W)``) is a picture
    and anything else the pool view's plane: a grey ``(H, W)`` picture needs
    ``view="picture"``.

    The pooling parameters are those of :func:`poolgrad.trace`: ``mode`` is ``"max"``,
    ``"avg"``, ``"adaptive_max"``, ``"adaptive_avg"`` (their windows follow
    ``output_size``) or ``"lp"`` (``norm_type`` is its p); ``unpool`` shows
    ``max_unpool2d(output, indices)`` in the max modes; ``grad_output=None`` is all ones.
    Plus ``gradient`` (show the gradient's routing) and ``selection`` (the selected output
    cell, ``(row, col)`` or None). The picture view pools with the same parameters.

    The chain's settings (:func:`chain_arguments`): ``chain_weight`` ``(F, C, kh, kw)`` or
    ``(kh, kw)``, ``chain_bias`` (F numbers or None), ``chain_relu``, ``chain_pool``
    (``"max"``, ``"avg"``, ``"none"``), ``chain_pool_kernel_size``, ``chain_upstream``
    (``"loss-mse"``, ``"loss-l1"``, ``"ones"``, ``"ramp"``, ``"hot"``), ``chain_hot``,
    ``chain_target`` (the last output's shape), ``learning_rate`` and ``steps`` (the
    gradient-descent steps taken from the weights given: the view's Step adds one). Not
    given, X, the weight and the target are the view's start, the lesson's capstone
    (:func:`chain_start`; with another X the target starts at zeros). The picture's:
    ``picture_size`` (32, 64, 128 or 256: a longer side than it is scaled down),
    ``picture_channel`` (``"rgb"``, ``"grey"``, ``"r"``, ``"g"``, ``"b"``; a grey picture
    starts at ``"grey"``), ``picture_repeat`` (1 to 4) and ``picture_selection`` (an
    output pixel, ``(row, col)`` or None).

    Each is a synced trait: setting it redraws, and the widget's controls and taps set it.
    A view's and a mode's own settings are kept while another shows, as on the page. A
    value the functions refuse raises their ``ValueError`` or ``TypeError`` and the view
    stays; one from the widget's own controls is shown in the widget (the ``error`` trait).

    Read-only: ``trace`` (the dict poolgrad.trace returns for the pool view shown,
    chain_trace's for the chain, empty for a picture); the pool view's NumPy arrays
    ``output``, ``indices`` (the max modes, else None), ``grad_input`` (with ``gradient``
    on, else None) and ``unpooled`` (with ``unpool`` on in the max modes, else None), all
    None in another view; ``chain``, the chain view's chain_trace dict (else None);
    ``picture``, the picture view's arrays (:func:`compute_picture`, else None).

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

    The chain, and one step of gradient descent:

    >>> chain = Widget(view="chain")
    >>> chain.chain["loss"], chain.chain["pool_output"]
    (4.3125, [[[4.0, 2.0], [3.5, 3.0]]])
    >>> chain.steps = 1; chain.chain["loss"] < 4.3125
    True

    A picture (a grey one names its view):

    >>> picture = Widget(np.arange(16, dtype=np.uint8).reshape(4, 4), view="picture")
    >>> picture.picture["output"]
    array([[[ 5,  7],
            [13, 15]]], dtype=uint8)
    >>> Widget(np.zeros((2, 2, 4)))
    Traceback (most recent call last):
    ...
    ValueError: a picture must be (H, W) grey, (H, W, 3) or (3, H, W) colour, got shape (2, 2, 4)
    """

    _esm = BUNDLE
    _css = STYLESHEET

    view = traitlets.Any("pool").tag(sync=True, from_json=_view_from_json)
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
    chain_x = _stack_trait(3)
    chain_weight = _stack_trait(4)
    chain_bias = traitlets.Any(None, allow_none=True).tag(sync=True, to_json=_numbers_to_json,
                                                          from_json=_stack_from_json)
    chain_relu = traitlets.Any(False).tag(sync=True)
    chain_pool = traitlets.Any("max").tag(sync=True)
    chain_pool_kernel_size = _pair_trait(2)
    chain_upstream = traitlets.Any("loss-mse").tag(sync=True)
    chain_hot = traitlets.Any(None, allow_none=True).tag(sync=True, to_json=_selection_to_json,
                                                         from_json=_pair_from_json)
    chain_target = _stack_trait(3)
    learning_rate = traitlets.Any(0.01).tag(sync=True, to_json=_number_to_json, from_json=_number_from_json)
    steps = traitlets.Any(0).tag(sync=True)
    picture_size = traitlets.Any(128).tag(sync=True)
    picture_channel = traitlets.Any("rgb").tag(sync=True)
    picture_repeat = traitlets.Any(1).tag(sync=True)
    picture_selection = traitlets.Any(None, allow_none=True).tag(sync=True, to_json=_selection_to_json,
                                                                 from_json=_pair_from_json)
    #: The picture the kernel holds, as the front end needs it (web/notebook.js
    #: kernelPicture): its name, its sides and its sides at each size the view offers.
    picture_source = traitlets.Dict(read_only=True).tag(sync=True)
    #: The marks of poolgrad.check's failing case: exercise_check's mismatches.
    mismatches = traitlets.List().tag(sync=True)
    #: The page's readable error for a value the widget's own controls sent, else "".
    error = traitlets.Unicode("").tag(sync=True)
    trace = traitlets.Dict(read_only=True).tag(sync=True)
    #: The settings ``trace`` is of, as the front end spells them (its request key's source).
    trace_settings = traitlets.Dict(read_only=True).tag(sync=True)

    def __init__(self, x=None, kernel_size=2, stride=None, padding=0, dilation=1, ceil_mode=False,
                 count_include_pad=True, mode="max", gradient=False, grad_output=None, selection=None,
                 output_size=2, norm_type=2.0, unpool=False, view=None, *, chain_weight=None,
                 chain_bias=None, chain_relu=False, chain_pool="max", chain_pool_kernel_size=2,
                 chain_upstream="loss-mse", chain_hot=None, chain_target=None, learning_rate=0.01,
                 steps=0, picture_size=128, picture_channel=None, picture_repeat=1,
                 picture_selection=None, **kwargs):
        self._views: dict[str, tuple[str, Any]] = {}
        self._rgba = None
        if view is None:
            try:
                view = "picture" if np.ndim(x) == 3 else "pool"
            except ValueError:  # a ragged x: the pool view says what is wrong with it
                view = "pool"
        if view not in VIEWS:
            raise ValueError(f"view must be one of {', '.join(map(repr, VIEWS))}, got {view!r}")
        chain_x = None
        if view == "pool" and x is None:
            raise ValueError("the pool view needs x, a 2D plane of numbers: Widget(x); the chain view "
                             "starts at the lesson's capstone without one: Widget(view='chain')")
        if view == "picture":
            self._rgba = picture_rgba(x)
            if picture_channel is None and np.ndim(x) == 2:
                picture_channel = "grey"
            x = None
        elif view == "chain":
            chain_x, x = x, None
        start = chain_start()
        if chain_x is None:
            chain_x = start["x"]
            chain_weight = start["weight"] if chain_weight is None else chain_weight
            chain_target = start["target"] if chain_target is None else chain_target
        elif chain_weight is None:
            chain_weight = start["weight"]
        if chain_target is None and CHAIN_UPSTREAMS.get(chain_upstream):
            # Another X: the target starts at zeros of the last output's shape.
            shape = np.shape(chain_trace(**chain_arguments(
                chain_x, chain_weight, chain_bias, chain_relu, chain_pool, chain_pool_kernel_size, "ones",
                None, None, learning_rate, 0))["grad_last_output"])
            chain_target = np.zeros(shape)
        super().__init__(view=view, x=x, kernel_size=kernel_size, stride=stride, padding=padding,
                         dilation=dilation, ceil_mode=ceil_mode, count_include_pad=count_include_pad, mode=mode,
                         gradient=gradient, grad_output=grad_output, selection=selection,
                         output_size=output_size, norm_type=norm_type, unpool=unpool, chain_x=chain_x,
                         chain_weight=chain_weight, chain_bias=chain_bias, chain_relu=chain_relu,
                         chain_pool=chain_pool, chain_pool_kernel_size=chain_pool_kernel_size,
                         chain_upstream=chain_upstream, chain_hot=chain_hot, chain_target=chain_target,
                         learning_rate=learning_rate, steps=steps, picture_size=picture_size,
                         picture_channel=picture_channel or "rgb", picture_repeat=picture_repeat,
                         picture_selection=picture_selection, **kwargs)
        if self._rgba is not None:
            self.set_trait("picture_source", {
                "name": "The kernel's picture", "shape": list(self._rgba.shape[:2]),
                "sizes": {str(size): list(fit_picture(self._rgba, size).shape[:2]) for size in PICTURE_SIZES}})
        self._show(self._settings())
        self.on_msg(self._answer)

    # traitlets validates every trait of one change together (the constructor's, and the
    # front end's batch of keys), each seeing the others' new values: so each validator
    # checks the whole setting it would make, by computing it: the view shown, and the
    # chain for a chain setting whichever view shows.
    @traitlets.validate(*ALL_SETTINGS)
    def _check_setting(self, proposal):
        name = proposal["trait"].name
        value = self._normalised(name, proposal["value"])
        candidate = {**self._settings(), name: value}
        self._computed(candidate)
        if name in CHAIN_SETTINGS and candidate["view"] != "chain":
            self._computed({**candidate, "view": "chain"})
        return value

    @staticmethod
    def _normalised(name, value):
        if name == "view" and value not in VIEWS:
            raise ValueError(f"view must be one of {', '.join(map(repr, VIEWS))}, got {value!r}")
        if name in ("ceil_mode", "count_include_pad", "unpool", "chain_relu"):
            return as_flag(value, name)
        if name == "output_size":
            as_output_size(value)  # checked in every mode: it is kept for the adaptive ones
        elif name == "norm_type":
            as_norm_type(value)
        elif name in ("x", "grad_output") and value is not None:
            value = np.array(as_input(value, name))
            value.flags.writeable = False
        return value

    @traitlets.validate("gradient")
    def _check_gradient(self, proposal):
        return as_flag(proposal["value"], "gradient")

    @traitlets.validate("selection")
    def _check_selection(self, proposal):
        if self.view != "pool":
            return proposal["value"] if proposal["value"] is None else as_selection(proposal["value"], (2 ** 31,) * 2)
        return as_selection(proposal["value"], self.output.shape)

    @traitlets.observe(*ALL_SETTINGS, "gradient")
    def _redraw(self, change):
        if change["name"] == "x" and None in as_output_size(self.output_size):
            self.send_state("output_size")  # its JSON names the sides of x it keeps
        self._show(self._settings())

    def notify_change(self, change):
        # A setting, and the trace computed for it with its settings, reach the front end in
        # one message: the view never holds a setting beside another setting's trace.
        if change["name"] not in ALL_SETTINGS:
            super().notify_change(change)
            return
        with self.hold_sync():
            super().notify_change(change)

    def _answer(self, _widget, content, buffers):
        """A request of the front end (web/notebook.js): ``{type: "trace", id, key}``,
        where the key is the JSON of poolgrad.trace()'s or chain_trace()'s keyword
        arguments, answered with run_trace's JSON as the page's worker gives it; or
        ``{type: "picture", id, key}``, a picture request (poolgrad.picture.run_picture),
        its pixels the message's buffer or, without one, the kernel's own picture at the
        request's shape, answered with the JSON and the planes' bytes as its buffer."""
        if not isinstance(content, dict) or not isinstance(content.get("key"), str):
            return
        if content.get("type") == "trace":
            self.send({"type": "trace", "id": content.get("id"), "answer": run_trace(content["key"])})
        elif content.get("type") == "picture":
            pixels = bytes(buffers[0]) if buffers else self._pixels_for(content["key"])
            answered = run_trace(content["key"], pixels)
            answer, planes = answered if isinstance(answered, tuple) else (answered, b"")
            self.send({"type": "picture", "id": content.get("id"), "answer": answer}, buffers=[planes])

    def _pixels_for(self, request_json):
        # The kernel's picture at the longer side the request's shape names (the front end
        # took its sides from picture_source); run_picture checks the bytes fit the shape.
        if self._rgba is None:
            return None
        try:
            shape = json.loads(request_json).get("shape")
            size = max(int(shape[0]), int(shape[1]))
        except (ValueError, TypeError, AttributeError, IndexError):
            return b""
        return np.ascontiguousarray(fit_picture(self._rgba, size)).tobytes()

    def set_state(self, sync_data):
        """A change from the widget's controls: a refused one becomes the ``error`` shown
        in the widget, and the front end gets the good state back, instead of an exception
        in the kernel's log. The whole batch is checked first (the settings by computing
        their view, then ``gradient`` and ``selection`` against it): traitlets rolls a
        batch back on its own TraitError only, not on the functions' ValueError. The
        front end leaves out the settings of the views it does not show (they come as
        None): the kernel keeps them."""
        view = _view_from_json(sync_data.get("view", self.view))
        kept = {**CHAIN_SETTINGS_VIEW, **PICTURE_SETTINGS_VIEW}
        sync_data = {name: value for name, value in sync_data.items()
                     if not (value is None and name in kept and kept[name] != view)}
        previous = {name: getattr(self, name) for name in sync_data if self.has_trait(name)}
        try:
            decoded = {name: self.trait_metadata(name, "from_json", self._trait_from_json)(value, self)
                       for name, value in sync_data.items() if name in ALL_SETTINGS + ("gradient", "selection")}
            candidate = {**self._settings(), **{n: v for n, v in decoded.items() if n in ALL_SETTINGS}}
            for name in ALL_SETTINGS:
                candidate[name] = self._normalised(name, candidate[name])
            if "gradient" in decoded:
                candidate["gradient"] = as_flag(decoded["gradient"], "gradient")
            shown = self._computed(candidate)
            if "selection" in decoded and candidate["view"] == "pool":
                as_selection(decoded["selection"], shown.output.shape)
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
        return {name: getattr(self, name) for name in ALL_SETTINGS + ("gradient",)}

    def _computed(self, settings):
        """The view ``settings`` show: the pool view's View, the chain's chain_trace dict
        or the picture's compute_picture dict. One of each is kept: validating a change
        computes it, drawing it reuses it."""
        view = settings["view"]
        if view == "pool":
            names, make = SETTINGS, lambda: compute(**{name: settings[name] for name in SETTINGS})
        elif view == "chain":
            names, make = CHAIN_SETTINGS, lambda: chain_trace(**chain_arguments(
                **{name: settings[name] for name in CHAIN_SETTINGS}))
        else:
            names = SETTINGS + PICTURE_SETTINGS + ("gradient",)
            make = lambda: self._picture_of(settings)  # noqa: E731 - one of three
        key = repr({name: _matrix_to_json(settings[name]) if isinstance(settings[name], np.ndarray)
                    else settings[name] for name in names})
        if self._views.get(view, (None,))[0] != key:
            self._views[view] = (key, make())
        return self._views[view][1]

    def _picture_of(self, settings):
        if self._rgba is None:
            raise ValueError("this widget has no picture: make one with Widget(image), image an (H, W) "
                             "(with view='picture'), (H, W, 3) or (3, H, W) array")
        pooling = trace_arguments(**{name: settings[name] for name in SETTINGS})
        for name in ("x", "grad_output", "unpool"):
            pooling.pop(name)
        return compute_picture(self._rgba, **{name: settings[name] for name in PICTURE_SETTINGS},
                               gradient=as_flag(settings["gradient"], "gradient"), **pooling)

    def _show(self, settings):
        shown = self._computed(settings)
        self.set_trait("trace", shown.trace if settings["view"] == "pool" else
                       shown if settings["view"] == "chain" else {})
        self.set_trait("trace_settings", {
            name: self.trait_metadata(name, "to_json", self._trait_to_json)(settings[name], self)
            for name in ALL_SETTINGS})
        self.error = ""

    def _shown(self, view):
        return self._computed(self._settings()) if self.view == view else None

    @property
    def output(self) -> np.ndarray | None:
        """The pooled output of the pool view shown (None in another view)."""
        shown = self._shown("pool")
        return None if shown is None else shown.output

    @property
    def indices(self) -> np.ndarray | None:
        """The pool view's indices of the max modes (flat into the plane), else None."""
        shown = self._shown("pool")
        return None if shown is None else shown.indices

    @property
    def grad_input(self) -> np.ndarray | None:
        """The gradient routed back to x in the pool view, with ``gradient`` on (else None)."""
        shown = self._shown("pool")
        return None if shown is None or not self.gradient else shown.grad_input

    @property
    def unpooled(self) -> np.ndarray | None:
        """``max_unpool2d(output, indices)`` onto x's plane, with ``unpool`` on in the max
        modes of the pool view (else None): each maximum written back once where the
        gradient adds."""
        shown = self._shown("pool")
        return None if shown is None else shown.unpooled

    @property
    def chain(self) -> dict | None:
        """The chain view's :func:`poolgrad.chain_trace` dict (after ``steps`` steps), the
        numbers it draws; None in another view."""
        return self._shown("chain")

    @property
    def picture(self) -> dict | None:
        """The picture view's arrays (:func:`compute_picture`): ``input``, ``stages``,
        ``output``, ``grad_input``, ``gradient_share``, ``zoom``; None in another view."""
        return self._shown("picture")


#: Which view's settings each chain and picture setting is (the front end leaves them out
#: of the others).
CHAIN_SETTINGS_VIEW = dict.fromkeys(CHAIN_SETTINGS, "chain")
PICTURE_SETTINGS_VIEW = dict.fromkeys(PICTURE_SETTINGS, "picture")


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

__all__ = ["Widget", "check", "compute", "compute_picture", "chain_arguments", "chain_start", "View"]
