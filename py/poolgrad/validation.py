"""Checking what callers pass in: inputs, shapes, flags and pooling parameters.

The rules live here so that every entry point (the functions, the layers, the
widget's ``trace``) refuses bad input with the same message: a ``ValueError`` (or a
``TypeError`` for something that is not a number at all) that names the parameter and
the rule it broke. Nothing is allocated before the request has passed these checks.
The checks that need the input size (does a window fit, does it reach the input) sit
with the window geometry in :mod:`poolgrad.geometry`.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from collections.abc import Sequence
from typing import NamedTuple, Union

import numpy as np
import numpy.typing as npt

#: A pooling parameter: one int for both axes, or an ``(h, w)`` pair (any sequence of
#: one or two ints, as in PyTorch).
IntOrPair = Union[int, Sequence[int]]
#: Anything NumPy turns into an array: an array, nested lists, a number.
ArrayLike = npt.ArrayLike
#: An adaptive pooling's output size: one int, or an ``(h, w)`` pair whose entries may be
#: None ("keep that side of the input").
OutputSize = Union[int, Sequence[Union[int, None]]]

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


def _describe(pair):
    """A pair as the caller would write it: ``3`` when square, ``(3, 2)`` otherwise."""
    return str(pair[0]) if pair[0] == pair[1] else f"({pair[0]}, {pair[1]})"


def _is_int(value):
    if type(value) is int:  # the common case, without the costly check against the ABC
        return True
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(
        value, (bool, np.bool_))


def _pair(value, name, layer="pooling"):
    """An int, a one-element sequence or an (h, w) pair of ints as a tuple of two Python
    ints (PyTorch reads ``[2]`` as ``2``), each at most :data:`MAX_PARAMETER`; ``layer``
    names whose parameter it is in that refusal ("pooling" or "convolution")."""
    if _is_int(value):
        return _bounded(int(value), name, layer), _bounded(int(value), name, layer)
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
        return _bounded(int(items[0]), name, layer), _bounded(int(items[-1]), name, layer)
    raise TypeError(
        f"{name} must be an int or an (h, w) pair of ints, got {value!r} "
        f"of type {type(value).__name__}")


def _bounded(value, name, layer="pooling"):
    """``value``, or a refusal naming ``name`` as a ``layer`` parameter past :data:`MAX_PARAMETER`.

    >>> _bounded(10**400, "stride", "convolution")
    Traceback (most recent call last):
    ...
    ValueError: stride=1000000000... (401 digits) is too large: convolution parameters are 64-bit integers, at most 2**63 - 1 as in PyTorch; use a smaller stride
    """
    if value > MAX_PARAMETER:
        digits = str(value)
        written = digits if len(digits) <= 40 else f"{digits[:10]}... ({len(digits)} digits)"
        raise ValueError(
            f"{name}={written} is too large: {layer} parameters are 64-bit integers, at most "
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
        _at_least(1, pair, name)
    _at_least(0, pads, "padding")
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


def _at_least(lowest, pair, name):
    if min(pair) < lowest:
        raise ValueError(f"{name} must be at least {lowest}, got {_describe(pair)}")


#: The words ``padding`` may be instead of numbers in a convolution, as in PyTorch.
PADDING_WORDS = ("valid", "same")


class ConvParameters(NamedTuple):
    """A convolution's parameters, checked; ``padding`` is ``(top, bottom, left, right)``."""

    kernel: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    groups: int


def conv_parameters(kernel_hw, stride=1, padding=0, dilation=1, groups=1):
    """Check a convolution's parameters for a ``kernel_hw`` = ``(kh, kw)`` filter.

    ``padding`` is an int, an ``(h, w)`` pair, ``"valid"`` (no padding) or ``"same"``
    (the output keeps the input's size: ``dilation * (k - 1)`` lines in all, the odd one
    at the bottom or right, as PyTorch pads; refused with a stride above 1, as PyTorch
    refuses it). Returns :class:`ConvParameters` with the padding of each side. Unlike
    pooling, a convolution may pad by more than half its kernel.

    >>> conv_parameters((3, 3), padding=1).padding
    (1, 1, 1, 1)
    >>> conv_parameters((2, 4), padding="same").padding
    (0, 1, 1, 2)
    >>> conv_parameters((3, 3), stride=2, padding="same")
    Traceback (most recent call last):
    ...
    ValueError: padding='same' is not supported for strided convolutions (stride=2): use stride=1, or pad with numbers
    >>> conv_parameters((3, 3), groups=0)
    Traceback (most recent call last):
    ...
    ValueError: groups must be at least 1, got 0
    """
    strides = _pair(stride, "stride", "convolution")
    dilations = _pair(dilation, "dilation", "convolution")
    _at_least(1, strides, "stride")
    _at_least(1, dilations, "dilation")
    if not _is_int(groups):
        raise TypeError(f"groups must be an int, got {groups!r} of type {type(groups).__name__}")
    _at_least(1, (int(groups), int(groups)), "groups")
    if isinstance(padding, str):
        if padding not in PADDING_WORDS:
            raise ValueError(f"padding must be an int, an (h, w) pair, 'valid' or 'same', "
                             f"got {padding[:20]!r}")
        if padding == "valid":
            pads = (0, 0, 0, 0)
        else:
            if strides != (1, 1):
                raise ValueError(
                    f"padding='same' is not supported for strided convolutions "
                    f"(stride={_describe(strides)}): use stride=1, or pad with numbers")
            totals = [d * (k - 1) for d, k in zip(dilations, kernel_hw)]
            pads = (totals[0] // 2, totals[0] - totals[0] // 2,
                    totals[1] // 2, totals[1] - totals[1] // 2)
    else:
        pair = _pair(padding, "padding", "convolution")
        _at_least(0, pair, "padding")
        pads = (pair[0], pair[0], pair[1], pair[1])
    return ConvParameters(tuple(kernel_hw), strides, pads, dilations, int(groups))


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


def as_output_size(value, name="output_size"):
    """An adaptive pooling's ``output_size`` as an ``(h, w)`` pair whose entries are ints
    of at least 1 or ``None`` ("keep the input's side"), as in PyTorch; one int means a
    square output. The sides are resolved against an input in :mod:`poolgrad.geometry`.

    >>> as_output_size(3), as_output_size((None, 2))
    ((3, 3), (None, 2))
    >>> as_output_size([3])
    Traceback (most recent call last):
    ...
    ValueError: output_size must be an int or an (h, w) pair, got 1 value: [3]
    >>> as_output_size((2, 0))
    Traceback (most recent call last):
    ...
    ValueError: output_size must have sides of at least 1 (or None to keep the input's side), got (2, 0)
    """
    if _is_int(value):
        items = [value, value]
    elif isinstance(value, (tuple, list, np.ndarray)) and not isinstance(value, str):
        items = list(np.asarray(value, dtype=object).ravel()) if isinstance(
            value, np.ndarray) else list(value)
        if len(items) != 2:
            count = f"{len(items)} value" + ("" if len(items) == 1 else "s")
            raise ValueError(f"{name} must be an int or an (h, w) pair, got {count}: {value!r}")
    else:
        raise TypeError(
            f"{name} must be an int or an (h, w) pair of ints (None keeps a side), got "
            f"{value!r} of type {type(value).__name__}")
    for item in items:
        if item is not None and not _is_int(item):
            raise TypeError(
                f"{name} must hold ints or None, got {item!r} of type {type(item).__name__}")
    pair = tuple(None if item is None else _bounded(int(item), name) for item in items)
    if any(side is not None and side < 1 for side in pair):
        raise ValueError(
            f"{name} must have sides of at least 1 (or None to keep the input's side), "
            f"got {tuple(pair)}")
    return pair


def as_norm_type(value):
    """LP pooling's ``p``: a real number, not 0 and not NaN; ``inf`` (max pooling of
    ``|x|``) and ``-inf`` (its minimum) are allowed, as in PyTorch.

    >>> as_norm_type(2), as_norm_type(float("inf"))
    (2.0, inf)
    >>> as_norm_type(0)
    Traceback (most recent call last):
    ...
    ValueError: norm_type must not be 0: the LP norm takes the 1/p-th power (use p = 1 for sums, p = inf for the maximum)
    >>> as_norm_type(10**400)
    Traceback (most recent call last):
    ...
    ValueError: norm_type is beyond a 64-bit float (more than 1.8e308 in size): use inf for the largest |x| of each window, -inf for the smallest
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(
            f"norm_type must be a number such as 2, got {value!r} of type {type(value).__name__}")
    try:
        p = float(value)
    except OverflowError:
        raise ValueError("norm_type is beyond a 64-bit float (more than 1.8e308 in size): use inf "
                         "for the largest |x| of each window, -inf for the smallest") from None
    if p != p:
        raise ValueError("norm_type must be a number, got NaN")
    if p == 0:
        raise ValueError(
            "norm_type must not be 0: the LP norm takes the 1/p-th power (use p = 1 for sums, "
            "p = inf for the maximum)")
    return p
