"""The 2-D convolution layer the pooling layer sits behind, forward and backward.

Like ``torch.nn.functional.conv2d``, :func:`conv2d` is a *cross-correlation*: the filter
slides over the input as it is, without being turned around. Both passes are one matrix
product over a strided view of the windows (``numpy.lib.stride_tricks``): the cells each
output reads are gathered once into columns (``im2col``) and multiplied by the filters in
NumPy's BLAS, so no Python loop visits the output cells.

The backward pass is two more correlations, the ones the lesson derives:

- ``grad_weight`` is the correlation of the input with the upstream gradient: tap
  ``(i, j)`` of a filter multiplied, in each output, the input cell under it, so it
  collects those cells weighted by that output's gradient;
- ``grad_input`` is the *full* correlation of the upstream gradient with the filter
  turned 180 degrees: the gradient padded by the filter's extent minus one on every side,
  so each input cell gathers every output whose window held it. With a stride above 1
  the gradient is first dilated (``stride - 1`` zeros between its cells), which is what a
  transposed convolution computes.
"""

from __future__ import annotations

import copy
from functools import cached_property

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .geometry import axis_formula
from .validation import (MAX_ELEMENTS, ArrayLike, IntOrPair, _describe, as_flag, as_input,
                         check_grad_shape, conv_parameters)


def conv2d(input: ArrayLike, weight: ArrayLike, bias: ArrayLike | None = None,
           stride: IntOrPair = 1, padding: IntOrPair | str = 0, dilation: IntOrPair = 1,
           groups: int = 1) -> np.ndarray:
    """Cross-correlate ``input`` with the filters in ``weight``, as ``F.conv2d`` does.

    ``input`` is ``(C, H, W)`` (one sample) or ``(N, C, H, W)``; ``weight`` is
    ``(out_channels, C / groups, kh, kw)``; ``bias`` is ``None`` or ``out_channels``
    numbers. Output cell ``(f, i, j)`` is ``bias[f]`` plus the sum over channels and taps
    of ``weight[f, c, a, b] * padded[c, i*s + a*d, j*s + b*d]``: the filter is not
    flipped. The output side follows the pooling formula
    ``floor((n + pad_total - d*(k-1) - 1) / s) + 1``. ``padding`` is an int, an
    ``(h, w)`` pair, ``"valid"`` or ``"same"`` (an even kernel pads one more line at the
    bottom and right, as PyTorch does; refused with a stride above 1). ``groups`` splits
    the channels: filter ``f`` sees only its group's ``C / groups`` channels.

    Floating inputs keep their dtype (mixed ones promote, where PyTorch refuses them;
    ``float16`` is summed in ``float32``); integer inputs give ``float64`` (PyTorch
    refuses integer convolutions).

    The lesson's vertical-edge filter on its 5 x 5 input:

    >>> x = [[[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7],
    ...       [4, 2, 1, 6, 2]]]
    >>> edge = [[[[1, 0, -1], [1, 0, -1], [1, 0, -1]]]]
    >>> conv2d(x, edge)
    array([[[ -5.,  -4.,   0.],
            [-10.,  -2.,   2.],
            [  0.,  -2.,  -4.]]])
    >>> conv2d(x, edge, bias=[1], padding="same").shape
    (1, 5, 5)
    """
    setup = _setup(input, weight, stride, padding, dilation, groups, bias)
    return setup.finish(_forward(setup))


def _forward(setup):
    out = _per_sample(np.matmul(setup.filters(), setup.columns), setup.batch, setup.output)
    if setup.bias is not None:
        out += setup.bias[:, None, None]
    return out


def conv2d_backward(grad_output: ArrayLike, input: ArrayLike, weight: ArrayLike,
                    stride: IntOrPair = 1, padding: IntOrPair | str = 0,
                    dilation: IntOrPair = 1, groups: int = 1, bias: bool = True
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The gradients of :func:`conv2d`: ``(grad_input, grad_weight, grad_bias)``.

    ``grad_output`` has the shape of the convolution's output; ``bias`` says whether the
    convolution had one (``grad_bias`` is ``None`` without). What each is:

    - ``grad_bias[f]`` sums the upstream gradient of filter ``f`` over every output cell
      (and sample);
    - ``grad_weight`` is the correlation of the input with the upstream gradient: tap
      ``(a, b)`` gets ``sum over outputs (i, j) of grad_output[i, j] * padded[i*s + a*d,
      j*s + b*d]``, the input slid under the gradient as if the gradient were the filter;
    - ``grad_input`` is the full correlation of the upstream gradient with the filter
      turned 180 degrees. The gradient is dilated (``stride - 1`` zeros between its
      cells, the transposed convolution of a strided one) and padded by the filter's
      extent minus one, the rotated filter slides over it, and the padding's share is cut
      off.

    The lesson's example: the edge filter on the 5 x 5 input, with the upstream ramp 1..9.

    >>> x = [[[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7],
    ...       [4, 2, 1, 6, 2]]]
    >>> edge = [[[[1, 0, -1], [1, 0, -1], [1, 0, -1]]]]
    >>> ramp = np.arange(1.0, 10.0).reshape(1, 3, 3)
    >>> grad_input, grad_weight, grad_bias = conv2d_backward(ramp, x, edge)
    >>> grad_weight
    array([[[[171., 232., 184.],
             [125., 156., 166.],
             [ 98., 127., 147.]]]])
    >>> grad_input
    array([[[  1.,   2.,   2.,  -2.,  -3.],
            [  5.,   7.,   4.,  -7.,  -9.],
            [ 12.,  15.,   6., -15., -18.],
            [ 11.,  13.,   4., -13., -15.],
            [  7.,   8.,   2.,  -8.,  -9.]]])
    >>> grad_bias
    array([45.])

    With stride 2 a 1-cell gradient reaches exactly one window's cells:

    >>> conv2d_backward([[[[1.0]]]], np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2)),
    ...                 stride=2)[0]
    array([[[[1., 1., 0.],
             [1., 1., 0.],
             [0., 0., 0.]]]])
    """
    setup = _setup(input, weight, stride, padding, dilation, groups)
    with_bias = as_flag(bias, "bias")
    grad = as_input(grad_output, "grad_output")
    expected = (setup.batch, setup.out_channels, *setup.output)
    check_grad_shape(grad.shape, expected if setup.batched else expected[1:],
                     "the convolution's output")
    grad = grad.astype(setup.dtype, copy=False).reshape(expected)
    grad_input, grad_weight, grad_bias = _backward(setup, grad, with_bias)
    return (setup.finish(grad_input), setup.finish(grad_weight, False),
            None if grad_bias is None else setup.finish(grad_bias, False))


def _backward(setup, grad, with_bias):
    """The three gradients for a checked ``(N, F, OH, OW)`` gradient, in setup's dtype."""
    return (_grad_input(setup, grad), _grad_weight(setup, grad),
            grad.sum(axis=(0, 2, 3)) if with_bias else None)


def _grad_weight(setup, grad):
    """The input correlated with the upstream gradient: one product per group."""
    taps = np.matmul(_per_group(grad, setup.params.groups), setup.columns.swapaxes(-1, -2))
    return taps.reshape(setup.weight.shape)


def _per_group(planes, groups):
    """``(N, C, H, W)`` as ``(groups, C / groups, N * H * W)``, the columns' layout."""
    batch, channels = planes.shape[:2]
    return planes.reshape(batch, groups, channels // groups, -1).transpose(1, 2, 0, 3).reshape(
        groups, channels // groups, -1)


def _per_sample(products, batch, plane):
    """The inverse of :func:`_per_group`: ``(groups, C / groups, N * H * W)`` as
    ``(N, C) + plane``."""
    groups, per_group = products.shape[:2]
    return products.reshape(groups * per_group, batch, *plane).swapaxes(0, 1).copy()


def _grad_input(setup, grad):
    """The full correlation of the (dilated) gradient with the filter turned 180 degrees."""
    (kh, kw), (sh, sw), (dh, dw) = setup.kernel, setup.params.stride, setup.params.dilation
    (out_h, out_w), groups = setup.output, setup.params.groups
    reach_h, reach_w = dh * (kh - 1), dw * (kw - 1)
    dilated = np.zeros((setup.batch, setup.out_channels, (out_h - 1) * sh + 1 + 2 * reach_h,
                        (out_w - 1) * sw + 1 + 2 * reach_w), setup.dtype)
    dilated[:, :, reach_h:reach_h + (out_h - 1) * sh + 1:sh,
            reach_w:reach_w + (out_w - 1) * sw + 1:sw] = grad
    spans = dilated.shape[2] - reach_h, dilated.shape[3] - reach_w
    windows = _window_columns(dilated, setup.kernel, (1, 1), (dh, dw), spans, groups)
    turned = setup.weight[:, :, ::-1, ::-1]
    in_group = setup.channels // groups
    turned = turned.reshape(groups, -1, in_group, kh * kw).swapaxes(1, 2).reshape(
        groups, in_group, -1)
    # The rotated filters' rows match the columns' (filter, tap) order.
    spread = _per_sample(np.matmul(turned, windows), setup.batch, spans)
    (height, width), (top, _, left, _) = setup.input_hw, setup.params.padding
    padded = np.zeros((setup.batch, setup.channels) + setup.padded_hw, setup.dtype)
    rows, cols = min(spans[0], padded.shape[2]), min(spans[1], padded.shape[3])
    padded[:, :, :rows, :cols] = spread[:, :, :rows, :cols]
    return padded[:, :, top:top + height, left:left + width]


def _window_columns(planes, kernel, stride, dilation, output, groups):
    """``(groups, C/groups * kh * kw, N * OH * OW)``: for each output cell (of every
    sample), the cells its window reads, one column per output: the strided view of the
    windows, gathered once."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    spans = (dh * (kh - 1) + 1, dw * (kw - 1) + 1)
    view = sliding_window_view(planes, spans, axis=(2, 3))
    view = view[:, :, :(output[0] - 1) * sh + 1:sh, :(output[1] - 1) * sw + 1:sw, ::dh, ::dw]
    batch, channels = planes.shape[:2]
    view = view.reshape(batch, groups, channels // groups, *output, kh, kw)
    # (G, C/G, kh, kw, N, OH, OW): the gathering copies whole rows of outputs at a time.
    return view.transpose(1, 2, 5, 6, 0, 3, 4).reshape(
        groups, channels // groups * kh * kw, batch * output[0] * output[1])


class _Setup:
    """One convolution's arrays and parameters, checked, in the dtype it is computed in."""

    def __init__(self, x, weight, bias, params, output, dtype, result_dtype):
        self.batched = x.ndim == 4
        self.x = (x if self.batched else x[None]).astype(dtype, copy=False)
        self.weight = weight.astype(dtype, copy=False)
        self.bias = None if bias is None else bias.astype(dtype, copy=False)
        self.params, self.output, self.dtype = params, output, dtype
        self.result_dtype = result_dtype
        self.batch, self.channels = self.x.shape[:2]
        self.input_hw = self.x.shape[2:]
        self.out_channels = weight.shape[0]
        self.kernel = weight.shape[2:]
        top, bottom, left, right = params.padding
        self.padded_hw = (self.input_hw[0] + top + bottom, self.input_hw[1] + left + right)

    def using(self, weight, bias):
        """This convolution with other filters (of the same shape): the input's columns,
        once gathered, are shared."""
        other = copy.copy(self)
        other.weight, other.bias = weight.astype(self.dtype, copy=False), bias
        return other

    @cached_property
    def columns(self):
        top, _, left, _ = self.params.padding
        padded = self.x
        if any(self.params.padding):
            padded = np.zeros(self.x.shape[:2] + self.padded_hw, self.dtype)
            padded[:, :, top:top + self.input_hw[0], left:left + self.input_hw[1]] = self.x
        return _window_columns(padded, self.kernel, self.params.stride, self.params.dilation,
                               self.output, self.params.groups)

    def filters(self):
        groups = self.params.groups
        return self.weight.reshape(groups, self.out_channels // groups, -1)

    def finish(self, array, batched_like_input=True):
        if batched_like_input and not self.batched:
            array = array[0]
        return array.astype(self.result_dtype, copy=False)


def _setup(input, weight, stride, padding, dilation, groups, bias=None):
    x = as_input(input, "input")
    if x.ndim == 2:
        raise ValueError(
            f"input must be 3-D (C, H, W) or 4-D (N, C, H, W) for a convolution, got 2-D with "
            f"shape {x.shape}: give one plane a channel axis, e.g. [x]")
    w = as_input(weight, "weight")
    if w.ndim != 4:
        raise ValueError(
            f"weight must be 4-D (out_channels, in_channels / groups, kh, kw), got "
            f"{w.ndim}-D with shape {w.shape}")
    params = conv_parameters(w.shape[2:], stride, padding, dilation, groups)
    out_channels, per_group = w.shape[:2]
    channels = x.shape[-3]
    if out_channels % params.groups:
        raise ValueError(
            f"weight has {out_channels} filters (out_channels), which groups={params.groups} "
            "does not divide: each group needs the same number of filters")
    if channels != per_group * params.groups:
        raise ValueError(
            f"input has {channels} channels but weight expects {per_group * params.groups} "
            f"(in_channels / groups = {per_group} per filter, groups={params.groups})")
    b = None
    if bias is not None:
        if np.ndim(bias) != 1 or np.shape(bias)[0] != out_channels:
            raise ValueError(f"bias must hold one number per filter ({out_channels}), got "
                             f"shape {np.shape(bias)}")
        b = as_input(np.reshape(bias, (1, -1)), "bias")[0]
    top, bottom, left, right = params.padding
    height, width = x.shape[-2:]
    padded_hw = (height + top + bottom, width + left + right)
    spans = tuple(d * (k - 1) + 1 for d, k in zip(params.dilation, w.shape[2:]))
    if spans[0] > padded_hw[0] or spans[1] > padded_hw[1]:
        raise ValueError(
            f"the filter ({w.shape[2]} x {w.shape[3]}, dilation {_describe(params.dilation)}, "
            f"reaching {spans[0]} x {spans[1]} cells) is larger than the padded input "
            f"({padded_hw[0]} x {padded_hw[1]}): use a smaller filter or more padding")
    # The pooling formula, with the bottom/right's extra "same" line added to the size.
    output = tuple(axis_formula(size + far - near, k, s, near, d, False)[2]
                   for size, near, far, k, s, d in zip(
                       (height, width), (top, left), (bottom, right), w.shape[2:],
                       params.stride, params.dilation))
    batch = x.shape[0] if x.ndim == 4 else 1
    sizes = {"the padded input": batch * channels * padded_hw[0] * padded_hw[1],
             "the output": batch * out_channels * output[0] * output[1],
             "the gathered windows": batch * channels * w.shape[2] * w.shape[3]
             * output[0] * output[1]}
    for what, size in sizes.items():
        if size > MAX_ELEMENTS:
            raise ValueError(f"{what} would hold {size} numbers: at most {MAX_ELEMENTS}; "
                             "use a smaller input, filter or padding")
    result_dtype = np.result_type(x.dtype, w.dtype, *(() if b is None else (b.dtype,)))
    if result_dtype.kind != "f":
        result_dtype = np.dtype(np.float64)
    dtype = np.dtype(np.float32) if result_dtype == np.float16 else result_dtype
    return _Setup(x, w, b, params, output, dtype, result_dtype)
