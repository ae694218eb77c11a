"""The functions the lesson's exercises ask learners to write, as reference answers.

The pooling pair uses the signatures of the exercise text: a square ``pool_size`` window,
a stride (equal to the window for ``max_pool2d``), leftover rows and columns dropped; its
gradient comes back as plain lists rounded to 4 decimals, the way the exercise checks it.
The chain's pair is the backward pass the chain lesson derives by hand, for one channel:
``conv2d_backward(x, w, grad_output)`` (stride 1, no padding) and
``mse_loss_backward(prediction, target)`` (the mean over every cell), NumPy in and out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import conv, losses, max_pool
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


def conv2d_backward(x: ArrayLike, w: ArrayLike, grad_output: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The two gradients of ``y = conv2d(x, w)`` for one channel, stride 1, no padding:
    ``(grad_w, grad_x)``, dL/dW shaped like ``w`` and dL/dX shaped like ``x``.

    ``y[i, j]`` is ``sum over a, b of w[a, b] * x[i + a, j + b]`` (a cross-correlation,
    as in PyTorch), so ``grad_output`` (dL/dY) has ``y``'s shape,
    ``(H - kh + 1, W - kw + 1)``. Two facts give the whole backward pass:

    - one weight touches every output: ``w[a, b]`` multiplied ``x[i + a, j + b]`` in
      output ``(i, j)``, so ``grad_w[a, b]`` sums ``x[i + a, j + b] * grad_output[i, j]``
      over every output: x correlated with dL/dY (``X ⋆ dL/dY``);
    - one input feeds only its region P, the outputs whose window holds it: ``x[r, c]``
      met ``w[r - i, c - j]`` in output ``(i, j)``, so ``grad_x[r, c]`` sums
      ``w[r - i, c - j] * grad_output[i, j]`` over P: the full correlation of dL/dY
      (padded by the filter's size minus one) with ``w`` turned 180 degrees.

    The lesson's example: the vertical-edge filter on the 5 x 5 input, dL/dY the ramp 1..9.

    >>> x = [[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]]
    >>> edge = [[1, 0, -1], [1, 0, -1], [1, 0, -1]]
    >>> grad_w, grad_x = conv2d_backward(x, edge, np.arange(1.0, 10.0).reshape(3, 3))
    >>> grad_w
    array([[171., 232., 184.],
           [125., 156., 166.],
           [ 98., 127., 147.]])
    >>> grad_x[0]
    array([ 1.,  2.,  2., -2., -3.])

    A filter as big as the input has one output: dL/dW is x times it, dL/dX is w times it.

    >>> conv2d_backward([[1, 2], [3, 4]], [[0, 1], [-1, 0]], [[2.0]])
    (array([[2., 4.],
           [6., 8.]]), array([[ 0.,  2.],
           [-2.,  0.]]))
    """
    image, kernel = as_input(x, "x"), as_input(w, "w")
    if image.ndim != 2 or kernel.ndim != 2:
        raise ValueError(f"x and w must be 2-D (one channel, one filter); got x of shape {image.shape} "
                         f"and w of shape {kernel.shape}")
    grad_x, grad_w, _ = conv.conv2d_backward(as_input(grad_output, "grad_output")[None], image[None],
                                             kernel[None, None], bias=False)
    return grad_w[0, 0].astype(np.float64), grad_x[0].astype(np.float64)


def mse_loss_backward(prediction: ArrayLike, target: ArrayLike) -> np.ndarray:
    """dL/d(prediction) of the mean squared error ``L = mean((prediction - target) ** 2)``:
    ``2 / n * (prediction - target)``, ``n`` the number of cells (all of them, not the rows).

    It is where the chain's backward pass starts: each cell's share of the loss is
    ``(p - t) ** 2 / n``, whose slope in ``p`` is ``2 (p - t) / n``; a cell the prediction
    gets right gets no gradient, one that is too high a positive one.

    The capstone's pooled output against its target:

    >>> mse_loss_backward([[4, 2], [3.5, 3]], [[2, 1], [0, 3]])
    array([[1.  , 0.5 ],
           [1.75, 0.  ]])
    """
    return losses.mse_loss_backward(1.0, prediction, target).astype(np.float64)
