"""Pooling layers in the style of ``torch.nn``: configure once, then forward / backward.

A layer checks its parameters when it is built, remembers what its last ``forward``
needs (the input's shape, and for max pooling the indices of the maxima) and routes a
gradient back with ``backward``. The results are those of the functions.
"""

from __future__ import annotations

import numpy as np

from .avg_pool import avg_pool2d, avg_pool2d_backward
from .max_pool import max_pool2d, max_pool2d_backward
from .validation import ArrayLike, IntOrPair, as_flag, as_input, pooling_parameters


class MaxPool2d:
    """Max pooling as a layer; ``indices`` holds the argmax of the last forward.

    >>> layer = MaxPool2d(2)
    >>> layer.forward([[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]])
    array([[ 4,  8],
           [ 9, -2]])
    >>> layer.indices
    array([[ 5,  6],
           [13, 11]])
    >>> layer.backward([[1.0, 2.0], [3.0, 4.0]])
    array([[0., 0., 0., 0.],
           [0., 1., 2., 0.],
           [0., 0., 0., 4.],
           [0., 3., 0., 0.]])
    """

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair = 0,
                 dilation: IntOrPair = 1, ceil_mode: bool = False) -> None:
        params = pooling_parameters(kernel_size, stride, padding, dilation, ceil_mode)
        self.kernel_size, self.stride = params.kernel, params.stride
        self.padding, self.dilation = params.padding, params.dilation
        self.ceil_mode = params.ceil_mode
        self.indices = None
        self.input_shape = None

    def forward(self, x: ArrayLike) -> np.ndarray:
        """Pool ``x``; keep the indices and the input's shape for :meth:`backward`."""
        array = as_input(x)
        out, self.indices = max_pool2d(array, self.kernel_size, self.stride, self.padding,
                                       self.dilation, self.ceil_mode, return_indices=True)
        self.input_shape = array.shape
        return out

    def backward(self, grad_output: ArrayLike) -> np.ndarray:
        """The gradient of the last forward's input, given the output's gradient."""
        if self.indices is None:
            raise RuntimeError("MaxPool2d.backward needs a forward call first")
        return max_pool2d_backward(grad_output, self.indices, self.input_shape)

    def __repr__(self):
        return (f"MaxPool2d(kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, "
                f"ceil_mode={self.ceil_mode})")


class AvgPool2d:
    """Average pooling as a layer.

    >>> layer = AvgPool2d(2)
    >>> layer.forward([[12, 10, 9, 6], [11, 8, 13, 5], [2, 14, 15, 0], [4, 3, 7, 1]])
    array([[10.25,  8.25],
           [ 5.75,  5.75]])
    >>> layer.backward([[1, 2], [3, 4]])[0]
    array([0.25, 0.25, 0.5 , 0.5 ])
    """

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        params = pooling_parameters(kernel_size, stride, padding, 1, ceil_mode)
        self.kernel_size, self.stride = params.kernel, params.stride
        self.padding, self.ceil_mode = params.padding, params.ceil_mode
        self.count_include_pad = as_flag(count_include_pad, "count_include_pad")
        self.input_shape = None

    def forward(self, x: ArrayLike) -> np.ndarray:
        """Pool ``x``; keep its shape for :meth:`backward`."""
        array = as_input(x)
        out = avg_pool2d(array, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                         self.count_include_pad)
        self.input_shape = array.shape
        return out

    def backward(self, grad_output: ArrayLike) -> np.ndarray:
        """The gradient of the last forward's input, given the output's gradient."""
        if self.input_shape is None:
            raise RuntimeError("AvgPool2d.backward needs a forward call first")
        return avg_pool2d_backward(grad_output, self.input_shape, self.kernel_size,
                                   self.stride, self.padding, self.ceil_mode,
                                   self.count_include_pad)

    def __repr__(self):
        return (f"AvgPool2d(kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, ceil_mode={self.ceil_mode}, "
                f"count_include_pad={self.count_include_pad})")

