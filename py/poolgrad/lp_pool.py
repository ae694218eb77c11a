"""LP (power-average) pooling: ``(sum over the window of x**p) ** (1/p)``, as PyTorch
computes it, and its gradient as PyTorch's autograd gives it.

PyTorch's ``lp_pool2d`` is a composition, and each step here is that step:

1. ``x ** p`` (PyTorch's powers: ``x * x`` for p = 2, ``x * x * x`` for p = 3, a
   square root for 0.5, ``std::pow`` otherwise);
2. ``avg_pool2d`` of it (padding 0, the divisor counts what the window covers);
3. ``sign(s) * relu(abs(s))``, times ``kw * kh``;
4. ``** (1 / p)``.

So a window of a ceil-mode edge is scaled by ``kw * kh`` over the cells it covers; a
negative sum under an odd ``p`` has no real root and gives NaN (p = 1 gives the sum
itself); ``norm_type=inf`` is ``max_pool2d(|x|)`` and ``-inf`` the smallest ``|x|``.

Where a window's sum is 0 the gradient is 0 (PyTorch's ``relu`` passes no gradient at
0, even though ``s ** (1/p - 1)`` is infinite there). For ``p < 1`` a cell holding 0 in
a window whose sum is not 0 gets ``g * p * 0 ** (p - 1)``: infinite, or NaN where the
gradient is 0, exactly as PyTorch's autograd. The powers other than the ones named in
step 1 use NumPy's ``power`` (and ``sqrt`` for 0.5): PyTorch's vectorised ``pow``
(SLEEF, within one ulp) is not correctly rounded, so a root such as p = 2's ``** 0.5``
may differ from PyTorch's in the last bit. Steps 2 and 3 are exact to PyTorch.
"""

from __future__ import annotations

import numpy as np

from .avg_pool import avg_pool2d, avg_pool2d_backward
from .max_pool import max_pool2d, max_pool2d_backward
from .validation import ArrayLike, IntOrPair, as_input, as_norm_type, pooling_parameters


def _float_input(x, name="x"):
    array = as_input(x, name)
    return array if array.dtype.kind == "f" else array.astype(np.float64)


def _power(x, exponent):
    """``x ** exponent`` with PyTorch's special cases (PowKernel.cpp)."""
    if exponent == 1:
        return x  # PyTorch copies; nothing here writes into the result
    if exponent == 2:
        return x * x
    if exponent == 3:
        return x * x * x
    if exponent == 0.5:
        return np.sqrt(x)
    if exponent == -0.5:
        return x.dtype.type(1) / np.sqrt(x)
    if exponent == -1:
        return x.dtype.type(1) / x
    if exponent == -2:
        return x.dtype.type(1) / (x * x)
    if exponent == 0:
        return np.ones_like(x)
    with np.errstate(all="ignore"):
        return np.power(x, x.dtype.type(exponent))


def _sign(x):
    """PyTorch's sign: -1, 0 or 1, and 0 for NaN and for -0.0."""
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


def _parameters(kernel_size, stride, ceil_mode):
    params = pooling_parameters(kernel_size, stride, 0, 1, ceil_mode)
    return params.kernel, params.stride, params.ceil_mode


def _forward_steps(array, p, kernel, stride, ceil_mode):
    """The intermediate values of steps 1 to 4, for the backward pass: the window means,
    whether step 3 changes them (``plain``: no mean has its sign bit set nor is NaN, so
    ``sign(s) * relu(abs(s))`` is ``s`` itself and the backward's masks are ``s > 0``),
    the scaled sums and the output."""
    with np.errstate(all="ignore"):
        mean = avg_pool2d(_power(array, p), kernel, stride, 0, ceil_mode)
        size = mean.dtype.type(kernel[0] * kernel[1])
        plain = not (np.signbit(mean).any() or np.isnan(mean).any())
        if plain:
            scaled = mean * size
        else:
            scaled = _sign(mean) * np.maximum(np.abs(mean), mean.dtype.type(0)) * size
        return mean, plain, scaled, _power(scaled, 1.0 / p)


def _mean_gradient(grad, mean, plain, scaled, p, kernel):
    """Steps 4 back to 2: the gradient of the window means, as autograd chains it."""
    dtype = mean.dtype.type
    with np.errstate(all="ignore"):
        q = 1.0 / p
        grad_scaled = grad * (dtype(q) * _power(scaled, q - 1))
        grad_scaled *= dtype(kernel[0] * kernel[1])
        # relu passes nothing where its input is 0; abs and the product with sign
        # multiply by sign(mean) twice.
        if plain:
            return np.where(mean > 0, grad_scaled, dtype(0))
        sign = _sign(mean)
        root = np.maximum(np.abs(mean), dtype(0))
        return np.where(root <= 0, dtype(0), grad_scaled * sign) * sign


def input_factor(array, p):
    """Step 1 back: what each cell's share of the pooled gradient is multiplied by,
    ``p * x ** (p - 1)`` (``sign(x)`` for ``p = ±inf``)."""
    if abs(p) == np.inf:
        return _sign(array)
    with np.errstate(all="ignore"):
        return np.multiply(_power(array, p - 1), array.dtype.type(p))


def lp_pool2d(input: ArrayLike, norm_type: float, kernel_size: IntOrPair,
              stride: IntOrPair | None = None, ceil_mode: bool = False) -> np.ndarray:
    """Power-average pooling: each window's ``(sum of x**p) ** (1/p)``.

    ``norm_type`` is ``p`` (any real number but 0; ``inf`` for the maximum of ``|x|``).
    No padding, as in PyTorch. The result is floating point (integers become
    ``float64``), with the input's float dtype.

    >>> lp_pool2d([[3.0, 4.0], [0.0, 0.0]], 2, 2)
    array([[5.]])

    p = 1 is the window's sum (average pooling times the window's size), and p = inf its
    largest absolute value:

    >>> lp_pool2d([[1.0, -2.0], [3.0, 4.0]], 1, 2), lp_pool2d([[1.0, -5.0], [3.0, 4.0]], float("inf"), 2)
    (array([[6.]]), array([[5.]]))

    A negative sum under an odd ``p`` has no real root:

    >>> lp_pool2d([[-2.0, 1.0], [0.0, 0.0]], 3, 2)
    array([[nan]])
    """
    p = as_norm_type(norm_type)
    array = _float_input(input, "input")
    kernel, stride, ceil_mode = _parameters(kernel_size, stride, ceil_mode)
    if p == np.inf:
        return max_pool2d(np.abs(array), kernel, stride, 0, 1, ceil_mode)
    if p == -np.inf:
        return -max_pool2d(-np.abs(array), kernel, stride, 0, 1, ceil_mode)
    return _forward_steps(array, p, kernel, stride, ceil_mode)[3]


def lp_pool2d_backward(grad_output: ArrayLike, input: ArrayLike, norm_type: float,
                       kernel_size: IntOrPair, stride: IntOrPair | None = None,
                       ceil_mode: bool = False) -> np.ndarray:
    """The gradient of :func:`lp_pool2d` with respect to ``input``, step by step as PyTorch's
    autograd computes it (see the module's notes on zeros).

    >>> lp_pool2d_backward([[1.0]], [[3.0, 4.0], [0.0, 0.0]], 2, 2)
    array([[0.6, 0.8],
           [0. , 0. ]])

    Where the window's sum is 0 the gradient is 0:

    >>> lp_pool2d_backward([[1.0]], [[0.0, 0.0], [0.0, 0.0]], 2, 2)
    array([[0., 0.],
           [0., 0.]])
    """
    p = as_norm_type(norm_type)
    array = _float_input(input, "input")
    kernel, stride, ceil_mode = _parameters(kernel_size, stride, ceil_mode)
    grad = as_input(grad_output, "grad_output").astype(array.dtype, copy=False)
    dtype = array.dtype.type
    with np.errstate(all="ignore"):
        if abs(p) == np.inf:
            flip = dtype(1) if p > 0 else dtype(-1)
            out, indices = max_pool2d(flip * np.abs(array), kernel, stride, 0, 1, ceil_mode,
                                      return_indices=True)
            if grad.shape != out.shape:
                raise ValueError(
                    f"grad_output has shape {grad.shape} but lp_pool2d's output has shape "
                    f"{out.shape}: they must match")
            routed = max_pool2d_backward(flip * grad, indices, array.shape)
            return (flip * routed) * input_factor(array, p)
        mean, plain, scaled, out = _forward_steps(array, p, kernel, stride, ceil_mode)
        if grad.shape != out.shape:
            raise ValueError(
                f"grad_output has shape {grad.shape} but lp_pool2d's output has shape "
                f"{out.shape}: they must match")
        grad_mean = _mean_gradient(grad, mean, plain, scaled, p, kernel)
        grad_powered = avg_pool2d_backward(grad_mean, array.shape, kernel, stride, 0, ceil_mode)
        factor = input_factor(array, p)
        return np.multiply(grad_powered, factor, out=grad_powered)
