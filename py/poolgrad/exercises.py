"""The two functions the lesson's exercises ask learners to write, as reference answers.

They use the signatures of the exercise text: a square ``pool_size`` window, a stride
(equal to the window for ``max_pool2d``), leftover rows and columns dropped. The
gradient comes back as plain lists rounded to 4 decimals, the way the exercise checks it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import max_pool
from .validation import ArrayLike, as_input


def max_pool2d(image: ArrayLike, pool_size: int = 2) -> np.ndarray:
    """Max pooling with a ``pool_size`` x ``pool_size`` window and stride ``pool_size``.

    Rows and columns that do not fill a whole window are dropped.

    >>> max_pool2d([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]])
    array([[ 6,  8],
           [14, 16]])
    >>> max_pool2d(np.arange(30).reshape(5, 6) * 0.5, pool_size=3)
    array([[7. , 8.5]])
    >>> max_pool2d([[-1, -2]], pool_size=(1, 2))
    array([[-1]])
    """
    return max_pool.max_pool2d(image, pool_size, pool_size)


def max_pool2d_backward(input_map: Sequence[Sequence[float]], grad_output: Sequence[Sequence[float]],
                        pool_size: int = 2, stride: int = 2) -> list[list[float]]:
    """Send each output's gradient to the input cell its maximum came from.

    Where windows overlap (``stride < pool_size``) and pick the same cell, the
    gradients add up. Returns lists of floats rounded to 4 decimals.

    >>> max_pool2d_backward([[1, 3, 2, 4], [5, 2, 8, 6], [3, 7, 1, 5], [2, 4, 9, 0]],
    ...                     [[1.5, 2.5], [3.5, 4.5]], 2, 2)
    [[0.0, 0.0, 0.0, 0.0], [1.5, 0.0, 2.5, 0.0], [0.0, 3.5, 0.0, 0.0], [0.0, 0.0, 4.5, 0.0]]
    >>> max_pool2d_backward([[1, 5, 2], [3, 4, 1]], [[1, 2]], 2, 1)
    [[0.0, 3.0, 0.0], [0.0, 0.0, 0.0]]
    """
    values = as_input(input_map, "input_map")
    _, indices = max_pool.max_pool2d(values, pool_size, stride, return_indices=True)
    grad = as_input(grad_output, "grad_output").astype(np.float64)
    grad_input = max_pool.max_pool2d_backward(grad, indices, values.shape)
    # Adding 0.0 turns the -0.0 that rounding can produce into 0.0.
    return (np.round(grad_input, 4) + 0.0).tolist()
