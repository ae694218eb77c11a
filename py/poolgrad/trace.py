"""Everything the widget shows about one pooling of one 2D plane, as JSON-safe data.

The front end never computes pooling: it renders what :func:`trace` returns. So the dict
carries the values, the geometry of every window, each output's winning cell, the
reverse map (which outputs reach each input cell) and, when an upstream gradient is
given, the routed gradient together with the terms that add up on each cell.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .adaptive_pool import (adaptive_avg_pool2d, adaptive_avg_pool2d_backward, adaptive_max_pool2d,
                            adaptive_max_pool2d_backward)
from .avg_pool import avg_pool2d, avg_pool2d_backward, divisors
from .geometry import adaptive_bounds, adaptive_covers, adaptive_output, axis_formula, geometry, sampled_lines
from .json_numbers import json_values
from .lp_pool import _forward_steps, _mean_gradient, input_factor, lp_pool2d, lp_pool2d_backward
from .max_pool import max_pool2d, max_pool2d_backward
from .unpool import unpool_planes
from .validation import ArrayLike, IntOrPair, OutputSize, _pair, as_flag, as_input, as_norm_type

MODES = ("max", "avg", "adaptive_max", "adaptive_avg", "lp")
#: The modes whose windows follow output_size instead of kernel_size and stride.
ADAPTIVE_MODES = ("adaptive_max", "adaptive_avg")
#: The modes that choose one cell per window (where unpooling applies).
MAX_MODES = ("max", "adaptive_max")

#: Largest plane trace() describes, in and out: it is one plane for a person to look at
#: (the widget itself stops at 16 x 16). Pool larger planes with max_pool2d / avg_pool2d.
MAX_TRACE_CELLS = 64 * 64

#: Largest number of (output cell, window cell) pairs trace() describes: the windows
#: listed, and in average mode the sources and gradient terms, grow with it.
MAX_TRACE_WINDOW_CELLS = 2**18


def _size_formula(n, k, s, p, d, ceil_mode):
    numerator, by_formula, size = axis_formula(n, k, s, p, d, ceil_mode)
    return {
        "n": n, "k": k, "s": s, "p": p, "d": d, "ceil": bool(ceil_mode),
        "numerator": numerator, "by_formula": by_formula, "size": size,
        "dropped_last": by_formula > size,
    }


def _group_by_input(input_flat, output_flat, input_cells):
    """Sort (input cell, output cell) pairs by input cell, then output, row-major.

    ``output_flat`` must already be in row-major output order, so a stable sort by input
    cell keeps each cell's outputs in that order. Returns the output cells in the new
    order and, per input cell, where its run starts and ends
    (``bounds[cell]:bounds[cell + 1]``).
    """
    order = np.argsort(input_flat, kind="stable")
    bounds = np.searchsorted(input_flat[order], np.arange(input_cells + 1))
    return output_flat[order], bounds.tolist()


def _coordinates(flat, width):
    """``[row, col]`` lists of flat positions in a plane ``width`` cells wide."""
    flat = np.asarray(flat)
    pairs = np.empty(flat.shape + (2,), np.int64)
    np.divmod(flat, width, out=(pairs[..., 0], pairs[..., 1]))
    return pairs.tolist()


def trace(x: ArrayLike, kernel_size: IntOrPair | None = None, stride: IntOrPair | None = None,
          padding: IntOrPair = 0, dilation: IntOrPair = 1, ceil_mode: bool = False, mode: str = "max",
          grad_output: ArrayLike | float | None = None, count_include_pad: bool = True,
          output_size: OutputSize | None = None, norm_type: float | None = None,
          unpool: bool = False) -> dict[str, Any]:
    """Pool one 2D plane and describe every step of it for the widget.

    Parameters are those of :func:`poolgrad.max_pool2d` (``mode="max"``),
    :func:`poolgrad.avg_pool2d` (``mode="avg"``, where ``dilation`` must be 1 and
    ``count_include_pad`` applies) or :func:`poolgrad.lp_pool2d` (``mode="lp"`` with
    ``norm_type``; no padding, no dilation), validated the same way. The adaptive modes
    (``"adaptive_max"``, ``"adaptive_avg"``) take ``output_size`` instead of the kernel,
    stride, padding, dilation and ceil mode, which do not apply there. ``unpool`` (the max
    modes) adds ``max_unpool2d(output, indices)`` onto the input's plane. ``grad_output``, when given,
    is the upstream gradient (one value per output cell, or one number for all of them)
    routed back to the input, in ``float64``.

    It describes one plane for a person to look at, so it has its own ceiling: at most
    :data:`MAX_TRACE_CELLS` (64 x 64) input cells, as many output cells, and
    :data:`MAX_TRACE_WINDOW_CELLS` output-cell-times-window-cell pairs (``OH * OW * kh * kw``).

    The keys, all plain lists, ints, floats, bools and strings (non-finite floats are
    ``"NaN"``, ``"Infinity"``, ``"-Infinity"``; see :func:`poolgrad.json_numbers.json_values`):

    - ``mode``, ``kernel_size``, ``stride``, ``padding``, ``dilation`` (``[h, w]``),
      ``ceil_mode``, ``count_include_pad``, ``input_shape`` ``[H, W]``, ``output_shape``
      ``[OH, OW]``, ``pad_value`` (what a padded cell holds: ``"-Infinity"`` or ``0``).
    - ``input`` (H x W) and ``output`` (OH x OW) values.
    - ``size_formula``: per axis (``rows``, ``cols``) the numbers of
      ``floor((n + 2p - d(k-1) - 1) / s) + 1``: ``n k s p d ceil numerator size`` and
      ``dropped_last`` (ceil mode dropped a window that would start in the padding).
    - ``window_rows`` (OH lists of kh rows) and ``window_cols`` (OW lists of kw
      columns): the input lines each output line samples, in unpadded coordinates (a
      line < 0 or >= the side is padding). Output (i, j)'s window is their product.
    - max mode: ``argmax`` (OH x OW ``[r, c]``) and ``indices`` (PyTorch's ``r * W + c``).
      avg mode: ``divisor`` (OH x OW ints).
    - ``sources`` (H x W lists of ``[i, j]``, row-major): the outputs whose gradient
      reaches the cell: in max mode those whose argmax it is, in avg mode those whose
      window covers it.
    - with ``grad_output``: ``grad_output``, ``grad_input``, ``grad_terms`` (aligned with
      ``sources``: each one's contribution, ``g`` in max mode and ``g / divisor`` in avg
      mode; added left to right from 0 they give ``grad_input`` exactly),
      ``grad_output_sum`` (the exact sum of ``grad_output``, rounded once) and
      ``grad_input_sum`` (the exact sum of every term that reached an input cell,
      rounded once: equal to ``grad_output_sum`` in max mode).

    The lesson's fixture with 3 x 3 windows, stride 1: two outputs take their 8 from
    input cell (1, 2), and their gradients add up there.

    >>> fixture = [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]]
    >>> t = trace(fixture, 3, stride=1, grad_output=[[1, 2], [3, 4]])
    >>> t["output"], t["argmax"][0]
    ([[8, 8], [9, 9]], [[1, 2], [1, 2]])
    >>> t["window_rows"], t["window_cols"]
    ([[0, 1, 2], [1, 2, 3]], [[0, 1, 2], [1, 2, 3]])
    >>> t["sources"][1][2], t["grad_terms"][1][2], t["grad_input"][1][2]
    ([[0, 0], [0, 1]], [1.0, 2.0], 3.0)
    >>> t["grad_output_sum"] == t["grad_input_sum"] == 10.0
    True
    >>> trace(fixture, 3, stride=1, grad_output=1)["grad_input"][1][2]
    2.0

    Average pooling spreads each gradient over its window instead:

    >>> t = trace([[12, 10, 9, 6], [11, 8, 13, 5], [2, 14, 15, 0], [4, 3, 7, 1]], 2,
    ...           mode="avg", grad_output=[[1, 2], [3, 4]])
    >>> t["output"], t["divisor"]
    ([[10.25, 8.25], [5.75, 5.75]], [[4, 4], [4, 4]])
    >>> t["grad_input"][0]
    [0.25, 0.25, 0.5, 0.5]

    Padding in max mode is never chosen; the strict-JSON names show up where the
    values are not finite:

    >>> t = trace([[float("nan"), 1.0], [2.0, 3.0]], 2, stride=1, padding=1)
    >>> t["pad_value"], t["output"][0], t["argmax"][0][0]
    ('-Infinity', ['NaN', 'NaN', 1.0], [0, 0])
    """
    settings = pooling_settings(mode, kernel_size, stride, padding, dilation, ceil_mode,
                                count_include_pad, output_size, norm_type)
    count_include_pad, ceil_mode = settings["count_include_pad"], settings["ceil_mode"]
    unpool = as_flag(unpool, "unpool")
    if unpool and mode not in MAX_MODES:
        raise ValueError(f"unpool applies to the max modes ('max', 'adaptive_max'), not "
                         f"mode={mode!r}: it puts each output back at its argmax")
    plane = as_input(x, "x")
    if plane.ndim != 2:
        raise ValueError(
            f"x must be one 2D plane (H, W) for trace(), got {plane.ndim} dimensions "
            f"with shape {plane.shape}")
    if plane.size > MAX_TRACE_CELLS:
        raise ValueError(
            f"x has {plane.shape[0]} x {plane.shape[1]} = {plane.size} cells, too many for "
            f"trace(): it describes at most {MAX_TRACE_CELLS} cells (64 x 64); pool larger "
            "planes with max_pool2d / avg_pool2d")
    if mode in ADAPTIVE_MODES:
        return _adaptive_trace(plane, mode, output_size, grad_output, unpool)
    norm_type = settings.get("norm_type")
    geo = geometry(plane.shape, kernel_size, stride, padding, dilation, ceil_mode)
    (height, width), (out_h, out_w) = geo.input, geo.output
    _refuse_large_output(out_h, out_w, "use a larger kernel or stride, or pool with "
                                       "max_pool2d / avg_pool2d")
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = geo.kernel, geo.stride, geo.padding, geo.dilation
    if out_h * out_w * kh * kw > MAX_TRACE_WINDOW_CELLS:
        raise ValueError(
            f"{out_h} x {out_w} outputs with {kh} x {kw} windows are too many window cells "
            f"for trace() ({out_h * out_w * kh * kw}; at most {MAX_TRACE_WINDOW_CELLS}): "
            "use a smaller kernel or input, or max_pool2d / avg_pool2d")

    rows = sampled_lines(out_h, kh, sh, ph, dh)
    cols = sampled_lines(out_w, kw, sw, pw, dw)
    result = {
        "mode": mode,
        "kernel_size": list(geo.kernel), "stride": list(geo.stride),
        "padding": list(geo.padding), "dilation": list(geo.dilation),
        "ceil_mode": bool(ceil_mode), "count_include_pad": bool(count_include_pad),
        "input_shape": [height, width], "output_shape": [out_h, out_w],
        "pad_value": "-Infinity" if mode == "max" else 0,
        **({"norm_type": json_values(norm_type)} if mode == "lp" else {}),
        "input": json_values(plane),
        "size_formula": {
            "rows": _size_formula(height, kh, sh, ph, dh, ceil_mode),
            "cols": _size_formula(width, kw, sw, pw, dw, ceil_mode),
        },
        "window_rows": rows.tolist(),
        "window_cols": cols.tolist(),
    }

    output_cells = np.arange(out_h * out_w).reshape(out_h, out_w)
    r, c, inside = _window_cells(rows, cols, height, width)
    lp_routes = mode == "lp" and abs(norm_type) == np.inf
    if mode == "max" or lp_routes:
        flip = -1 if mode == "lp" and norm_type < 0 else 1
        scanned = plane if mode == "max" else flip * np.abs(plane.astype(np.float64))
        output, indices = max_pool2d(scanned, geo.kernel, geo.stride, geo.padding,
                                     geo.dilation, ceil_mode, return_indices=True)
        result["argmax"] = _coordinates(indices, width)
        result["indices"] = indices.tolist()
        result["tied"] = _tied_cells(scanned, output, r, c, inside)
        if mode == "lp":
            output = lp_pool2d(plane, norm_type, geo.kernel, geo.stride, ceil_mode)
        input_flat, output_flat = indices.ravel(), output_cells.ravel()
        if unpool:
            result["unpooled"] = json_values(unpool_planes(output, indices, (height, width)))
    elif mode == "lp":
        array = plane if plane.dtype.kind == "f" else plane.astype(np.float64)
        mean, plain, scaled, output = _forward_steps(array, norm_type, geo.kernel, geo.stride,
                                                     ceil_mode)
        divisor = divisors(geo)
        result["divisor"] = divisor.tolist()
        result["lp_sums"] = json_values(scaled)
        input_flat = (r * width + c)[inside]
        output_flat = np.broadcast_to(output_cells[:, :, None, None], inside.shape)[inside]
    else:
        output = avg_pool2d(plane, geo.kernel, geo.stride, geo.padding, ceil_mode,
                            count_include_pad)
        divisor = divisors(geo, count_include_pad)
        result["divisor"] = divisor.tolist()
        # One (input cell, output cell) pair per kernel offset that lands inside the input.
        input_flat = (r * width + c)[inside]
        output_flat = np.broadcast_to(output_cells[:, :, None, None], inside.shape)[inside]
    grouped_outputs, bounds = _output_and_sources(result, output, input_flat, output_flat,
                                                  (height, width), out_w)

    if grad_output is not None:
        grad = _upstream(grad_output, out_h, out_w)
        if mode == "max":
            grad_input = max_pool2d_backward(grad, indices, (height, width))
            terms = grad.ravel()[grouped_outputs]
        elif mode == "lp":
            array = plane.astype(np.float64)
            grad_input = lp_pool2d_backward(grad, array, norm_type, geo.kernel, geo.stride,
                                            ceil_mode)
            if lp_routes:
                terms = grad.ravel()[grouped_outputs]
            else:
                mean, plain, scaled, _ = _forward_steps(array, norm_type, geo.kernel,
                                                        geo.stride, ceil_mode)
                grad_mean = _mean_gradient(grad, mean, plain, scaled, norm_type, geo.kernel)
                terms = (grad_mean / divisor).ravel()[grouped_outputs]
            result["grad_factor"] = json_values(input_factor(array, norm_type))
        else:
            grad_input = avg_pool2d_backward(grad, (height, width), geo.kernel, geo.stride,
                                             geo.padding, ceil_mode, count_include_pad)
            # The very division avg_pool2d_backward makes before adding the shares up.
            terms = (grad / divisor).ravel()[grouped_outputs]
        _gradient_fields(result, grad, grad_input, terms, bounds, width)
    return result


def pooling_settings(mode: str, kernel_size: IntOrPair | None = None,
                     stride: IntOrPair | None = None, padding: IntOrPair = 0,
                     dilation: IntOrPair = 1, ceil_mode: bool = False,
                     count_include_pad: bool = True, output_size: OutputSize | None = None,
                     norm_type: float | str | None = None) -> dict[str, Any]:
    """trace()'s settings checked before any input is read, each rule said here once (the
    picture view's pool_picture checks its settings with it too): the mode, the flags,
    which settings apply to the mode and which it needs. Returns them as a dict: ``mode``,
    ``ceil_mode``, ``count_include_pad`` and either ``output_size`` (the adaptive modes)
    or ``kernel_size``, ``stride``, ``padding``, ``dilation`` (and LP's ``norm_type``) as
    given; the rules that need the input's size are :func:`poolgrad.geometry`'s.

    >>> pooling_settings("avg", 2)["kernel_size"], pooling_settings("adaptive_max", output_size=3)
    (2, {'mode': 'adaptive_max', 'ceil_mode': False, 'count_include_pad': True, 'output_size': 3})
    >>> pooling_settings("avg", 2, dilation=2)
    Traceback (most recent call last):
    ...
    ValueError: dilation=2 is not available for average pooling (avg_pool2d has no dilation): use dilation=1 or mode='max'
    """
    if not isinstance(mode, str) or mode not in MODES:
        raise ValueError(f"mode={mode!r} is not a pooling mode: use one of "
                         + ", ".join(repr(name) for name in MODES))
    settings = {"mode": mode, "ceil_mode": as_flag(ceil_mode, "ceil_mode"),
                "count_include_pad": as_flag(count_include_pad, "count_include_pad")}
    if norm_type is not None and mode != "lp":
        raise ValueError(f"norm_type applies to mode='lp' only, not mode={mode!r}")
    if output_size is not None and mode not in ADAPTIVE_MODES:
        raise ValueError(f"output_size applies to the adaptive modes only, not mode={mode!r}: "
                         "use kernel_size and stride")
    if mode in ADAPTIVE_MODES:
        _refuse_window_parameters(mode, kernel_size, stride, padding, dilation, ceil_mode)
        if output_size is None:
            raise ValueError(f"mode={mode!r} needs output_size (an int or an (h, w) pair)")
        return {**settings, "output_size": output_size}
    if kernel_size is None:
        raise ValueError(f"mode={mode!r} needs kernel_size")
    if mode == "lp":
        if norm_type is None:
            raise ValueError("mode='lp' needs norm_type (p, such as 2)")
        settings["norm_type"] = as_norm_type(norm_type)
        if _pair(padding, "padding") != (0, 0) or _pair(dilation, "dilation") != (1, 1):
            raise ValueError("lp_pool2d has no padding and no dilation: use padding=0 and "
                             "dilation=1 with mode='lp'")
    if mode == "avg" and _pair(dilation, "dilation") != (1, 1):
        raise ValueError(f"dilation={dilation!r} is not available for average pooling "
                         "(avg_pool2d has no dilation): use dilation=1 or mode='max'")
    return {**settings, "kernel_size": kernel_size, "stride": stride, "padding": padding,
            "dilation": dilation}


def _refuse_large_output(out_h, out_w, advice):
    """The output's share of trace()'s ceiling: as many cells as the input may have."""
    if out_h * out_w > MAX_TRACE_CELLS:
        raise ValueError(
            f"the output would have {out_h} x {out_w} = {out_h * out_w} cells, too many for "
            f"trace(): it describes at most {MAX_TRACE_CELLS} cells (64 x 64); {advice}")


def _exact_sum(values):
    """The sum of ``values`` rounded once, so it does not depend on their order: NaN when
    they hold NaN or both infinities, an infinity when they hold one.

    >>> _exact_sum([0.1, 0.2, -0.1]) == 0.2, _exact_sum([1e308, 1e308, -1e308])
    (True, 1e+308)
    >>> _exact_sum([-1e308, -1e308])
    -inf
    """
    values = np.asarray(values, np.float64).ravel()
    if not np.isfinite(values).all():
        return float(np.sum(values))
    try:
        return math.fsum(values.tolist())
    except OverflowError:
        # fsum gives up when a partial sum overflows; the exact rational sum does not.
        total = sum(map(Fraction, values.tolist()), Fraction(0))
        try:
            return float(total)
        except OverflowError:  # the exact sum rounds past the largest float
            return math.inf if total > 0 else -math.inf


def _window_cells(rows, cols, height, width):
    """The windows' row and column lines, clipped to one past the input (far past it they
    may not fit in int64) and shaped (out_h, 1, kh, 1) and (1, out_w, 1, kw), and which of
    the (out_h, out_w, kh, kw) cells they make lie inside the input.

    >>> r, c, inside = _window_cells(np.array([[-1, 0]]), np.array([[1, 2]]), 2, 2)
    >>> r.shape, c.shape, inside.tolist()
    ((1, 1, 2, 1), (1, 1, 1, 2), [[[[False, False], [True, False]]]])
    """
    # np.minimum/np.maximum, not np.clip: for the widget's small arrays np.clip's own
    # overhead is most of trace()'s time here.
    r = np.minimum(np.maximum(rows, -1), height).astype(np.int64)[:, None, :, None]
    c = np.minimum(np.maximum(cols, -1), width).astype(np.int64)[None, :, None, :]
    return r, c, (r >= 0) & (r < height) & (c >= 0) & (c < width)


def _tied_cells(plane, output, r, c, inside):
    """Max mode: per output, the cells of its window that hold its maximum, in row-major
    order, so the first is the one that wins; a NaN maximum ties with nothing. ``r``,
    ``c`` and ``inside`` are the windows' cells (``_window_cells``).

    >>> plane = np.array([[3, 3], [1, 3]])
    >>> _tied_cells(plane, np.array([[3]]), *_window_cells(np.array([[0, 1]]), np.array([[0, 1]]), 2, 2))
    [[[[0, 0], [0, 1], [1, 1]]]]
    """
    height, width = plane.shape
    out_h, out_w = output.shape
    rows, cols = np.minimum(np.maximum(r, 0), height - 1), np.minimum(np.maximum(c, 0), width - 1)
    tied = inside & (plane[rows, cols] == output[:, :, None, None])
    out_row, out_col, a, b = np.nonzero(tied)
    # A tied cell is inside the input, where the clipped lines are the lines themselves.
    cells = np.stack((rows[out_row, 0, a, 0], cols[0, out_col, 0, b]), axis=1).tolist()
    bounds = np.searchsorted(out_row * out_w + out_col, np.arange(out_h * out_w + 1))
    return _per_cell(cells, bounds.tolist(), out_w)


def _per_cell(flat_items, bounds, width):
    """Cut a list sorted by input cell into one slice per cell, laid out as rows.
    ``bounds`` is a list of ints: slicing with NumPy integers costs twice as much."""
    cells = list(map(flat_items.__getitem__, map(slice, bounds, bounds[1:])))
    return [cells[row:row + width] for row in range(0, len(cells), width)]


def _refuse_window_parameters(mode, kernel_size, stride, padding, dilation, ceil_mode):
    """The adaptive modes place their windows by output_size: a kernel, stride,
    padding, dilation or ceil mode given with them is a mistake, said so."""
    given = [name for name, value, unset in (
        ("kernel_size", kernel_size, None), ("stride", stride, None))
        if value is not unset]
    if _pair(padding, "padding") != (0, 0):
        given.append("padding")
    if _pair(dilation, "dilation") != (1, 1):
        given.append("dilation")
    if as_flag(ceil_mode, "ceil_mode"):
        given.append("ceil_mode")
    if given:
        raise ValueError(
            f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to "
            f"mode={mode!r}: its windows follow output_size; leave "
            f"{'it' if len(given) == 1 else 'them'} out")


def _adaptive_pairs(size, count):
    """(output line, input line) for every line of every adaptive window, by output."""
    starts, ends = adaptive_bounds(size, count)
    # np.repeat takes its counts as intp: int32 under Pyodide, which refuses int64 counts.
    lengths = (ends - starts).astype(np.intp)
    outputs = np.repeat(np.arange(count), lengths)
    inputs = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths) \
        + np.repeat(starts, lengths)
    return starts, ends, outputs, inputs


def _adaptive_trace(plane, mode, output_size, grad_output, unpool):
    """trace() for the adaptive modes: windows of varying size that may share cells."""
    (height, width) = plane.shape
    out_h, out_w = adaptive_output(plane.shape, output_size)
    _refuse_large_output(out_h, out_w, "use a smaller output_size, or pool with "
                                       "adaptive_avg_pool2d / adaptive_max_pool2d")
    starts_r, ends_r, out_r, in_r = _adaptive_pairs(height, out_h)
    starts_c, ends_c, out_c, in_c = _adaptive_pairs(width, out_w)
    if in_r.size * in_c.size > MAX_TRACE_WINDOW_CELLS:
        raise ValueError(
            f"{out_h} x {out_w} adaptive windows hold {in_r.size * in_c.size} window cells, "
            f"too many for trace() (at most {MAX_TRACE_WINDOW_CELLS}): use a smaller "
            "output_size or input")
    sizes = (ends_r - starts_r)[:, None] * (ends_c - starts_c)[None, :]
    covers = adaptive_covers(height, out_h)[1][:, None] * adaptive_covers(width, out_w)[1][None, :]
    result = {
        "mode": mode, "output_size": [out_h, out_w],
        "kernel_size": None, "stride": None, "padding": None, "dilation": None,
        "ceil_mode": False, "count_include_pad": True,
        "input_shape": [height, width], "output_shape": [out_h, out_w],
        "pad_value": None,
        "input": json_values(plane),
        "window_bounds": {"rows": np.stack([starts_r, ends_r], 1).tolist(),
                          "cols": np.stack([starts_c, ends_c], 1).tolist()},
        "window_rows": [list(range(s, e)) for s, e in zip(starts_r.tolist(), ends_r.tolist())],
        "window_cols": [list(range(s, e)) for s, e in zip(starts_c.tolist(), ends_c.tolist())],
        "window_size": sizes.tolist(),
        "shared": covers.tolist(),
    }
    # Every (output cell, window cell) pair: rows' pairs times columns' pairs. For one
    # input cell its outputs come in row-major order, as _group_by_input needs.
    output_flat = (out_r[:, None] * out_w + out_c[None, :]).ravel()
    input_flat = (in_r[:, None] * width + in_c[None, :]).ravel()
    if mode == "adaptive_max":
        output, indices = adaptive_max_pool2d(plane, (out_h, out_w), return_indices=True)
        result["argmax"] = _coordinates(indices, width)
        result["indices"] = indices.tolist()
        order = np.lexsort((input_flat, output_flat))
        owners, cells = output_flat[order], input_flat[order]
        tied = plane.ravel()[cells] == output.ravel()[owners]
        bounds = np.searchsorted(owners[tied], np.arange(out_h * out_w + 1)).tolist()
        result["tied"] = _per_cell(_coordinates(cells[tied], width), bounds, out_w)
        if unpool:
            result["unpooled"] = json_values(unpool_planes(output, indices, (height, width)))
        input_flat, output_flat = indices.ravel(), np.arange(out_h * out_w)
    else:
        output = adaptive_avg_pool2d(plane, (out_h, out_w))
        result["divisor"] = sizes.tolist()
    grouped_outputs, bounds = _output_and_sources(result, output, input_flat, output_flat,
                                                  (height, width), out_w)
    if grad_output is not None:
        grad = _upstream(grad_output, out_h, out_w)
        if mode == "adaptive_max":
            grad_input = adaptive_max_pool2d_backward(grad, indices, (height, width))
            terms = grad.ravel()[grouped_outputs]
        else:
            grad_input = adaptive_avg_pool2d_backward(grad, (height, width))
            if (out_h, out_w) == (1, 1):
                shares = grad / np.float64(height * width)
            else:
                shares = grad / (ends_r - starts_r).astype(np.float64)[:, None]
                shares /= (ends_c - starts_c).astype(np.float64)[None, :]
            terms = shares.ravel()[grouped_outputs]
        _gradient_fields(result, grad, grad_input, terms, bounds, width)
    return result


def _output_and_sources(result, output, input_flat, output_flat, input_hw, out_w):
    """Write ``output`` and ``sources`` (from the (input cell, output cell) pairs); return
    the outputs grouped by input cell and each cell's bounds, for the gradient terms."""
    result["output"] = json_values(output)
    grouped_outputs, bounds = _group_by_input(input_flat, output_flat, input_hw[0] * input_hw[1])
    result["sources"] = _per_cell(_coordinates(grouped_outputs, out_w), bounds, input_hw[1])
    return grouped_outputs, bounds


def _upstream(grad_output, out_h, out_w):
    """The upstream gradient as float64 OH x OW (one number stands for all)."""
    if np.ndim(grad_output) == 0:
        grad_output = np.full((out_h, out_w), grad_output)
    # float64 whatever came in, so that the terms, the gradient and its sums are the very
    # numbers JSON carries.
    grad = as_input(grad_output, "grad_output").astype(np.float64)
    if grad.shape != (out_h, out_w):
        raise ValueError(
            f"grad_output must have the output's shape ({out_h}, {out_w}), got {grad.shape}")
    return grad


def _gradient_fields(result, grad, grad_input, terms, bounds, width):
    result["grad_output"] = json_values(grad)
    result["grad_input"] = json_values(grad_input)
    result["grad_terms"] = _per_cell(json_values(terms), bounds, width)
    result["grad_output_sum"] = json_values(_exact_sum(grad))
    result["grad_input_sum"] = json_values(_exact_sum(terms))
