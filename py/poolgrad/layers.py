"""Layers in the style of ``torch.nn``: configure once, then forward / backward.

The pooling family, and the network around it: :class:`Conv2d`, :class:`ReLU` and the
losses :class:`MSELoss` and :class:`L1Loss`. A layer checks its parameters when it is
built, remembers what its last ``forward`` needs (the input's shape, for max pooling the
indices of the maxima, for a convolution its input) and routes a gradient back with
``backward``. Calling a layer runs ``forward``, as in PyTorch. The results are those of
the functions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .activation import relu, relu_backward

from .adaptive_pool import (adaptive_avg_pool2d, adaptive_avg_pool2d_backward, adaptive_max_pool2d,
                            adaptive_max_pool2d_backward)
from .avg_pool import avg_pool2d, avg_pool2d_backward, divisor_override_of
from .conv import conv2d, conv2d_backward
from .losses import REDUCTIONS, l1_loss, l1_loss_backward, mse_loss, mse_loss_backward
from .lp_pool import lp_pool2d, lp_pool2d_backward
from .max_pool import max_pool2d, max_pool2d_backward
from .unpool import max_unpool2d
from .validation import (ArrayLike, IntOrPair, OutputSize, _is_int, _pair, as_flag, as_input,
                         as_norm_type, as_output_size, check_grad_shape, conv_parameters,
                         pooling_parameters)


class _Layer:
    """What every layer shares: calling it runs ``forward`` (``layer(input)``, as a
    ``torch.nn`` module), and ``backward`` can check the gradient against the last
    forward's output."""

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def _checked_grad(self, grad_output):
        name = type(self).__name__
        if self.output_shape is None:
            raise RuntimeError(f"{name}.backward needs a forward call first")
        grad = as_input(grad_output, "grad_output")
        check_grad_shape(grad.shape, self.output_shape, f"{name}'s last forward output")
        return grad


class MaxPool2d(_Layer):
    """Max pooling as a layer; ``indices`` holds the argmax of the last forward.

    ``return_indices`` and ``ceil_mode`` are keyword-only: ``torch.nn.MaxPool2d`` takes
    them in the opposite order to ``torch.nn.functional.max_pool2d``, so a fifth
    positional argument could mean either.

    >>> layer = MaxPool2d(2)
    >>> layer([[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]])
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
                 dilation: IntOrPair = 1, *, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        params = pooling_parameters(kernel_size, stride, padding, dilation, ceil_mode)
        self.kernel_size, self.stride = params.kernel, params.stride
        self.padding, self.dilation = params.padding, params.dilation
        self.ceil_mode = params.ceil_mode
        self.return_indices = as_flag(return_indices, "return_indices")
        self.indices = None
        self.input_shape = None
        self.output_shape = None

    def forward(self, input: ArrayLike) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Pool ``input``; keep the indices and the shapes for :meth:`backward`. The result
        is ``(out, indices)`` when the layer was built with ``return_indices=True``."""
        array = as_input(input, "input")
        out, self.indices = max_pool2d(array, self.kernel_size, self.stride, self.padding,
                                       self.dilation, self.ceil_mode, return_indices=True)
        self.input_shape, self.output_shape = array.shape, out.shape
        return (out, self.indices) if self.return_indices else out

    def backward(self, grad_output: ArrayLike) -> np.ndarray:
        """The gradient of the last forward's input, given the output's gradient."""
        grad = self._checked_grad(grad_output)
        return max_pool2d_backward(grad, self.indices, self.input_shape)

    def __repr__(self):
        return (f"MaxPool2d(kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, "
                f"return_indices={self.return_indices}, ceil_mode={self.ceil_mode})")


class AvgPool2d(_Layer):
    """Average pooling as a layer.

    >>> layer = AvgPool2d(2)
    >>> layer([[12, 10, 9, 6], [11, 8, 13, 5], [2, 14, 15, 0], [4, 3, 7, 1]])
    array([[10.25,  8.25],
           [ 5.75,  5.75]])
    >>> layer.backward([[1, 2], [3, 4]])[0]
    array([0.25, 0.25, 0.5 , 0.5 ])
    """

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        params = pooling_parameters(kernel_size, stride, padding, 1, ceil_mode)
        self.kernel_size, self.stride = params.kernel, params.stride
        self.padding, self.ceil_mode = params.padding, params.ceil_mode
        self.count_include_pad = as_flag(count_include_pad, "count_include_pad")
        self.divisor_override = divisor_override_of(divisor_override)
        self.input_shape = None
        self.output_shape = None

    def forward(self, input: ArrayLike) -> np.ndarray:
        """Pool ``input``; keep the shapes for :meth:`backward`."""
        array = as_input(input, "input")
        out = avg_pool2d(array, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                         self.count_include_pad, self.divisor_override)
        self.input_shape, self.output_shape = array.shape, out.shape
        return out

    def backward(self, grad_output: ArrayLike) -> np.ndarray:
        """The gradient of the last forward's input, given the output's gradient."""
        grad = self._checked_grad(grad_output)
        return avg_pool2d_backward(grad, self.input_shape, self.kernel_size,
                                   self.stride, self.padding, self.ceil_mode,
                                   self.count_include_pad, self.divisor_override)

    def __repr__(self):
        return (f"AvgPool2d(kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, ceil_mode={self.ceil_mode}, "
                f"count_include_pad={self.count_include_pad}, "
                f"divisor_override={self.divisor_override})")



class AdaptiveAvgPool2d(_Layer):
    """Adaptive average pooling as a layer: the output size is fixed, the windows follow
    the input (``AdaptiveAvgPool2d(1)`` is global average pooling).

    >>> layer = AdaptiveAvgPool2d(1)
    >>> layer.forward([[1.0, 2.0], [3.0, 6.0]])
    array([[3.]])
    >>> layer.backward([[4.0]])
    array([[1., 1.],
           [1., 1.]])
    """

    def __init__(self, output_size: OutputSize) -> None:
        self.output_size = as_output_size(output_size)
        self.input_shape = self.output_shape = None

    def forward(self, input: ArrayLike) -> np.ndarray:
        """Pool ``input``; keep its shape for :meth:`backward`."""
        array = as_input(input, "input")
        out = adaptive_avg_pool2d(array, self.output_size)
        self.input_shape, self.output_shape = array.shape, out.shape
        return out

    def backward(self, grad_output: ArrayLike) -> np.ndarray:
        """The gradient of the last forward's input, given the output's gradient (whose
        shape must be the last output's: the windows follow it)."""
        return adaptive_avg_pool2d_backward(self._checked_grad(grad_output), self.input_shape)

    def __repr__(self):
        return f"AdaptiveAvgPool2d(output_size={self.output_size})"


class AdaptiveMaxPool2d(_Layer):
    """Adaptive max pooling as a layer; ``indices`` holds the argmax of the last forward.

    >>> layer = AdaptiveMaxPool2d((1, 3))
    >>> layer.forward([[1, 5, 2, 4, 3]]), layer.indices
    (array([[5, 5, 4]]), array([[1, 1, 3]]))
    >>> layer.backward([[1.0, 2.0, 4.0]])
    array([[0., 3., 0., 4., 0.]])
    """

    def __init__(self, output_size: OutputSize) -> None:
        self.output_size = as_output_size(output_size)
        self.indices = None
        self.input_shape = self.output_shape = None

    def forward(self, input: ArrayLike) -> np.ndarray:
        """Pool ``input``; keep the indices and the input's shape for :meth:`backward`."""
        array = as_input(input, "input")
        out, self.indices = adaptive_max_pool2d(array, self.output_size, return_indices=True)
        self.input_shape, self.output_shape = array.shape, out.shape
        return out

    def backward(self, grad_output: ArrayLike) -> np.ndarray:
        """The gradient of the last forward's input, given the output's gradient."""
        return adaptive_max_pool2d_backward(self._checked_grad(grad_output), self.indices,
                                            self.input_shape)

    def __repr__(self):
        return f"AdaptiveMaxPool2d(output_size={self.output_size})"


class LPPool2d(_Layer):
    """LP pooling as a layer (``norm_type`` is p; no padding, as in PyTorch).

    >>> layer = LPPool2d(2, 2)
    >>> layer.forward([[3.0, 4.0], [0.0, 0.0]])
    array([[5.]])
    >>> layer.backward([[1.0]])
    array([[0.6, 0.8],
           [0. , 0. ]])
    """

    def __init__(self, norm_type: float, kernel_size: IntOrPair, stride: IntOrPair | None = None,
                 ceil_mode: bool = False) -> None:
        self.norm_type = as_norm_type(norm_type)
        params = pooling_parameters(kernel_size, stride, 0, 1, ceil_mode)
        self.kernel_size, self.stride, self.ceil_mode = params.kernel, params.stride, params.ceil_mode
        self.input = self.output_shape = None

    def forward(self, input: ArrayLike) -> np.ndarray:
        """Pool ``input``; keep it for :meth:`backward` (the gradient needs its values)."""
        array = as_input(input, "input")
        out = lp_pool2d(array, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)
        self.input, self.output_shape = array, out.shape
        return out

    def backward(self, grad_output: ArrayLike) -> np.ndarray:
        """The gradient of the last forward's input, given the output's gradient."""
        return lp_pool2d_backward(self._checked_grad(grad_output), self.input, self.norm_type, self.kernel_size,
                                  self.stride, self.ceil_mode)

    def __repr__(self):
        return (f"LPPool2d(norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode})")


class MaxUnpool2d(_Layer):
    """Max unpooling as a layer: ``forward(input, indices, output_size=None)``.

    >>> pool, unpool = MaxPool2d(2), MaxUnpool2d(2)
    >>> out = pool.forward([[1, 2], [4, 3]])
    >>> unpool.forward(out, pool.indices)
    array([[0, 0],
           [4, 0]])
    """

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None,
                 padding: IntOrPair = 0) -> None:
        params = pooling_parameters(kernel_size, stride, 0, 1, False)
        self.kernel_size, self.stride = params.kernel, params.stride
        self.padding = pooling_parameters(kernel_size, stride, padding).padding

    def forward(self, input: ArrayLike, indices: ArrayLike,
                output_size: Sequence[int] | None = None) -> np.ndarray:
        """Write each value of ``input`` at its index in a zero output (see :func:`max_unpool2d`)."""
        return max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def __repr__(self):
        return (f"MaxUnpool2d(kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding})")


class Conv2d(_Layer):
    """A 2-D convolution layer (cross-correlation, as ``torch.nn.Conv2d``).

    ``weight`` is ``(out_channels, in_channels / groups, kh, kw)`` and ``bias``
    ``out_channels`` numbers (or None with ``bias=False``), both drawn as PyTorch draws
    them, uniform in ``+-1 / sqrt(fan_in)`` with ``fan_in = in_channels / groups * kh *
    kw``, from ``rng`` (a ``numpy.random.Generator``, a seed, or None for a fresh one).
    Both can be set. ``backward(grad_output)`` returns the input's gradient and keeps
    ``grad_weight`` and ``grad_bias``.

    >>> conv = Conv2d(1, 1, 3, bias=False)
    >>> conv.weight = np.array([[[[1.0, 0, -1], [1, 0, -1], [1, 0, -1]]]])
    >>> conv([[[3, 0, 1, 2], [1, 5, 8, 9], [2, 7, 2, 5], [0, 1, 3, 1]]])
    array([[[ -5.,  -4.],
            [-10.,  -2.]]])
    >>> conv.backward(np.ones((1, 2, 2))).shape, conv.grad_weight[0, 0, 0]
    ((1, 4, 4), array([ 9., 14., 20.]))
    >>> bool(np.abs(Conv2d(2, 4, 3, rng=0).weight).max() <= 1 / np.sqrt(18))
    True
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair,
                 stride: IntOrPair = 1, padding: IntOrPair | str = 0, dilation: IntOrPair = 1,
                 groups: int = 1, bias: bool = True,
                 rng: int | np.random.Generator | None = None) -> None:
        for name, value in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not _is_int(value) or value < 1:
                raise ValueError(f"{name} must be an int of at least 1, got {value!r}")
        kernel = _pair(kernel_size, "kernel_size")
        if min(kernel) < 1:
            raise ValueError(f"kernel_size must be at least 1, got {kernel_size!r}")
        params = conv_parameters(kernel, stride, padding, dilation, groups)
        for name, value in (("in_channels", in_channels), ("out_channels", out_channels)):
            if value % params.groups:
                raise ValueError(f"{name}={value} must be divisible by groups={params.groups}")
        with_bias = as_flag(bias, "bias")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size, self.stride, self.dilation = kernel, params.stride, params.dilation
        self.padding, self.groups = padding, params.groups
        generator = np.random.default_rng(rng)
        fan_in = in_channels // params.groups * kernel[0] * kernel[1]
        bound = 1 / math.sqrt(fan_in)
        self.weight = generator.uniform(-bound, bound, (out_channels, in_channels // params.groups)
                                        + kernel)
        self.bias = generator.uniform(-bound, bound, out_channels) if with_bias else None
        self.input = self.output_shape = None
        self.grad_weight = self.grad_bias = None

    def _args(self):
        return self.stride, self.padding, self.dilation, self.groups

    def forward(self, input: ArrayLike) -> np.ndarray:
        """Convolve ``input`` (``(C, H, W)`` or ``(N, C, H, W)``); keep it for backward."""
        array = as_input(input, "input")
        out = conv2d(array, self.weight, self.bias, *self._args())
        self.input, self.output_shape = array, out.shape
        return out

    def backward(self, grad_output: ArrayLike) -> np.ndarray:
        """The input's gradient; ``grad_weight`` and ``grad_bias`` are kept."""
        grad = self._checked_grad(grad_output)
        grad_input, self.grad_weight, self.grad_bias = conv2d_backward(
            grad, self.input, self.weight, *self._args(), bias=self.bias is not None)
        return grad_input

    def __repr__(self):
        return (f"Conv2d({self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding!r}, dilation={self.dilation}, "
                f"groups={self.groups}, bias={self.bias is not None})")


class ReLU(_Layer):
    """``max(x, 0)`` as a layer; ``backward`` passes the gradient where the input was > 0.

    >>> layer = ReLU()
    >>> layer([[-1.0, 2.0], [0.0, 3.0]])
    array([[0., 2.],
           [0., 3.]])
    >>> layer.backward([[5.0, 5.0], [5.0, 5.0]])
    array([[0., 5.],
           [0., 5.]])
    """

    def __init__(self) -> None:
        self.input = self.output_shape = None

    def forward(self, input: ArrayLike) -> np.ndarray:
        array = as_input(input, "input")
        out = relu(array)
        self.input, self.output_shape = array, out.shape
        return out

    def backward(self, grad_output: ArrayLike) -> np.ndarray:
        return relu_backward(self._checked_grad(grad_output), self.input)

    def __repr__(self):
        return "ReLU()"


class _Loss(_Layer):
    """A loss layer: ``loss = crit(input, target)``; ``crit.backward(grad_output=1.0)``."""

    _functions = None

    def __init__(self, reduction: str = "mean") -> None:
        if not isinstance(reduction, str) or reduction not in REDUCTIONS:
            raise ValueError(f"reduction must be one of {', '.join(map(repr, REDUCTIONS))}, "
                             f"got {reduction!r}")
        self.reduction = reduction
        self.input = self.target = None

    def forward(self, input: ArrayLike, target: ArrayLike) -> np.ndarray:
        forward = self._functions[0]
        loss = forward(input, target, self.reduction)
        self.input, self.target = as_input(input, "input"), as_input(target, "target")
        return loss

    def backward(self, grad_output: ArrayLike = 1.0) -> np.ndarray:
        """The input's gradient; ``grad_output`` is dL/d(loss), 1 when the loss is L."""
        if self.input is None:
            raise RuntimeError(f"{type(self).__name__}.backward needs a forward call first")
        backward = self._functions[1]
        return backward(grad_output, self.input, self.target, self.reduction)

    def __repr__(self):
        return f"{type(self).__name__}(reduction={self.reduction!r})"


class MSELoss(_Loss):
    """The mean squared error as a layer (see :func:`~poolgrad.mse_loss`).

    >>> crit = MSELoss()
    >>> crit([[1.0, 2.0]], [[1.0, 0.0]])
    array(2.)
    >>> crit.backward()
    array([[0., 2.]])
    """

    _functions = (mse_loss, mse_loss_backward)


class L1Loss(_Loss):
    """The mean absolute error as a layer (see :func:`~poolgrad.l1_loss`).

    >>> crit = L1Loss(reduction="sum")
    >>> crit([[1.0, 2.0]], [[1.0, 0.0]])
    array(2.)
    >>> crit.backward()
    array([[0., 1.]])
    """

    _functions = (l1_loss, l1_loss_backward)
