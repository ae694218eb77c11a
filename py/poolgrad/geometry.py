"""The geometry of pooling windows: output sizes, where each window starts, which lines
it samples.

PyTorch's output-size formula (``pooling_output_shape``), the input lines each output
line's window samples (``i * stride - padding + a * dilation``) and the checks that need
the input size (the output has a row and a column, every window reaches the input) live
here; the parameters themselves are checked in :mod:`poolgrad.validation`. Every pooling
and ``trace()`` take their windows from here, so a window is placed by one rule.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .validation import MAX_ELEMENTS, _describe, _is_int, _pair, as_output_size, pooling_parameters


class Geometry(NamedTuple):
    """Everything about the windows of one pooling, normalised to ``(h, w)`` pairs.

    ``input`` is the plane's ``(H, W)`` and ``output`` the pooled ``(OH, OW)``. Output
    cell ``(i, j)`` samples input rows ``i * stride[0] - padding[0] + a * dilation[0]``
    for ``a`` in ``range(kernel[0])``, and likewise for columns (a row outside
    ``0 .. H - 1`` is padding).
    """

    kernel: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    ceil_mode: bool
    input: tuple
    output: tuple


def axis_formula(size, kernel, stride, pad, dilation, ceil_mode):
    """PyTorch's pooling_output_shape for one axis, with its working shown.

    Returns ``(numerator, by_formula, count)``: ``numerator = n + 2p - d(k-1) - 1``, the
    window count the formula gives (``numerator / s`` rounded down, or up in ceil mode,
    plus one) and the count kept, which drops a ceil-mode window that would start in the
    right/bottom padding. The count may be < 1; callers check.

    >>> axis_formula(5, 2, 2, 1, 1, True)
    (5, 4, 3)
    """
    numerator = size + 2 * pad - dilation * (kernel - 1) - 1
    by_formula = (-(-numerator // stride) if ceil_mode else numerator // stride) + 1
    count = by_formula
    # The last window must start inside the input or its left/top padding.
    if ceil_mode and (count - 1) * stride >= size + pad:
        count -= 1
    return numerator, by_formula, count


def window_starts(count, stride, pad):
    """The first line (unpadded coordinates) of each of ``count`` windows along an axis.

    >>> window_starts(3, 2, 1).tolist()
    [-1, 1, 3]
    """
    return np.arange(count, dtype=np.int64) * stride - pad


def sampled_lines(count, kernel, stride, pad, dilation):
    """For each of ``count`` output lines, the input lines its window samples.

    Unpadded coordinates: a line < 0 or >= the input side is padding.

    >>> sampled_lines(2, 3, 2, 1, 2).tolist()
    [[-1, 1, 3], [1, 3, 5]]

    Lines far beyond 64-bit integers (a dilation of 2**62) are exact Python ints:

    >>> sampled_lines(1, 3, 1, 0, 2**62).tolist()
    [[0, 4611686018427387904, 9223372036854775808]]
    """
    largest = (count - 1) * stride + (kernel - 1) * dilation
    dtype = np.int64 if largest < 2**62 else object
    return (np.arange(count).astype(dtype)[:, None] * stride - pad
            + np.arange(kernel).astype(dtype)[None, :] * dilation)


def output_size(size: int, kernel_size: int, stride: int | None = None, padding: int = 0, dilation: int = 1,
                ceil_mode: bool = False) -> int:
    """The number of windows along one side: ``floor((n + 2p - d*(k-1) - 1) / s) + 1``.

    With ``ceil_mode`` the division rounds up, but a last window that would start in the
    right (or bottom) padding is dropped, exactly as PyTorch does. ``stride=None`` means
    ``stride = kernel_size``.

    >>> output_size(4, 2), output_size(4, 3, 1), output_size(4, 3, 2)
    (2, 2, 1)
    >>> output_size(5, 2, 2, ceil_mode=True), output_size(5, 2, 2, padding=1, ceil_mode=True)
    (3, 3)
    >>> output_size(4, 5)
    Traceback (most recent call last):
    ...
    ValueError: kernel_size=5 does not fit: an input side of 4 (padded by 0 on each end) holds no window of size 5 (dilation 1), the output side would be 0
    """
    if not _is_int(size):
        raise TypeError(f"size must be an int, got {size!r} of type {type(size).__name__}")
    for name, value in (("kernel_size", kernel_size), ("stride", stride),
                        ("padding", padding), ("dilation", dilation)):
        if value is not None and not _is_int(value):
            raise TypeError(f"{name} must be an int here (one side), got {value!r}")
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    params = pooling_parameters(kernel_size, stride, padding, dilation, ceil_mode)
    return _checked_axis(int(size), 0, params)


@lru_cache(maxsize=256)
def _checked_axis(size, axis, params):
    """The output side along ``axis``, or the error that explains why there is none.

    Cached: the widget asks about the same few geometries over and over.
    """
    kernel, stride = params.kernel[axis], params.stride[axis]
    pad, dilation = params.padding[axis], params.dilation[axis]
    count = axis_formula(size, kernel, stride, pad, dilation, params.ceil_mode)[2]
    if count < 1:
        span = dilation * (kernel - 1) + 1
        raise ValueError(
            f"kernel_size={_describe(params.kernel)} does not fit: an input side of {size} "
            f"(padded by {pad} on each end) holds no window of size {span} "
            f"(dilation {dilation}), the output side would be {count}")
    if dilation == 1 or kernel == 1:
        # A contiguous window with pad <= kernel // 2 always reaches into the input.
        return count
    # Only a window starting in the padding can miss the input (every later one starts
    # inside it), and a step past the input's far side lands outside whatever its size.
    starting_in_padding = min(count, -(-pad // stride))
    samples = sampled_lines(starting_in_padding, kernel, stride, pad, min(dilation, size + pad))
    blind = ~np.any((samples >= 0) & (samples < size), axis=1)
    if blind.any():
        line = int(np.argmax(blind))
        side = "row" if axis == 0 else "column"
        lines = sampled_lines(1, kernel, 1, pad - line * stride, dilation)[0].tolist()
        raise ValueError(
            f"dilation={_describe(params.dilation)} with padding={_describe(params.padding)} "
            f"makes output {side} {line}'s window sample only padding "
            f"({side}s {lines} of {size}): every window must cover at "
            "least one input cell; use less padding or dilation")
    return count


def geometry(input_hw, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Validate every pooling parameter against a plane of ``input_hw`` = ``(H, W)``.

    Returns a :class:`Geometry`. The rules, each with its own message naming the
    parameter: kernel_size, stride and dilation are ints (or pairs) of at least 1;
    padding is at least 0 and at most ``kernel_size // 2``; the output has at least one
    row and one column; every window covers at least one input cell (dilation can make a
    window sample only padding); sizes stay below :data:`~poolgrad.validation.MAX_ELEMENTS` and
    :data:`~poolgrad.validation.MAX_WINDOW_CELLS`.

    >>> g = geometry((4, 4), 3, stride=1)
    >>> g.kernel, g.stride, g.output
    ((3, 3), (1, 1), (2, 2))
    >>> geometry((5, 7), (3, 2), padding=(1, 0), ceil_mode=True).output
    (2, 4)
    >>> geometry((2, 2), 2, stride=1, padding=1, dilation=3)
    Traceback (most recent call last):
    ...
    ValueError: dilation=3 with padding=1 makes output row 0's window sample only padding (rows [-1, 2] of 2): every window must cover at least one input cell; use less padding or dilation
    >>> geometry((4, 4), 2.5)
    Traceback (most recent call last):
    ...
    TypeError: kernel_size must be an int or an (h, w) pair of ints, got 2.5 of type float
    """
    height, width = _pair(tuple(input_hw), "input_hw")
    if height < 1 or width < 1:
        raise ValueError(f"the input plane must have at least one row and one column, "
                         f"got {height} x {width}")
    if height * width > MAX_ELEMENTS:
        raise ValueError(
            f"the input plane of {height} x {width} cells is too large: at most "
            f"{MAX_ELEMENTS} cells")
    params = pooling_parameters(kernel_size, stride, padding, dilation, ceil_mode)
    out_h = _checked_axis(height, 0, params)
    out_w = _checked_axis(width, 1, params)
    return Geometry(params.kernel, params.stride, params.padding, params.dilation,
                    params.ceil_mode, (height, width), (out_h, out_w))


def adaptive_bounds(size, count):
    """Where each of ``count`` adaptive windows over ``size`` lines starts and ends.

    Window ``i`` spans ``[floor(i * size / count), ceil((i + 1) * size / count))``, as
    aten's ``start_index`` / ``end_index`` place it: the windows cover every line, their
    sizes differ by at most one where ``count`` divides ``size`` unevenly, and
    neighbours share a line when the division has a remainder. ``count`` may exceed
    ``size`` (windows of one or two lines, repeated).

    >>> starts, ends = adaptive_bounds(5, 3)
    >>> starts.tolist(), ends.tolist()
    ([0, 1, 3], [2, 4, 5])
    >>> starts, ends = adaptive_bounds(2, 5)
    >>> starts.tolist(), (ends - starts).tolist()
    ([0, 0, 0, 1, 1], [1, 1, 2, 1, 1])
    """
    lines = np.arange(count, dtype=np.int64)
    starts = lines * size // count
    ends = -(-(lines + 1) * size // count)
    return starts, ends


def adaptive_output(input_hw, output_size):
    """The ``(OH, OW)`` of an adaptive pooling of an ``input_hw`` plane: ``output_size``
    checked (:func:`~poolgrad.validation.as_output_size`), ``None`` entries keeping the
    input's side, and the output bounded by :data:`~poolgrad.validation.MAX_ELEMENTS`.

    >>> adaptive_output((5, 7), (None, 3)), adaptive_output((5, 7), 1)
    ((5, 3), (1, 1))
    """
    sides = tuple(input_hw if side is None else side
                  for input_hw, side in zip(input_hw, as_output_size(output_size)))
    if sides[0] * sides[1] > MAX_ELEMENTS:
        raise ValueError(
            f"output_size={sides} is too large: an output plane holds at most "
            f"{MAX_ELEMENTS} cells")
    return sides


def adaptive_covers(size, count):
    """For each input line, the first output window covering it and how many do.

    The windows covering a line are consecutive, so ``first[r] + t`` for ``t <
    covers[r]`` are exactly the outputs whose window holds line ``r``, in output order.

    >>> first, covers = adaptive_covers(5, 3)
    >>> first.tolist(), covers.tolist()
    ([0, 0, 1, 1, 2], [1, 2, 1, 2, 1])
    """
    starts, ends = adaptive_bounds(size, count)
    lines = np.arange(size, dtype=np.int64)
    first = np.searchsorted(ends, lines, side="right")
    last = np.searchsorted(starts, lines, side="right") - 1
    return first, last - first + 1
