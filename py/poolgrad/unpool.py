"""max_unpool2d: put each pooled maximum back where ``max_pool2d`` found it.

The output is zeros except at the saved indices, which receive the pooled values. Where
overlapping windows chose the same cell, the index appears twice and the cell is
written twice: the value of the *last* of them in row-major order of ``x`` stays, as in
PyTorch's CPU kernel on one thread (the two values are the same maximum when the indices
come from ``max_pool2d`` of that input). The gradient (``max_pool2d_backward``) adds
them instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .validation import MAX_ELEMENTS, ArrayLike, IntOrPair, _is_int, _pair, as_input


def unpool_output_size(input_hw, kernel_size, stride=None, padding=0, output_size=None):
    """The ``(H, W)`` max_unpool2d writes into, checked as PyTorch checks it.

    The default is ``(H_in - 1) * stride - 2 * padding + kernel_size`` per side. A given
    ``output_size`` (``(H, W)``, or ``(N, C, H, W)`` whose last two are used) must lie
    strictly between ``default - stride`` and ``default + stride`` on each side: those
    are the sizes that pool back to the input's size.

    >>> unpool_output_size((2, 2), 2), unpool_output_size((2, 2), 2, output_size=(5, 5))
    ((4, 4), (5, 5))
    >>> unpool_output_size((2, 2), 2, output_size=(6, 4))
    Traceback (most recent call last):
    ...
    ValueError: output_size=(6, 4) does not fit: its height must be strictly between 2 and 6 (the default (H_in - 1) * stride - 2 * padding + kernel_size is 4, give or take the stride 2)
    """
    kernel = _pair(kernel_size, "kernel_size")
    omitted = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
    strides = kernel if omitted else _pair(stride, "stride")
    pads = _pair(padding, "padding")
    for name, pair in (("kernel_size", kernel), ("stride", strides)):
        if min(pair) < 1:
            raise ValueError(f"{name} must be at least 1, got {pair}")
    if min(pads) < 0:
        raise ValueError(f"padding must be at least 0, got {pads}")
    default = tuple((size - 1) * s - 2 * p + k
                    for size, k, s, p in zip(input_hw, kernel, strides, pads))
    if output_size is None:
        if min(default) < 1:
            raise ValueError(
                f"padding={pads} leaves no output: (H_in - 1) * stride - 2 * padding + "
                f"kernel_size is {default}; use less padding")
        sides = default
    else:
        if isinstance(output_size, (str, bytes)) or not isinstance(
                output_size, (tuple, list, np.ndarray)):
            raise TypeError(
                f"output_size must be a sequence (H, W) or (N, C, H, W), got {output_size!r}")
        items = list(np.asarray(output_size).ravel()) if isinstance(
            output_size, np.ndarray) else list(output_size)
        if len(items) == 4:
            items = items[2:]
        if len(items) != 2:
            raise ValueError(
                f"output_size must hold 2 sides (H, W) or 4 (N, C, H, W), got {len(items)}: "
                f"{output_size!r}")
        for item in items:
            if not _is_int(item):
                raise TypeError(f"output_size must hold ints, got {item!r} in {output_size!r}")
        sides = tuple(int(item) for item in items)
        for axis, name in enumerate(("height", "width")):
            low, high = default[axis] - strides[axis], default[axis] + strides[axis]
            if not low < sides[axis] < high:
                raise ValueError(
                    f"output_size={sides} does not fit: its {name} must be strictly between "
                    f"{low} and {high} (the default (H_in - 1) * stride - 2 * padding + "
                    f"kernel_size is {default[axis]}, give or take the stride {strides[axis]})")
    if sides[0] * sides[1] > MAX_ELEMENTS:
        raise ValueError(f"output_size={sides} is too large: at most {MAX_ELEMENTS} cells")
    return sides


def max_unpool2d(input: ArrayLike, indices: ArrayLike, kernel_size: IntOrPair,
                 stride: IntOrPair | None = None, padding: IntOrPair = 0,
                 output_size: Sequence[int] | None = None) -> np.ndarray:
    """The partial inverse of ``max_pool2d``: zeros, with each value of ``input`` written at
    its index (``indices`` as ``max_pool2d(..., return_indices=True)`` returns them).

    ``kernel_size``, ``stride`` and ``padding`` are the pooling's; they only set the
    output's size (see :func:`unpool_output_size`). The result keeps ``input``'s dtype.

    >>> from poolgrad import max_pool2d
    >>> fixture = [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]]
    >>> out, indices = max_pool2d(fixture, 2, return_indices=True)
    >>> max_unpool2d(out, indices, 2)
    array([[ 0,  0,  0,  0],
           [ 0,  4,  8,  0],
           [ 0,  0,  0, -2],
           [ 0,  9,  0,  0]])

    A 5 x 5 input pooled by 2 has a default output of 4 x 4, which cannot hold its
    index 18 (row 3, column 3 of the 5 x 5 plane): give ``output_size``.

    >>> out, indices = max_pool2d(np.arange(25.0).reshape(5, 5), 2, return_indices=True)
    >>> max_unpool2d(out, indices, 2)
    Traceback (most recent call last):
    ...
    ValueError: indices holds 18, outside the 4 x 4 output: an index must be in 0 .. 15; if the pooled input was larger (say 5 x 5), pass output_size=(5, 5)
    >>> max_unpool2d(out, indices, 2, output_size=(5, 5))[3]
    array([ 0., 16.,  0., 18.,  0.])
    """
    values = as_input(input, "input")
    chosen = np.asarray(indices)
    if chosen.dtype.kind not in "iu":
        raise TypeError(f"indices must be integers, got dtype {chosen.dtype}")
    if chosen.shape != values.shape:
        raise ValueError(
            f"indices has shape {chosen.shape} but input has shape {values.shape}: they must "
            "match (both are the pooled output's shape)")
    height, width = unpool_output_size(values.shape[-2:], kernel_size, stride, padding,
                                       output_size)
    cells = height * width
    if chosen.size:
        low, high = int(chosen.min()), int(chosen.max())
        if low < 0 or high >= cells:
            bad = low if low < 0 else high
            raise ValueError(
                f"indices holds {bad}, outside the {height} x {width} output: an index must "
                f"be in 0 .. {cells - 1}; if the pooled input was larger (say "
                f"{height + 1} x {width + 1}), pass output_size=({height + 1}, {width + 1})")
    planes = math.prod(values.shape[:-2])
    if planes * cells > MAX_ELEMENTS:
        raise ValueError(f"the output would hold {planes * cells} elements: at most {MAX_ELEMENTS}")
    return unpool_planes(values, chosen, (height, width))


def unpool_planes(values, indices, output_hw):
    """Zeros of ``values``' leading shape and ``output_hw``, each value written at its
    (checked, in-range) flat index; the last of repeated indices stays.

    >>> unpool_planes(np.array([[7, 9]]), np.array([[1, 1]]), (1, 3))
    array([[0, 9, 0]])
    """
    cells = output_hw[0] * output_hw[1]
    planes = math.prod(values.shape[:-2])
    out = np.zeros(planes * cells, values.dtype)
    offsets = (np.arange(planes, dtype=np.int64) * cells)[:, None]
    targets = (indices.reshape(planes, values.shape[-2] * values.shape[-1]).astype(np.int64)
               + offsets).ravel()
    # A flat assignment writes in order, so the last of repeated indices stays (as
    # PyTorch's loop over x does).
    out[targets] = values.reshape(-1)
    return out.reshape(values.shape[:-2] + tuple(output_hw))
