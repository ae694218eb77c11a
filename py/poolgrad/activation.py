"""The activation between the convolution and the pooling: ReLU, forward and backward.

As PyTorch computes it: ``relu`` keeps a negative zero and a NaN as they are, and its
gradient passes only where the input is above 0 (an input of exactly 0 gets 0, a NaN
input lets the gradient through, as ``threshold_backward`` does).
"""

from __future__ import annotations

import numpy as np

from .validation import ArrayLike, as_input, check_grad_shape


def relu(input: ArrayLike) -> np.ndarray:
    """``max(input, 0)`` cell by cell, keeping the input's shape and dtype.

    Any shape NumPy can hold with 2 to 4 axes, as the rest of the package takes it.

    >>> relu([[-2, 0, 3], [1, -1, 5]])
    array([[0, 0, 3],
           [1, 0, 5]])
    >>> relu([[-0.0, np.nan, -1.5]])
    array([[-0., nan,  0.]])
    """
    array = as_input(input, "input")
    return np.where(array < 0, array.dtype.type(0), array)


def relu_backward(grad_output: ArrayLike, input: ArrayLike) -> np.ndarray:
    """The gradient of :func:`relu`: ``grad_output`` where ``input > 0``, else 0.

    At exactly 0 the gradient is 0 (PyTorch's choice of subgradient). The result has
    ``grad_output``'s floating dtype, or ``float64`` for integers.

    >>> relu_backward([[1.0, 2.0, 3.0]], [[-1, 0, 4]])
    array([[0., 0., 3.]])
    """
    array = as_input(input, "input")
    grad = as_input(grad_output, "grad_output")
    check_grad_shape(grad.shape, array.shape, "input")
    if grad.dtype.kind != "f":
        grad = grad.astype(np.float64)
    return np.where(array <= 0, grad.dtype.type(0), grad)
