"""Everything the chain view shows of one small network, as strict JSON data.

The chain is the lesson's capstone: ``X --conv W--> Y1 [--relu-->] [--pool--> Y2]
--loss vs T--> L``, forward and then the whole backward pass, computed by the package's
own functions (:func:`~poolgrad.conv2d`, :func:`~poolgrad.relu`, the pooling, the
losses). The view draws what :func:`chain_trace` returns and never computes; the request
and the answer are documented in docs/trace-contract.md ("chain_trace()").
"""

from __future__ import annotations

import json
import math
import numbers
from functools import lru_cache
from typing import Any

import numpy as np

from .activation import relu, relu_backward
from .avg_pool import avg_pool2d, avg_pool2d_backward
from .conv import _backward as conv_backward
from .conv import _forward as conv_forward
from .conv import _setup as conv_setup
from .geometry import geometry
from .json_numbers import json_values
from .losses import l1_loss, l1_loss_backward, mse_loss, mse_loss_backward
from .max_pool import max_pool2d, max_pool2d_backward
from .trace import _group_by_input
from .validation import ArrayLike, IntOrPair, _is_int, _pair, as_input, conv_parameters

#: Largest side (H or W) of the chain's input: the view draws every cell.
MAX_CHAIN_SIDE = 16
#: Most input channels and filters the chain takes.
MAX_CHAIN_CHANNELS = 3
MAX_CHAIN_FILTERS = 4
#: Most gradient-descent steps one request may replay.
MAX_CHAIN_STEPS = 500

ACTIVATIONS = (None, "relu")
POOLS = ("max", "avg", None)
LOSSES = ("mse", "l1", None)

_LOSS_FUNCTIONS = {"mse": (mse_loss, mse_loss_backward), "l1": (l1_loss, l1_loss_backward)}


def chain_trace(x: ArrayLike, weight: ArrayLike, target: ArrayLike | None = None,
                bias: ArrayLike | None = None, stride: IntOrPair = 1,
                padding: IntOrPair | str = 0, dilation: IntOrPair = 1,
                activation: str | None = None, pool: str | None = "max",
                pool_kernel_size: IntOrPair = 2, pool_stride: IntOrPair | None = None,
                loss: str | None = "mse", grad_output: ArrayLike | float | None = None,
                learning_rate: float = 0.1, steps: int = 0) -> dict[str, Any]:
    """Run conv, activation, pooling and loss forward, then the whole backward pass.

    ``x`` is ``(H, W)`` or ``(C, H, W)``; ``weight`` is ``(kh, kw)`` (one filter for one
    channel) or ``(F, C, kh, kw)``; ``bias`` is ``None`` or ``F`` numbers. ``stride``,
    ``padding`` (an int, a pair, ``"valid"`` or ``"same"``) and ``dilation`` are
    :func:`~poolgrad.conv2d`'s. ``activation`` is ``None`` or ``"relu"``; ``pool`` is
    ``"max"``, ``"avg"`` or ``None``, with ``pool_kernel_size`` and ``pool_stride``
    (``None``: the kernel size); ``loss`` is ``"mse"``, ``"l1"`` (mean reduction) or
    ``None``, against ``target``, which has the last output's shape (``(F, PH, PW)``, or
    ``(PH, PW)`` when ``F == 1``).

    ``grad_output``, when given (one number for every cell, or the last output's shape),
    is a made-up dL/d(last output) that replaces the loss: then ``loss`` is ``None``.
    Without it, a loss and a target are needed.

    ``steps`` gradient-descent steps ``W <- W - learning_rate * dL/dW`` (and likewise for
    the bias) are taken from the given weight and bias first; the returned pass is the
    one after them, so a start and a step count reproduce a view exactly.

    Every array comes back at full rank (``(C, H, W)``, ``(F, C, kh, kw)``, ``(F, OH,
    OW)``...) as nested lists of float64 numbers, non-finite ones named as in
    :mod:`poolgrad.json_numbers`. The keys are listed in docs/trace-contract.md.

    The lesson's capstone: the edge filter, max pooling 2 x 2, MSE against zeros.

    >>> x = [[3, 0, 1, 2, 7, 4], [1, 5, 8, 9, 3, 1], [2, 7, 2, 5, 1, 3],
    ...      [0, 1, 3, 1, 7, 8], [4, 2, 1, 6, 2, 8], [2, 4, 5, 2, 3, 9]]
    >>> edge = [[1, 0, -1], [1, 0, -1], [1, 0, -1]]
    >>> result = chain_trace(x, edge, target=[[0, 0], [0, 0]])
    >>> result["conv_output"]
    [[[-5.0, -4.0, 0.0, 8.0], [-10.0, -2.0, 2.0, 3.0], [0.0, -2.0, -4.0, -7.0], [-3.0, -2.0, -3.0, -16.0]]]
    >>> result["pool_output"], result["pool_indices"], result["loss"]
    ([[[-2.0, 8.0], [0.0, -3.0]]], [[[5, 3], [8, 14]]], 19.25)
    >>> result["grad_pool_output"]
    [[[-1.0, 4.0], [0.0, -1.5]]]
    >>> result["connections"]["feeds"][0][1]
    [[0, 0, 0, 1], [0, 1, 0, 0]]
    >>> chain_trace(x, edge)
    Traceback (most recent call last):
    ...
    ValueError: the chain needs somewhere for its gradient to start: a loss ('mse' or 'l1') with a target, or a made-up grad_output
    """
    # NaN and infinities are numbers the view shows, not mistakes to warn about.
    with np.errstate(all="ignore"):
        request = _checked(x, weight, target, bias, stride, padding, dilation, activation,
                           pool, pool_kernel_size, pool_stride, loss, grad_output,
                           learning_rate, steps)
        w, b = request.weight, request.bias
        history = []
        for _ in range(request.steps):
            step = _pass(request, w, b)
            history.append(step["loss"])
            w = w - request.learning_rate * step["grad_weight"]
            if b is not None:
                b = b - request.learning_rate * step["grad_bias"]
        arrays = _pass(request, w, b)
    history.append(arrays["loss"])
    return _answer(request, w, b, arrays, history)


class _Request:
    """The checked request, every array as float64 at full rank."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def _choice(value, choices, name):
    if not (value is None or isinstance(value, str)) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def _checked(x, weight, target, bias, stride, padding, dilation, activation, pool,
             pool_kernel_size, pool_stride, loss, grad_output, learning_rate, steps):
    activation = _choice(activation, ACTIVATIONS, "activation")
    pool = _choice(pool, POOLS, "pool")
    loss = _choice(loss, LOSSES, "loss")
    plane = as_input(x, "x")
    if plane.ndim == 4:
        raise ValueError(f"x must be (H, W) or (C, H, W) for the chain, got 4-D with shape "
                         f"{plane.shape}")
    plane = plane.astype(np.float64).reshape((-1,) + plane.shape[-2:])
    channels, height, width = plane.shape
    if max(height, width) > MAX_CHAIN_SIDE:
        raise ValueError(f"x is {height} x {width}: the chain takes at most "
                         f"{MAX_CHAIN_SIDE} x {MAX_CHAIN_SIDE} cells")
    if channels > MAX_CHAIN_CHANNELS:
        raise ValueError(f"x has {channels} channels: the chain takes 1 to "
                         f"{MAX_CHAIN_CHANNELS}")
    filters = as_input(weight, "weight")
    if filters.ndim == 2:
        if channels != 1:
            raise ValueError(
                f"weight is one (kh, kw) filter for one channel, but x has {channels} "
                "channels: give weight as (F, C, kh, kw)")
        filters = filters[None, None]
    elif filters.ndim != 4:
        raise ValueError(f"weight must be (kh, kw) or (F, C, kh, kw), got {filters.ndim}-D "
                         f"with shape {filters.shape}")
    count = filters.shape[0]
    if count > MAX_CHAIN_FILTERS:
        raise ValueError(f"weight has {count} filters: the chain takes 1 to "
                         f"{MAX_CHAIN_FILTERS}")
    if filters.shape[1] != channels:
        raise ValueError(f"weight has {filters.shape[1]} channels per filter but x has "
                         f"{channels}: weight must be (F, {channels}, kh, kw)")
    params = conv_parameters(filters.shape[2:], stride, padding, dilation)
    if max(params.padding) > MAX_CHAIN_SIDE:
        raise ValueError(f"padding={max(params.padding)} is too much for the chain: at "
                         f"most {MAX_CHAIN_SIDE}")
    if bias is not None:
        if np.ndim(bias) == 0:
            bias = [bias]
        if np.ndim(bias) != 1 or np.shape(bias)[0] != count:
            raise ValueError(f"bias must hold one number per filter ({count}), got shape "
                             f"{np.shape(bias)}")
        bias = as_input(np.reshape(bias, (1, -1)), "bias")[0].astype(np.float64)
    # The convolution's own checks cover what is left (the filter fits the padded input)
    # and give the shapes every later check needs.
    conv = conv_setup(plane, filters, params.stride, padding, params.dilation, 1)
    out_hw = conv.output
    pool_kernel = _pair(pool_kernel_size, "pool_kernel_size")
    pool_strides = pool_kernel if pool_stride is None else _pair(pool_stride, "pool_stride")
    last_hw = out_hw
    if pool is not None:
        try:
            last_hw = geometry(out_hw, pool_kernel, pool_strides).output
        except ValueError as error:
            raise ValueError(f"the pooling of the {out_hw[0]} x {out_hw[1]} convolution "
                             f"output: {error}") from None
    last_shape = (count,) + tuple(last_hw)
    if target is not None:
        target = _last_shaped(target, "target", last_shape)
    if grad_output is not None:
        if isinstance(grad_output, numbers.Real) and not isinstance(grad_output, bool):
            grad_output = np.full(last_shape, float(grad_output))
        else:
            grad_output = _last_shaped(grad_output, "grad_output", last_shape)
    elif loss is None or target is None:
        raise ValueError("the chain needs somewhere for its gradient to start: a loss "
                         "('mse' or 'l1') with a target, or a made-up grad_output")
    if (isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real)
            or not math.isfinite(learning_rate) or learning_rate < 0):
        raise ValueError(f"learning_rate must be a finite number of at least 0, got "
                         f"{learning_rate!r}")
    if not _is_int(steps) or not 0 <= steps <= MAX_CHAIN_STEPS:
        raise ValueError(f"steps must be an int from 0 to {MAX_CHAIN_STEPS}, got {steps!r}")
    return _Request(x=plane, weight=filters.astype(np.float64), bias=bias, target=target,
                    params=params, padding=padding, activation=activation, pool=pool,
                    pool_kernel=pool_kernel, pool_stride=pool_strides, loss=loss,
                    grad_output=grad_output, learning_rate=float(learning_rate),
                    steps=int(steps), out_hw=out_hw, conv=conv)


def _last_shaped(value, name, last_shape):
    """``value`` as float64 of the last output's shape; ``(PH, PW)`` when F == 1."""
    array = as_input(value, name).astype(np.float64)
    if array.shape == last_shape[1:] and last_shape[0] == 1:
        array = array[None]
    if array.shape != last_shape:
        alternative = f" or {last_shape[1:]}" if last_shape[0] == 1 else ""
        raise ValueError(f"{name} has shape {array.shape} but the chain's last output has "
                         f"shape {last_shape}{alternative}: they must match")
    return array


def _pass(request, weight, bias):
    """One forward and backward pass through the chain, as arrays."""
    # conv2d and conv2d_backward's own steps, on one checked convolution whose input
    # columns are gathered once for every step.
    conv = request.conv.using(weight, bias)
    arrays = {"conv_output": conv_forward(conv)[0]}
    last = arrays["conv_output"]
    if request.activation:
        last = arrays["activation_output"] = relu(last)
    if request.pool == "max":
        last, arrays["pool_indices"] = max_pool2d(last, request.pool_kernel, request.pool_stride,
                                                  return_indices=True)
        arrays["pool_output"] = last
    elif request.pool == "avg":
        last = arrays["pool_output"] = avg_pool2d(last, request.pool_kernel, request.pool_stride)
    if request.grad_output is not None:
        arrays["loss"], grad = None, request.grad_output
    else:
        forward, backward = _LOSS_FUNCTIONS[request.loss]
        arrays["loss"] = float(forward(last, request.target))
        grad = backward(1.0, last, request.target)
    arrays["grad_last_output"] = grad
    if request.pool:
        arrays["grad_pool_output"] = grad
        before_pool = arrays.get("activation_output", arrays["conv_output"]).shape
        if request.pool == "max":
            grad = max_pool2d_backward(grad, arrays["pool_indices"], before_pool)
        else:
            grad = avg_pool2d_backward(grad, before_pool, request.pool_kernel,
                                       request.pool_stride)
    if request.activation:
        arrays["grad_activation_output"] = grad
        grad = relu_backward(grad, arrays["conv_output"])
    arrays["grad_conv_output"] = grad
    grad_input, arrays["grad_weight"], arrays["grad_bias"] = conv_backward(
        conv, grad[None], bias is not None)
    arrays["grad_input"] = grad_input[0]
    return arrays


def _values(array):
    return None if array is None else json_values(array)


def _answer(request, weight, bias, arrays, history):
    params = request.params
    receivers = windows = None
    if request.pool:
        windows, receivers = _pool_cells(request, arrays)
    return {
        "kind": "chain",
        "input": _values(request.x),
        "weight": _values(weight),
        "bias": _values(bias),
        "target": _values(request.target),
        "stride": list(params.stride),
        "padding": list(params.padding),
        "dilation": list(params.dilation),
        "pool_kernel_size": list(request.pool_kernel),
        "pool_stride": list(request.pool_stride),
        "activation": request.activation,
        "pool": request.pool,
        "loss_function": request.loss if request.grad_output is None else None,
        "upstream": "grad_output" if request.grad_output is not None else "loss",
        "conv_output": _values(arrays["conv_output"]),
        "activation_output": _values(arrays.get("activation_output")),
        "pool_output": _values(arrays.get("pool_output")),
        "pool_indices": _values(arrays.get("pool_indices")),
        "pool_windows": windows,
        "pool_receivers": receivers,
        "loss": _values(arrays["loss"]),
        "loss_history": None if arrays["loss"] is None else _values(np.array(history)),
        "grad_last_output": _values(arrays["grad_last_output"]),
        "grad_pool_output": _values(arrays.get("grad_pool_output")),
        "grad_activation_output": _values(arrays.get("grad_activation_output")),
        "grad_conv_output": _values(arrays["grad_conv_output"]),
        "grad_weight": _values(arrays["grad_weight"]),
        "grad_bias": _values(arrays["grad_bias"]),
        "grad_input": _values(arrays["grad_input"]),
        "connections": _connections(request, weight.shape[2:]),
    }


def _pool_cells(request, arrays):
    """The Y1 cells each pooling window covers, and how many windows route gradient to
    each Y1 cell (max: the windows whose maximum it is; avg: every window holding it)."""
    out_h, out_w = request.out_hw
    pooled_hw = arrays["pool_output"].shape[1:]
    windows, covered = _pool_windows(request.pool_kernel, request.pool_stride, pooled_hw,
                                     request.out_hw)
    count = arrays["conv_output"].shape[0]
    if request.pool == "max":
        chosen = arrays["pool_indices"].reshape(count, -1)
        chosen = chosen + (np.arange(count) * out_h * out_w)[:, None]
        # bincount counts in intp, int32 under Pyodide: the int64 indices would not cast.
        receivers = np.bincount(chosen.ravel().astype(np.intp), minlength=count * out_h * out_w)
    else:
        receivers = np.broadcast_to(covered, (count, out_h * out_w))
    return json.loads(windows), receivers.reshape(count, out_h, out_w).tolist()


@lru_cache(maxsize=64)
def _pool_windows(kernel, stride, pooled_hw, out_hw):
    """The windows' cells as JSON text (a view asks for the same few geometries again and
    again; each answer gets its own lists back from the text), and how many windows cover
    each Y1 cell."""
    (kh, kw), (sh, sw), (pooled_h, pooled_w) = kernel, stride, pooled_hw
    rows = (np.arange(pooled_h) * sh)[:, None, None, None] + np.arange(kh)[None, None, :, None]
    cols = (np.arange(pooled_w) * sw)[None, :, None, None] + np.arange(kw)[None, None, None, :]
    rows, cols = np.broadcast_arrays(rows, cols)
    cells = np.stack([rows, cols], axis=-1).reshape(pooled_h, pooled_w, kh * kw, 2)
    covered = np.bincount((rows * out_hw[1] + cols).ravel(), minlength=out_hw[0] * out_hw[1])
    covered.flags.writeable = False
    return json.dumps(cells.tolist()), covered


def _connections(request, kernel):
    """Which input cells each conv output reads, and which outputs each input cell feeds."""
    params = request.params
    return json.loads(_connections_text(tuple(kernel), params.stride, params.padding,
                                        params.dilation, request.out_hw, request.x.shape[1:]))


@lru_cache(maxsize=64)
def _connections_text(kernel, stride, padding, dilation, out_hw, input_hw):
    """:func:`_connections` as JSON text, once per geometry (see :func:`_pool_windows`)."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    top, _, left, _ = padding
    (out_h, out_w), (height, width) = out_hw, input_hw
    rows = (np.arange(out_h) * sh - top)[:, None, None, None] + (np.arange(kh) * dh)[None, None, :, None]
    cols = (np.arange(out_w) * sw - left)[None, :, None, None] + (np.arange(kw) * dw)[None, None, None, :]
    rows, cols = np.broadcast_arrays(rows, cols)
    reads = np.stack([rows, cols], axis=-1).reshape(out_h, out_w, kh * kw, 2)
    taps = np.stack(np.broadcast_arrays(
        np.arange(out_h)[:, None, None, None], np.arange(out_w)[None, :, None, None],
        np.arange(kh)[None, None, :, None], np.arange(kw)[None, None, None, :]), axis=-1)
    inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
    # Row-major (oh, ow, i, j) order already; a stable sort by input cell keeps it.
    entries = taps[inside]
    grouped, bounds = _group_by_input((rows * width + cols)[inside],
                                      np.arange(len(entries)), height * width)
    listed = entries[grouped].tolist()
    feeds = [[listed[bounds[r * width + c]:bounds[r * width + c + 1]] for c in range(width)]
             for r in range(height)]
    return json.dumps({"reads": reads.tolist(), "feeds": feeds})
