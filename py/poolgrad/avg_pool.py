"""Average pooling and its gradient, with PyTorch's rule for what a window divides by.

A window's sum is divided by the number of its cells that lie inside the *padded* input
(``count_include_pad=True``, the default: usually ``kh * kw``, fewer only where a
ceil-mode window hangs past the padding), or by the number of its cells inside the
unpadded input (``count_include_pad=False``), or, when ``divisor_override`` is given, by
that number whatever the window covers. Padding adds zeros to the sum.

Floating-point inputs keep their dtype (``float16`` is summed in ``float32``, as PyTorch
does, and rounded at the end); integer inputs give ``float64`` means, where PyTorch
would refuse most integer dtypes and truncate ``int64``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

from .geometry import geometry, window_starts
from .validation import (MAX_PARAMETER, ArrayLike, IntOrPair, as_flag, as_input, check_grad_shape,
                         input_shape_of)
from .windows import PhaseLayout, compact


def divisors(geo, count_include_pad=True):
    """What each output of an average pooling with :class:`Geometry` ``geo`` divides by.

    Returns an ``(OH, OW)`` int64 array: per axis, the window's extent clipped to the
    padded input (or, without ``count_include_pad``, to the input itself), multiplied.

    >>> from poolgrad.geometry import geometry
    >>> divisors(geometry((4, 4), 2, stride=1, padding=1))
    array([[4, 4, 4, 4, 4],
           [4, 4, 4, 4, 4],
           [4, 4, 4, 4, 4],
           [4, 4, 4, 4, 4],
           [4, 4, 4, 4, 4]])
    >>> divisors(geometry((4, 4), 2, stride=1, padding=1), count_include_pad=False)
    array([[1, 2, 2, 2, 1],
           [2, 4, 4, 4, 2],
           [2, 4, 4, 4, 2],
           [2, 4, 4, 4, 2],
           [1, 2, 2, 2, 1]])

    A ceil-mode window that hangs past the padding counts only what it covers:

    >>> divisors(geometry((5, 5), 2, ceil_mode=True))
    array([[4, 4, 2],
           [4, 4, 2],
           [2, 2, 1]])
    """
    include = as_flag(count_include_pad, "count_include_pad")
    extents = []
    for size, count, kernel, stride, pad in zip(geo.input, geo.output, geo.kernel,
                                                geo.stride, geo.padding):
        starts = window_starts(count, stride, pad)
        ends = np.minimum(starts + kernel, size + pad)
        if not include:
            starts, ends = np.maximum(starts, 0), np.minimum(ends, size)
        extents.append(ends - starts)
    return extents[0][:, None] * extents[1][None, :]


def _float_dtypes(dtype):
    """(dtype the sums are computed in, dtype of the result) for an input dtype."""
    if dtype == np.float16:
        return np.dtype(np.float32), dtype
    if dtype.kind == "f":
        return dtype, dtype
    return np.dtype(np.float64), np.dtype(np.float64)


def _avg_geometry(shape, kernel_size, stride, padding, ceil_mode):
    return geometry(shape[-2:], kernel_size, stride, padding, 1, ceil_mode)


def divisor_override_of(value):
    """``divisor_override`` checked as PyTorch checks it: None, or a nonzero int.

    >>> divisor_override_of(None), divisor_override_of(-3)
    (None, -3)
    >>> divisor_override_of(0)
    Traceback (most recent call last):
    ...
    ValueError: divisor_override must not be 0: it is what every window's sum is divided by
    >>> divisor_override_of(2.5)
    Traceback (most recent call last):
    ...
    TypeError: divisor_override must be an int or None, got 2.5 of type float
    """
    if value is None:
        return None
    if not isinstance(value, (numbers.Integral, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"divisor_override must be an int or None, got {value!r} of type "
                        f"{type(value).__name__}")
    if value == 0:
        raise ValueError("divisor_override must not be 0: it is what every window's sum is divided by")
    if abs(value) > MAX_PARAMETER:
        raise ValueError(f"divisor_override={value} is too large: PyTorch keeps it in a 64-bit "
                         f"integer, at most 2**63 - 1 in size")
    return int(value)


def _window_divisors(geo, count_include_pad, divisor_override):
    override = divisor_override_of(divisor_override)
    include = as_flag(count_include_pad, "count_include_pad")
    if override is None:
        return divisors(geo, include)
    return np.full(geo.output, override, np.int64)


def avg_pool2d(input: ArrayLike, kernel_size: IntOrPair, stride: IntOrPair | None = None,
               padding: IntOrPair = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> np.ndarray:
    """Slide a window over the last two axes of ``input`` and keep each window's mean.

    ``input`` is ``(H, W)``, ``(C, H, W)`` or ``(N, C, H, W)``; parameters are an int or an
    ``(h, w)`` pair and ``stride=None`` means ``stride = kernel_size``. Padding cells hold
    0; whether they count in the divisor is ``count_include_pad`` (see :func:`divisors`).
    ``divisor_override``, a nonzero int, replaces every window's divisor (and makes
    ``count_include_pad`` irrelevant), as in ``torch.nn.functional.avg_pool2d``, whose
    parameters these are, in its order and under its names.

    >>> x = np.array([[12, 10, 9, 6],
    ...               [11, 8, 13, 5],
    ...               [2, 14, 15, 0],
    ...               [4, 3, 7, 1]])
    >>> avg_pool2d(x, 2)
    array([[10.25,  8.25],
           [ 5.75,  5.75]])

    With padding the corner windows hold three zeros, and count them unless told not to:

    >>> avg_pool2d([[1.0, 2.0], [3.0, 4.0]], 2, stride=1, padding=1)[0]
    array([0.25, 0.75, 0.5 ])
    >>> avg_pool2d([[1.0, 2.0], [3.0, 4.0]], 2, stride=1, padding=1,
    ...            count_include_pad=False)[0]
    array([1. , 1.5, 2. ])

    A window's sum over a divisor of your choice (here the sums themselves):

    >>> avg_pool2d(input=x, kernel_size=2, divisor_override=1)
    array([[41., 33.],
           [23., 23.]])
    """
    array = as_input(input, "input")
    geo = _avg_geometry(array.shape, kernel_size, stride, padding, ceil_mode)
    divisor = _window_divisors(geo, count_include_pad, divisor_override)
    work_dtype, result_dtype = _float_dtypes(array.dtype)
    planes = array.reshape((-1,) + geo.input)
    count = planes.shape[0]
    layout = PhaseLayout(compact(geo), work_dtype, 0, count)
    out = np.empty((count,) + geo.output, result_dtype)
    divisor = divisor.astype(work_dtype)
    total = np.empty(layout.block * layout.plane, work_dtype)
    for first in range(0, count, layout.block):
        block = slice(first, min(count, first + layout.block))
        n = block.stop - block.start
        flat = layout.load(planes[block])
        length = layout.length(n)
        sums = total[:length]
        start = layout.offsets[0]
        # Start from +0.0 like PyTorch's accumulator (so -0.0 inputs sum to +0.0), then
        # add the offsets in the window's row-major order, as its loop does.
        np.add(flat[start:start + length], 0.0, out=sums)
        for start in layout.offsets[1:]:
            np.add(sums, flat[start:start + length], out=sums)
        np.divide(layout.outputs(total, n), divisor, out=out[block])
    return out.reshape(array.shape[:-2] + geo.output)


def avg_pool2d_backward(grad_output: ArrayLike, input_shape: Sequence[int], kernel_size: IntOrPair,
                        stride: IntOrPair | None = None, padding: IntOrPair = 0, ceil_mode: bool = False,
                        count_include_pad: bool = True, divisor_override: int | None = None) -> np.ndarray:
    """Spread each output's gradient evenly over the input cells of its window.

    Output ``(i, j)`` hands ``grad_output[i, j] / divisor[i, j]`` to every cell of its
    window inside the input (the share of padding cells is dropped); where windows
    overlap the shares add up. Parameters are those of the forward call, in its order
    (``input_shape`` stands where the input stood); the result has ``input_shape`` and a
    floating dtype (that of ``grad_output``, or ``float64`` for integer gradients, which
    PyTorch refuses: only floating tensors can require gradients).
    :func:`max_pool2d_backward` says why its arguments differ.

    >>> avg_pool2d_backward([[1, 2], [3, 4]], (4, 4), 2)
    array([[0.25, 0.25, 0.5 , 0.5 ],
           [0.25, 0.25, 0.5 , 0.5 ],
           [0.75, 0.75, 1.  , 1.  ],
           [0.75, 0.75, 1.  , 1.  ]])

    Overlapping 2 x 2 windows with stride 1 on a 3-wide row: the middle cells are in two
    windows and get two shares.

    >>> avg_pool2d_backward([[4.0, 8.0]], (2, 3), 2, stride=1)
    array([[1., 3., 2.],
           [1., 3., 2.]])
    >>> avg_pool2d_backward(grad_output=[[4.0, 8.0]], input_shape=(2, 3), kernel_size=2,
    ...                     stride=1, divisor_override=2)
    array([[2., 6., 4.],
           [2., 6., 4.]])
    """
    grad = as_input(grad_output, "grad_output")
    shape = input_shape_of(input_shape)
    geo = _avg_geometry(shape, kernel_size, stride, padding, ceil_mode)
    check_grad_shape(grad.shape, shape[:-2] + geo.output,
                     f"avg_pool2d's output for input_shape={shape}")
    divisor = _window_divisors(geo, count_include_pad, divisor_override)
    dtype = grad.dtype if grad.dtype.kind == "f" else np.dtype(np.float64)
    count = math.prod(shape[:-2])
    grad_planes = grad.reshape((count,) + geo.output)
    layout = PhaseLayout(compact(geo), dtype, 0, count)
    divisor = divisor.astype(dtype)
    gathered = layout.allocate(0)
    # One share per output lane; the wasted lanes stay 0 so they add nothing.
    shares = np.zeros(layout.block * layout.plane, dtype)
    grad_input = np.zeros((count,) + geo.input, dtype)
    for first in range(0, count, layout.block):
        block = slice(first, min(count, first + layout.block))
        n = block.stop - block.start
        length = layout.length(n)
        gathered.fill(0)
        np.divide(grad_planes[block], divisor, out=layout.outputs(shares, n))
        spread = shares[:length]
        # PyTorch adds output by output in row-major order; for any one cell that is
        # the kernel offsets in reverse, so the float sums round exactly alike.
        for start in reversed(layout.offsets):
            target = gathered[start:start + length]
            np.add(target, spread, out=target)
        layout.unload(gathered, grad_input[block])
    return grad_input.reshape(shape)
