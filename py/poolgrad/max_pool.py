"""Max pooling that remembers where each maximum came from, and routes gradients back.

The rules are PyTorch's CPU kernel, scanning each window in row-major order:

- a cell replaces the running maximum when it is strictly greater, so among equal
  values the first one in row-major order wins;
- a NaN always replaces it, so a window holding NaN outputs NaN and points at its *last*
  NaN in scan order (that is what ``torch.max_pool2d`` returns on the CPU);
- padding is never chosen; a window whose input cells are all ``-inf`` (or, for
  integers, the smallest value) points at its first cell inside the input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .geometry import geometry, window_starts
from .validation import MAX_ELEMENTS, ArrayLike, IntOrPair, as_input, input_shape_of
from .windows import PhaseLayout, compact

#: Bytes of gradient one backward block scatters into (it stays in the cache).
_BACKWARD_BLOCK_BYTES = 1 << 19


def max_pool2d(input: ArrayLike, kernel_size: IntOrPair, stride: IntOrPair | None = None,
               padding: IntOrPair = 0, dilation: IntOrPair = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Slide a window over the last two axes of ``input`` and keep each window's maximum.

    ``input`` is ``(H, W)``, ``(C, H, W)`` or ``(N, C, H, W)`` (an array or nested
    lists); the result keeps the leading axes and its dtype. The parameters are
    ``torch.nn.functional.max_pool2d``'s, in its order and under its names. ``kernel_size``, ``stride``,
    ``padding`` and ``dilation`` are an int or an ``(h, w)`` pair; ``stride=None`` means
    the windows tile without overlap (``stride = kernel_size``). Padding is ``-inf``: it
    never wins. With ``return_indices`` the result is ``(out, indices)``, where
    ``indices`` holds, for every output, the flat position ``row * W + col`` of the cell
    it came from in its own (unpadded) ``H x W`` plane, exactly as PyTorch returns it.

    >>> x = np.array([[1, 2, 5, 6],
    ...               [3, 4, 8, 7],
    ...               [0, -1, -3, -2],
    ...               [-4, 9, -6, -5]])
    >>> out, indices = max_pool2d(x, 2, return_indices=True)
    >>> out
    array([[ 4,  8],
           [ 9, -2]])
    >>> indices
    array([[ 5,  6],
           [13, 11]])

    Overlapping windows (3 x 3, stride 1) can pick the same cell: both outputs of the
    first row take the 8 of cell 6.

    >>> max_pool2d(x, 3, stride=1, return_indices=True)
    (array([[8, 8],
           [9, 9]]), array([[ 6,  6],
           [13, 13]]))

    Ties go to the first cell in row-major order; NaN wins over everything:

    >>> max_pool2d([[5.0, 5.0], [5.0, 5.0]], 2, return_indices=True)
    (array([[5.]]), array([[0]]))
    >>> max_pool2d([[1.0, np.nan], [np.nan, 2.0]], 2, return_indices=True)
    (array([[nan]]), array([[2]]))
    """
    array = as_input(input, "input")
    geo = geometry(array.shape[-2:], kernel_size, stride, padding, dilation, ceil_mode)
    planes = array.reshape((-1,) + geo.input)
    out, indices = _pool_planes(planes, compact(geo))
    shape = array.shape[:-2] + geo.output
    out = out.reshape(shape)
    return (out, indices.reshape(shape)) if return_indices else out


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


@lru_cache(maxsize=64)
def _offset_codes(geo):
    """What the scan records for each kernel offset, and how to turn it into an index.

    The scan keeps, per output, the largest code among the offsets that improved the
    maximum; codes increase with the offset so that is the last improvement. When the
    flat distance of the offset from the window's corner (``a*dh*W + b*dw``) increases
    along the window, that distance itself is the code and the index is one addition
    away. Otherwise (rows shorter than the window is wide) the code is the offset's
    number and a lookup gives the distance.
    """
    (kh, kw), (dh, dw), width = geo.kernel, geo.dilation, geo.input[1]
    distances = (np.arange(kh)[:, None] * dh * width + np.arange(kw)[None, :] * dw).ravel()
    increasing = bool(np.all(np.diff(distances) > 0))
    codes = distances if increasing else np.arange(kh * kw)
    code_dtype = np.min_scalar_type(int(codes[-1]))
    return codes.astype(code_dtype), distances.astype(np.int64), increasing


@lru_cache(maxsize=64)
def _first_inside(geo):
    """Flat index of the first input cell each window samples (all ``(OH, OW)``)."""
    lines = []
    for count, stride, pad, dilation in zip(geo.output, geo.stride, geo.padding,
                                           geo.dilation):
        starts = window_starts(count, stride, pad)
        # Step over the padding in whole dilation steps.
        lines.append(np.where(starts < 0, starts + (-starts + dilation - 1) // dilation
                              * dilation, starts))
    return lines[0][:, None] * geo.input[1] + lines[1][None, :]


@lru_cache(maxsize=64)
def _corners(geo):
    """Flat index each window's top-left corner would have (negative in the padding)."""
    (out_h, out_w), (sh, sw), (ph, pw) = geo.output, geo.stride, geo.padding
    width = geo.input[1]
    return (window_starts(out_h, sh, ph)[:, None] * width
            + window_starts(out_w, sw, pw)[None, :])


def _pool_planes(planes, geo):
    """Max pooling of ``(P, H, W)`` planes: ``(P, OH, OW)`` values and int64 indices."""
    count = planes.shape[0]
    dtype = planes.dtype
    lowest = _lowest(dtype)
    layout = PhaseLayout(geo, dtype, lowest, count)
    codes, distances, increasing = _offset_codes(geo)
    corners = _corners(geo)
    out_h, out_w = geo.output
    out = np.empty((count, out_h, out_w), dtype)
    indices = np.empty((count, out_h, out_w), np.int64)
    lanes = layout.block * layout.plane
    work = _ScanBuffers(lanes, dtype, codes.dtype)
    for first in range(0, count, layout.block):
        block = slice(first, min(count, first + layout.block))
        n = block.stop - block.start
        flat = layout.load(planes[block])
        length = layout.length(n)
        _scan(flat, layout.offsets, codes, length, work, nan_aware=False)
        best = layout.outputs(work.best, n)
        # One reduction answers both rare questions: the minimum is NaN when some
        # window held NaN, and equals `lowest` when nothing beat the padding somewhere.
        smallest = best.min()
        if smallest != smallest:
            # np.maximum already carried the NaNs; redo the choice with NaN winning.
            _scan(flat, layout.offsets, codes, length, work, nan_aware=True)
        chosen = layout.outputs(work.winner, n)
        index_block = indices[block]
        if increasing:
            np.add(chosen, corners, out=index_block)
        else:
            np.take(distances, chosen, out=index_block)
            index_block += corners
        if not smallest > lowest:
            # Nothing beat the padding's -inf: PyTorch reports the first inside cell.
            stuck = best == lowest
            np.copyto(index_block, np.broadcast_to(_first_inside(geo), stuck.shape),
                      where=stuck)
        out_block = out[block]
        np.copyto(out_block, best)
        if dtype.kind == "f":
            # np.maximum may return either of -0.0 and 0.0, or another NaN than the
            # chosen one: those outputs are read back at their index. (Any other two
            # equal floats have the same bits.)
            unsure = best == 0
            if smallest != smallest:
                unsure |= np.isnan(best)
            if np.count_nonzero(unsure):
                plane, row, col = np.nonzero(unsure)
                out_block[plane, row, col] = planes[block].reshape(n, -1)[
                    plane, index_block[plane, row, col]]
    return out, indices


class _ScanBuffers:
    """Flat work arrays reused by every block: running max, winning code, masks."""

    def __init__(self, lanes, dtype, code_dtype):
        self.best = np.empty(lanes, dtype)
        self.winner = np.empty(lanes, code_dtype)
        self.improved = np.empty(lanes, bool)
        self.nan = np.empty(lanes, bool)
        self.candidate = np.empty(lanes, code_dtype)


def _scan(flat, offsets, codes, length, work, nan_aware):
    """Visit the kernel offsets in row-major order, keeping the winning offset's code.

    Each offset's cells are the flat slice ``flat[start:start + length]``. A cell wins
    when it is strictly greater than the running maximum (or, when ``nan_aware``, when it
    is NaN); because codes grow with the offset, the maximum over ``improved * code`` is
    the code of the last improvement, which is the winner.
    """
    best, winner = work.best[:length], work.winner[:length]
    improved, candidate = work.improved[:length], work.candidate[:length]
    np.copyto(best, flat[offsets[0]:offsets[0] + length])
    # Code 0 is offset 0's: it holds until something improves (a NaN there stays, as
    # nothing is greater than NaN and only a later NaN takes over).
    winner.fill(0)
    for start, code in zip(offsets[1:], codes[1:]):
        cells = flat[start:start + length]
        np.greater(cells, best, out=improved)
        if nan_aware:
            nan = work.nan[:length]
            np.isnan(cells, out=nan)
            np.logical_or(improved, nan, out=improved)
        np.maximum(best, cells, out=best)
        np.multiply(improved, code, out=candidate)
        np.maximum(winner, candidate, out=winner)


def max_pool2d_backward(grad_output: ArrayLike, indices: ArrayLike, input_shape: Sequence[int]) -> np.ndarray:
    """Route each output's gradient to the input cell its maximum came from.

    ``grad_output`` has the shape of the pooled output, ``indices`` is what
    ``max_pool2d(..., return_indices=True)`` returned, and ``input_shape`` is the shape
    of the input. Every other input cell gets 0; a cell chosen by several (overlapping)
    windows gets the sum of their gradients, added in output order as PyTorch does. The
    result has ``grad_output``'s floating dtype, or ``float64`` for integer gradients
    (PyTorch refuses those: only floating tensors can require gradients).

    Why the arguments come in this order, unlike :func:`avg_pool2d_backward`'s: each
    backward takes the output's gradient, then what it needs of the forward. Here that is
    the indices, which already say where every window's maximum was (no window
    parameters needed), and the shape to scatter into. Written with keywords, the two
    read alike: ``max_pool2d_backward(grad_output=g, indices=i, input_shape=s)`` and
    ``avg_pool2d_backward(grad_output=g, input_shape=s, kernel_size=2)``.

    >>> x = [[1, 5, 2],
    ...      [3, 4, 1]]
    >>> out, indices = max_pool2d(x, 2, stride=1, return_indices=True)
    >>> out, indices
    (array([[5, 5]]), array([[1, 1]]))
    >>> max_pool2d_backward([[1.0, 2.0]], indices, (2, 3))
    array([[0., 3., 0.],
           [0., 0., 0.]])
    >>> max_pool2d_backward(grad_output=[[1, 2]], indices=indices, input_shape=(2, 3)).dtype
    dtype('float64')
    """
    grad = as_input(grad_output, "grad_output")
    shape = input_shape_of(input_shape)
    chosen = np.asarray(indices)
    if chosen.dtype.kind not in "iu":
        raise TypeError(f"indices must be integers, got dtype {chosen.dtype}")
    if chosen.shape != grad.shape:
        raise ValueError(
            f"indices has shape {chosen.shape} but grad_output has shape {grad.shape}: "
            "they must match (both are the pooled output's shape)")
    if grad.shape[:-2] != shape[:-2]:
        raise ValueError(
            f"grad_output has shape {grad.shape} but input_shape is {shape}: their leading "
            f"(batch, channel) axes must match, got {grad.shape[:-2]} and {shape[:-2]}")
    height, width = shape[-2:]
    cells = height * width
    if chosen.size:
        low, high = int(chosen.min()), int(chosen.max())
        if low < 0 or high >= cells:
            bad = low if low < 0 else high
            raise ValueError(
                f"indices holds {bad}, outside the {height} x {width} plane: every index "
                f"must be in 0 .. {cells - 1}")
    # In range, so int64 holds them (uint64 mixed with int64 offsets would turn float).
    chosen = chosen.astype(np.int64, copy=False)
    if grad.size > MAX_ELEMENTS:
        raise ValueError(f"grad_output is too large: at most {MAX_ELEMENTS} elements")
    count = math.prod(shape[:-2])
    outputs = math.prod(grad.shape[-2:])
    grad_planes = grad.reshape(count, outputs)
    index_planes = chosen.reshape(count, outputs)
    dtype = grad.dtype if grad.dtype.kind == "f" else np.dtype(np.float64)
    grad_input = np.zeros((count, cells), dtype)
    block = max(1, min(count, _BACKWARD_BLOCK_BYTES // (cells * dtype.itemsize)))
    plane_starts = (np.arange(block, dtype=np.int64) * cells)[:, None]
    for first in range(0, count, block):
        stop = min(count, first + block)
        n = stop - first
        # np.add.at adds in order and accumulates repeats, like PyTorch's scatter loop.
        np.add.at(grad_input[first:stop].reshape(-1),
                  (index_planes[first:stop] + plane_starts[:n]).reshape(-1),
                  grad_planes[first:stop].reshape(-1))
    return grad_input.reshape(shape)
