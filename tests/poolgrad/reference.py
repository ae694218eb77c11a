"""Pooling written the obvious way: a loop over every output and every window cell.

This is the specification the vectorised code is checked against. It follows PyTorch's
CPU kernels line by line: scan the window in row-major order, skip cells outside the
input, replace the maximum when a cell is greater or NaN; sum the inside cells and
divide by the window's size clipped to the padded input (or its inside-cell count).
Slow, plain Python, and easy to read.
"""


import numpy as np


def pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def output_side(size, kernel, stride, pad, dilation, ceil_mode):
    """PyTorch's pooling_output_shape, written out."""
    span = dilation * (kernel - 1) + 1
    numerator = size + 2 * pad - span
    # Integer division: a float quotient rounds wrong for parameters beyond 2**53.
    if ceil_mode:
        count = -(-numerator // stride) + 1
        if (count - 1) * stride >= size + pad:
            count -= 1
    else:
        count = numerator // stride + 1
    return count


def _sides(shape, kernel, stride, padding, dilation, ceil_mode):
    return tuple(output_side(shape[axis], kernel[axis], stride[axis], padding[axis],
                             dilation[axis], ceil_mode) for axis in (0, 1))


def _planes(x):
    x = np.asarray(x)
    return x.reshape((-1,) + x.shape[-2:]), x.shape[:-2]


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """(out, indices) for x of shape (..., H, W)."""
    kernel = pair(kernel_size)
    stride = kernel if stride is None else pair(stride)
    padding, dilation = pair(padding), pair(dilation)
    planes, leading = _planes(x)
    height, width = planes.shape[1:]
    out_h, out_w = _sides((height, width), kernel, stride, padding, dilation, ceil_mode)
    out = np.empty((len(planes), out_h, out_w), planes.dtype)
    indices = np.empty((len(planes), out_h, out_w), np.int64)
    for p, plane in enumerate(planes):
        for i in range(out_h):
            for j in range(out_w):
                best, best_index = None, None
                for a in range(kernel[0]):
                    for b in range(kernel[1]):
                        r = i * stride[0] - padding[0] + a * dilation[0]
                        c = j * stride[1] - padding[1] + b * dilation[1]
                        if not (0 <= r < height and 0 <= c < width):
                            continue
                        value = plane[r, c]
                        if best is None or value > best or value != value:
                            best, best_index = value, r * width + c
                out[p, i, j], indices[p, i, j] = best, best_index
    shape = leading + (out_h, out_w)
    return out.reshape(shape), indices.reshape(shape)


def max_pool2d_backward(grad_output, indices, input_shape):
    grad, _ = _planes(grad_output)
    chosen, _ = _planes(indices)
    height, width = input_shape[-2:]
    grad_input = np.zeros((len(grad), height * width), grad.dtype)
    for p in range(len(grad)):
        for i in range(grad.shape[1]):
            for j in range(grad.shape[2]):
                grad_input[p, chosen[p, i, j]] += grad[p, i, j]
    return grad_input.reshape(input_shape)


def _avg_windows(shape, kernel, stride, padding, ceil_mode, count_include_pad,
                 divisor_override=None):
    """For every output (i, j): the inside cells of its window and its divisor."""
    height, width = shape
    out_h, out_w = _sides(shape, kernel, stride, padding, (1, 1), ceil_mode)
    windows = {}
    for i in range(out_h):
        for j in range(out_w):
            top, left = i * stride[0] - padding[0], j * stride[1] - padding[1]
            bottom = min(top + kernel[0], height + padding[0])
            right = min(left + kernel[1], width + padding[1])
            padded_count = (bottom - top) * (right - left)
            cells = [(r, c) for r in range(max(top, 0), min(bottom, height))
                     for c in range(max(left, 0), min(right, width))]
            divisor = padded_count if count_include_pad else len(cells)
            windows[i, j] = cells, divisor if divisor_override is None else divisor_override
    return (out_h, out_w), windows


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Means in float64 (exactly what the vectorised code gives for float64 input)."""
    kernel = pair(kernel_size)
    stride = kernel if stride is None else pair(stride)
    padding = pair(padding)
    planes, leading = _planes(x)
    (out_h, out_w), windows = _avg_windows(planes.shape[1:], kernel, stride, padding,
                                           ceil_mode, count_include_pad, divisor_override)
    out = np.empty((len(planes), out_h, out_w), np.float64)
    for p, plane in enumerate(planes):
        for (i, j), (cells, divisor) in windows.items():
            total = 0.0
            for r, c in cells:
                total += float(plane[r, c])
            out[p, i, j] = total / divisor
    return out.reshape(leading + (out_h, out_w))


def avg_pool2d_backward(grad_output, input_shape, kernel_size, stride=None, padding=0,
                        ceil_mode=False, count_include_pad=True, divisor_override=None):
    kernel = pair(kernel_size)
    stride = kernel if stride is None else pair(stride)
    padding = pair(padding)
    grad, _ = _planes(grad_output)
    (out_h, out_w), windows = _avg_windows(tuple(input_shape[-2:]), kernel, stride,
                                           padding, ceil_mode, count_include_pad,
                                           divisor_override)
    grad_input = np.zeros((len(grad),) + tuple(input_shape[-2:]), np.float64)
    for p in range(len(grad)):
        for i in range(out_h):
            for j in range(out_w):
                cells, divisor = windows[i, j]
                share = float(grad[p, i, j]) / divisor
                for r, c in cells:
                    grad_input[p, r, c] += share
    return grad_input.reshape(input_shape)


def conv2d(x, weight, bias=None, stride=1, padding=(0, 0, 0, 0), dilation=1, groups=1):
    """Cross-correlation of (N, C, H, W) with (F, C/groups, kh, kw); padding is (top,
    bottom, left, right). Every output cell, every channel, every tap, in turn."""
    stride, dilation = pair(stride), pair(dilation)
    top, bottom, left, right = padding
    x, weight = np.asarray(x, np.float64), np.asarray(weight, np.float64)
    batch, channels, height, width = x.shape
    filters, per_group, kh, kw = weight.shape
    out_h = (height + top + bottom - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    out_w = (width + left + right - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((batch, filters, out_h, out_w))
    for n in range(batch):
        for f in range(filters):
            group = f // (filters // groups)
            for i in range(out_h):
                for j in range(out_w):
                    total = 0.0 if bias is None else float(bias[f])
                    for c in range(per_group):
                        for a in range(kh):
                            for b in range(kw):
                                r = i * stride[0] - top + a * dilation[0]
                                s = j * stride[1] - left + b * dilation[1]
                                if 0 <= r < height and 0 <= s < width:
                                    total += weight[f, c, a, b] * x[n, group * per_group + c, r, s]
                    out[n, f, i, j] = total
    return out


def conv2d_backward(grad_output, x, weight, stride=1, padding=(0, 0, 0, 0), dilation=1,
                    groups=1):
    """(grad_input, grad_weight, grad_bias) by the chain rule, one product at a time:
    each output's gradient goes to every tap and input cell that made it."""
    stride, dilation = pair(stride), pair(dilation)
    top, _, left, _ = padding
    x, weight = np.asarray(x, np.float64), np.asarray(weight, np.float64)
    grad_output = np.asarray(grad_output, np.float64)
    batch, channels, height, width = x.shape
    filters, per_group, kh, kw = weight.shape
    grad_input, grad_weight = np.zeros_like(x), np.zeros_like(weight)
    for n, f, i, j in np.ndindex(*grad_output.shape):
        g = grad_output[n, f, i, j]
        group = f // (filters // groups)
        for c in range(per_group):
            for a in range(kh):
                for b in range(kw):
                    r = i * stride[0] - top + a * dilation[0]
                    s = j * stride[1] - left + b * dilation[1]
                    if 0 <= r < height and 0 <= s < width:
                        channel = group * per_group + c
                        grad_input[n, channel, r, s] += g * weight[f, c, a, b]
                        grad_weight[f, c, a, b] += g * x[n, channel, r, s]
    return grad_input, grad_weight, grad_output.sum(axis=(0, 2, 3))
