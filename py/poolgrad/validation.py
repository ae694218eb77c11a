"""Checking what callers pass in, and the window geometry every pooling shares.

All the rules live here so that every entry point (the functions, the layers, the
widget's ``trace``) refuses bad input with the same message: a ``ValueError`` (or a
``TypeError`` for something that is not a number at all) that names the parameter and
the rule it broke. Nothing is allocated before the request has passed these checks.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from functools import lru_cache
from collections.abc import Sequence
from typing import NamedTuple, Union

import numpy as np
import numpy.typing as npt

#: A pooling parameter: one int for both axes, or an ``(h, w)`` pair (any sequence of
#: one or two ints, as in PyTorch).
IntOrPair = Union[int, Sequence[int]]
#: Anything NumPy turns into an array: an array, nested lists, a number.
ArrayLike = npt.ArrayLike

#: Largest number of elements an input, output or gradient may have. Requests beyond
#: this (say a 10**5 x 10**5 plane) are refused before anything is allocated.
MAX_ELEMENTS = 2**28

#: Largest number of cells one window may hold (kernel height x kernel width): the
#: pooling loops once per cell of the window, so a kernel of 10**9 is refused up front.
MAX_WINDOW_CELLS = 2**16

#: Largest value of any pooling parameter: PyTorch keeps them in 64-bit integers. Their
#: magnitude costs nothing (a stride of 10**9 pools as fast as a stride of 2).
MAX_PARAMETER = 2**63 - 1

_RANK_RULE = "2-D (H, W), 3-D (C, H, W) or 4-D (N, C, H, W)"


def as_input(x, name="x"):
    """``x`` as a NumPy array of numbers with 2 to 4 dimensions, or a clear error.

    Nested lists become arrays; arrays pass through without a copy. The last two
    dimensions are the plane (H, W) that pooling slides over; the ones before (channels,
    batch) are carried along.

    Booleans are refused (PyTorch does not pool them either): convert them on purpose,
    e.g. ``mask.astype(int)``. An object array of real numbers (Python ints beyond NumPy's
    reach, ``Fraction``s, ``Decimal``s) becomes ``int64`` when every value is an integer (and fits),
    else ``float64``. Like PyTorch, a 4-D input may have an empty batch (``N = 0``); every
    other axis needs at least one entry.

    >>> as_input([[1, 2], [3, 4]])
    array([[1, 2],
           [3, 4]])
    >>> as_input([[1, 2], [3]])
    Traceback (most recent call last):
    ...
    ValueError: x has ragged rows: every row must have the same length
    >>> as_input([[1, "2"]], name="grad_output")
    Traceback (most recent call last):
    ...
    TypeError: grad_output must hold numbers, got values of type str
    >>> as_input([1, 2, 3])
    Traceback (most recent call last):
    ...
    ValueError: x must be 2-D (H, W), 3-D (C, H, W) or 4-D (N, C, H, W), got 1-D with shape (3,)
    >>> from fractions import Fraction
    >>> as_input(np.array([[Fraction(1, 2), 3]], dtype=object))
    array([[0.5, 3. ]])
    >>> as_input(np.zeros((0, 3, 4, 4))).shape
    (0, 3, 4, 4)
    """
    try:
        array = np.asarray(x)
    except ValueError as error:
        if "inhomogeneous" in str(error) or "sequence" in str(error):
            raise ValueError(
                f"{name} has ragged rows: every row must have the same length") from None
        raise
    kind = array.dtype.kind
    if kind == "b":
        raise TypeError(
            f"{name} holds booleans: pooling needs numbers, convert with .astype(int)")
    if kind == "O":
        array = _numbers_from_objects(array, name)
    elif kind not in "iuf":
        raise TypeError(f"{name} must hold numbers, got values of type {_kind_name(array)}")
    if not 2 <= array.ndim <= 4:
        raise ValueError(
            f"{name} must be {_RANK_RULE}, got {array.ndim}-D with shape {array.shape}")
    if array.size == 0 and not (array.ndim == 4 and array.shape[0] == 0
                                and min(array.shape[1:]) > 0):
        raise ValueError(
            f"{name} is empty (shape {array.shape}): it needs at least one row, one column "
            "and one channel (only the batch N of a 4-D input may be 0)")
    return array


def _kind_name(array):
    return {"U": "str", "S": "bytes", "c": "complex", "M": "datetime64",
            "m": "timedelta64", "V": "void"}.get(array.dtype.kind, str(array.dtype))


def _numbers_from_objects(array, name):
    """An object array (NumPy found no numeric dtype) as int64 or float64, or the error
    that names the first value that is not a real number."""
    for value in array.flat:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, Decimal)):
            raise TypeError(
                f"{name} must hold numbers, got a value of type {type(value).__name__}")
    if all(isinstance(value, numbers.Integral) for value in array.flat):
        try:
            return array.astype(np.int64)
        except OverflowError:
            raise ValueError(
                f"{name} holds integers outside the 64-bit range: convert them to floats on "
                f"purpose (np.asarray({name}, dtype=float)) if rounding them is fine") from None
    try:
        return np.array([float(value) for value in array.flat], np.float64).reshape(array.shape)
    except OverflowError:
        raise ValueError(
            f"{name} holds a number too large for a 64-bit float (beyond 1.8e308)") from None


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


def _describe(pair):
    """A pair as the caller would write it: ``3`` when square, ``(3, 2)`` otherwise."""
    return str(pair[0]) if pair[0] == pair[1] else f"({pair[0]}, {pair[1]})"


def _is_int(value):
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(
        value, (bool, np.bool_))


def _pair(value, name):
    """An int, a one-element sequence or an (h, w) pair of ints as a tuple of two Python
    ints (PyTorch reads ``[2]`` as ``2``), each at most :data:`MAX_PARAMETER`."""
    if _is_int(value):
        return _bounded(int(value), name), _bounded(int(value), name)
    if isinstance(value, (tuple, list, np.ndarray)) and not isinstance(value, str):
        items = list(np.asarray(value).ravel()) if isinstance(value, np.ndarray) else list(value)
        if len(items) not in (1, 2):
            raise ValueError(
                f"{name} must be an int or an (h, w) pair, got {len(items)} values: {value!r} "
                "(a sequence holds one int or two)")
        for item in items:
            if not _is_int(item):
                raise TypeError(
                    f"{name} must be an int or an (h, w) pair of ints, got {item!r} "
                    f"of type {type(item).__name__}")
        return _bounded(int(items[0]), name), _bounded(int(items[-1]), name)
    raise TypeError(
        f"{name} must be an int or an (h, w) pair of ints, got {value!r} "
        f"of type {type(value).__name__}")


def _bounded(value, name):
    if value > MAX_PARAMETER:
        raise ValueError(
            f"{name}={value} is too large: pooling parameters are 64-bit integers, at most "
            f"2**63 - 1 as in PyTorch; use a smaller {name}")
    return value


def as_flag(value, name):
    """``value`` as a bool; only True/False (NumPy's too) are accepted.

    >>> as_flag(np.True_, "ceil_mode")
    True
    >>> as_flag(1, "ceil_mode")
    Traceback (most recent call last):
    ...
    TypeError: ceil_mode must be True or False, got 1
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


class PoolingParameters(NamedTuple):
    """The size-independent parameters, checked: what a layer can validate up front."""

    kernel: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    ceil_mode: bool


def pooling_parameters(kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Check the rules that do not depend on the input size; return normalised pairs.

    >>> pooling_parameters(3, padding=1)
    PoolingParameters(kernel=(3, 3), stride=(3, 3), padding=(1, 1), dilation=(1, 1), ceil_mode=False)
    >>> pooling_parameters(4, padding=3)
    Traceback (most recent call last):
    ...
    ValueError: padding=3 is too large for kernel_size=4: padding must be at most kernel_size // 2 = 2
    """
    kernel = _pair(kernel_size, "kernel_size")
    # PyTorch reads an empty stride as an omitted one.
    omitted = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
    strides = kernel if omitted else _pair(stride, "stride")
    pads = _pair(padding, "padding")
    dilations = _pair(dilation, "dilation")
    ceil = as_flag(ceil_mode, "ceil_mode")
    for name, pair in (("kernel_size", kernel), ("stride", strides), ("dilation", dilations)):
        if min(pair) < 1:
            raise ValueError(f"{name} must be at least 1, got {_describe(pair)}")
    if min(pads) < 0:
        raise ValueError(f"padding must be at least 0, got {_describe(pads)}")
    if kernel[0] * kernel[1] > MAX_WINDOW_CELLS:
        raise ValueError(
            f"kernel_size={_describe(kernel)} is too large: a window may hold at most "
            f"{MAX_WINDOW_CELLS} cells")
    half = (kernel[0] // 2, kernel[1] // 2)
    if pads[0] > half[0] or pads[1] > half[1]:
        # PyTorch also requires pad <= (d*(k-1)+1)//2, which k//2 already implies.
        raise ValueError(
            f"padding={_describe(pads)} is too large for kernel_size={_describe(kernel)}: "
            f"padding must be at most kernel_size // 2 = {_describe(half)}")
    return PoolingParameters(kernel, strides, pads, dilations, ceil)


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
    window sample only padding); sizes stay below :data:`MAX_ELEMENTS` and
    :data:`MAX_WINDOW_CELLS`.

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


def input_shape_of(input_shape, name="input_shape"):
    """``input_shape`` as a tuple of 2 to 4 positive ints, refused if absurdly large.

    >>> input_shape_of([2, 4, 4])
    (2, 4, 4)
    >>> input_shape_of((10**5, 10**5))
    Traceback (most recent call last):
    ...
    ValueError: input_shape=(100000, 100000) is too large: at most 268435456 elements
    """
    if _is_int(input_shape) or not isinstance(input_shape, (tuple, list, np.ndarray)):
        raise TypeError(f"{name} must be a tuple of ints like (H, W), got {input_shape!r}")
    dims = list(np.asarray(input_shape).ravel()) if isinstance(
        input_shape, np.ndarray) else list(input_shape)
    for dim in dims:
        if not _is_int(dim):
            raise TypeError(f"{name} must be a tuple of ints, got {dim!r} in {input_shape!r}")
    shape = tuple(int(dim) for dim in dims)
    if not 2 <= len(shape) <= 4:
        raise ValueError(f"{name} must be {_RANK_RULE}, got {len(shape)} dimensions: {shape}")
    if min(shape) < 1 and not (len(shape) == 4 and shape[0] == 0 and min(shape[1:]) > 0):
        raise ValueError(f"{name} must have sizes of at least 1 (only the batch N of a 4-D "
                         f"shape may be 0), got {shape}")
    if math.prod(shape) > MAX_ELEMENTS:
        raise ValueError(f"{name}={shape} is too large: at most {MAX_ELEMENTS} elements")
    return shape


def check_grad_shape(grad_shape, expected, what):
    """A gradient must have exactly the shape of the output it belongs to."""
    if tuple(grad_shape) != tuple(expected):
        raise ValueError(
            f"grad_output has shape {tuple(grad_shape)} but {what} has shape "
            f"{tuple(expected)}: they must match")
