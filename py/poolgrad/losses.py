"""The losses that close the chain: mean squared error and mean absolute error (L1).

Each takes ``reduction`` = ``"none"`` (the per-cell losses), ``"mean"`` (the default) or
``"sum"``, as PyTorch does. Unlike PyTorch, which only warns and broadcasts, an input and
a target of different shapes are refused: broadcasting them is almost always a mistake.
Integer inputs give ``float64``.
"""

from __future__ import annotations

import numpy as np

from .validation import ArrayLike, as_input, check_grad_shape

#: What ``reduction`` may be, as in PyTorch.
REDUCTIONS = ("none", "mean", "sum")


def mse_loss(input: ArrayLike, target: ArrayLike, reduction: str = "mean") -> np.ndarray:
    """The squared differences ``(input - target) ** 2``, reduced.

    >>> mse_loss([[1, 2], [3, 4]], [[1, 0], [0, 4]])
    array(3.25)
    >>> mse_loss([[1, 2]], [[3, 2]], reduction="none")
    array([[4., 0.]])
    """
    difference, mode = _difference(input, target, reduction)
    return _reduce(difference * difference, mode)


def mse_loss_backward(grad_output: ArrayLike, input: ArrayLike, target: ArrayLike,
                      reduction: str = "mean") -> np.ndarray:
    """The gradient of :func:`mse_loss`: ``2 (input - target) grad_output``, divided by
    the number of cells with ``reduction="mean"``.

    ``grad_output`` is one number for ``"mean"`` and ``"sum"`` (the loss is a scalar), or
    the input's shape for ``"none"``.

    >>> mse_loss_backward(1.0, [[1, 2], [3, 4]], [[1, 0], [0, 4]])
    array([[0. , 1. ],
           [1.5, 0. ]])
    """
    difference, mode = _difference(input, target, reduction)
    grad = _grad(grad_output, difference, mode)
    # PyTorch's order: (input - target) * norm * grad_output.
    norm = 2.0 / difference.size if mode == "mean" else 2.0
    return difference * difference.dtype.type(norm) * grad


def l1_loss(input: ArrayLike, target: ArrayLike, reduction: str = "mean") -> np.ndarray:
    """The absolute differences ``|input - target|``, reduced.

    >>> l1_loss([[1, 2], [3, 4]], [[1, 0], [0, 4]])
    array(1.25)
    """
    difference, mode = _difference(input, target, reduction)
    return _reduce(np.abs(difference), mode)


def l1_loss_backward(grad_output: ArrayLike, input: ArrayLike, target: ArrayLike,
                     reduction: str = "mean") -> np.ndarray:
    """The gradient of :func:`l1_loss`: the sign of ``input - target`` times
    ``grad_output`` (divided by the number of cells with ``"mean"``).

    Where ``input == target`` the gradient is 0, as in PyTorch (a NaN difference gives
    0 too, as PyTorch's ``sgn`` does).

    >>> l1_loss_backward(1.0, [[1, 2], [3, 4]], [[1, 0], [0, 4]])
    array([[0.  , 0.25],
           [0.25, 0.  ]])
    """
    difference, mode = _difference(input, target, reduction)
    grad = _grad(grad_output, difference, mode)
    if mode == "mean":
        grad = grad / difference.dtype.type(difference.size)
    sign = (difference > 0).astype(difference.dtype) - (difference < 0)
    return grad * sign


def _difference(input, target, reduction):
    if not isinstance(reduction, str) or reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {', '.join(map(repr, REDUCTIONS))}, "
                         f"got {reduction!r}")
    x = as_input(input, "input")
    t = as_input(target, "target")
    if x.shape != t.shape:
        raise ValueError(f"target has shape {t.shape} but input has shape {x.shape}: they "
                         "must match (PyTorch would broadcast them, almost always by mistake)")
    dtype = np.result_type(x.dtype, t.dtype)
    if dtype.kind != "f":
        dtype = np.dtype(np.float64)
    return x.astype(dtype, copy=False) - t.astype(dtype, copy=False), reduction


def _reduce(losses, mode):
    if mode == "none":
        return losses
    return np.asarray(losses.mean() if mode == "mean" else losses.sum(), losses.dtype)


def _grad(grad_output, difference, mode):
    if mode == "none":
        grad = as_input(grad_output, "grad_output")
        check_grad_shape(grad.shape, difference.shape, "the loss (reduction='none')")
    else:
        grad = np.asarray(grad_output)
        if grad.size != 1 or grad.dtype.kind not in "iuf":
            raise ValueError(f"grad_output must be one number: the loss with reduction="
                             f"{mode!r} is a scalar, got {np.shape(grad_output)}")
        grad = grad.reshape(())
    return grad.astype(difference.dtype, copy=False)
