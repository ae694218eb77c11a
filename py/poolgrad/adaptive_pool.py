"""Adaptive max and average pooling: the caller names the output size, the windows follow.

Output line ``i`` of ``Out`` pools input lines ``[floor(i * In / Out), ceil((i + 1) * In /
Out))`` (:func:`poolgrad.geometry.adaptive_bounds`), so windows change size by one line
and neighbours share a line where ``Out`` does not divide ``In``. The rules are PyTorch's
CPU kernels:

- max: the scan of ``max_pool2d`` (the first of equal values wins, a NaN wins and the
  last NaN is the one pointed at, a window of ``-inf`` points at its first cell);
- average: the window's cells are added in row-major order from ``+0.0`` and the sum is
  divided by the window's height, then by its width (two roundings, as aten does);
- ``output_size`` 1 x 1 (global average pooling) is ``x.mean((-2, -1))`` in PyTorch, a
  different summation: :func:`_torch_sum` adds in the order of PyTorch's vectorised
  CPU sum (32-byte vectors: the AVX2 kernel; with other vector widths PyTorch's own
  last bit differs) and the gradient is ``g / (H * W)``.

dtypes follow max / average pooling: max keeps the input's dtype; average returns
floating point (``float16`` summed in ``float32``, integers as ``float64``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .avg_pool import _float_dtypes
from .geometry import adaptive_bounds, adaptive_covers, adaptive_output
from .max_pool import max_pool2d_backward
from .validation import ArrayLike, OutputSize, as_flag, as_input, input_shape_of

#: The vector width of PyTorch's CPU sum that global average pooling follows (AVX2).
TORCH_VECTOR_BYTES = 32


def _axis_groups(size, count):
    """The output lines of one axis grouped by window size, ``[(lines, lines sampled)]``:
    ``lines`` are the outputs whose windows hold ``k`` input lines, and row ``n`` of the
    ``(len(lines), k)`` array ``lines sampled`` the input lines of output ``lines[n]``."""
    starts, ends = adaptive_bounds(size, count)
    lengths = ends - starts
    groups = []
    for k in np.unique(lengths).tolist():
        lines = np.flatnonzero(lengths == k)
        groups.append((lines, starts[lines][:, None] + np.arange(k)))
    return groups


#: Elements of one gathered block of windows (planes x windows x window cells).
_BLOCK_ELEMENTS = 1 << 22


def _window_blocks(planes, out_hw):
    """Every window of ``planes`` ``(P, H, W)``, gathered by window size.

    Yields ``(place, first, cells, block)``: ``place`` indexes the outputs of one
    (row group, column group), ``first`` the planes of this block, and ``cells``
    ``(n, nr, nc, kh * kw)`` the window cells in row-major order. ``block`` is
    ``(rows sampled, columns sampled)``.
    """
    count, height, width = planes.shape
    for lines_r, rows in _axis_groups(height, out_hw[0]):
        for lines_c, cols in _axis_groups(width, out_hw[1]):
            kh, kw = rows.shape[1], cols.shape[1]
            r = rows[:, None, :, None]
            c = cols[None, :, None, :]
            place = (lines_r[:, None], lines_c[None, :])
            per_plane = rows.shape[0] * cols.shape[0] * kh * kw
            step = max(1, _BLOCK_ELEMENTS // per_plane)
            for first in range(0, count, step):
                block = planes[first:first + step][:, r, c]
                yield place, slice(first, first + step), block.reshape(
                    block.shape[:3] + (kh * kw,)), (rows, cols)


def _planes(array):
    return array.reshape((-1,) + array.shape[-2:])


def adaptive_avg_pool2d(input: ArrayLike, output_size: OutputSize) -> np.ndarray:
    """Average pooling onto a given output size: ``output_size`` is an int, an ``(h, w)``
    pair, or a pair with ``None`` keeping that side of ``input``.

    5 lines into 3 make windows ``[0, 2)``, ``[1, 4)`` and ``[3, 5)``: divisors 2, 3, 2,
    and lines 1 and 3 are in two windows.

    >>> adaptive_avg_pool2d([[1, 2, 3, 4, 5]], (1, 3))
    array([[1.5, 3. , 4.5]])

    ``output_size=1`` is global average pooling, one number per plane:

    >>> adaptive_avg_pool2d(np.arange(8.0).reshape(2, 2, 2), 1)
    array([[[1.5]],
    <BLANKLINE>
           [[5.5]]])

    The output may be larger than the input (windows of one line, repeated):

    >>> adaptive_avg_pool2d([[1.0, 3.0]], (None, 3))
    array([[1., 2., 3.]])
    """
    array = as_input(input, "input")
    out_hw = adaptive_output(array.shape[-2:], output_size)
    work_dtype, result_dtype = _float_dtypes(array.dtype)
    planes = _planes(array).astype(work_dtype, copy=False)
    if out_hw == (1, 1):
        height, width = array.shape[-2:]
        sums = _torch_sum(planes.reshape(planes.shape[0], height * width))
        out = (sums / work_dtype.type(height * width)).astype(result_dtype, copy=False)
        return out.reshape(array.shape[:-2] + (1, 1))
    out = np.empty((planes.shape[0],) + out_hw, result_dtype)
    for (rows, cols), chunk, cells, (sampled_r, sampled_c) in _window_blocks(planes, out_hw):
        # cumsum adds one by one in the window's row-major order, as aten's loop does;
        # + 0.0 makes it start from +0.0 as aten does (an all -0.0 window sums to +0.0).
        total = np.cumsum(cells, axis=-1, dtype=work_dtype)[..., -1] + work_dtype.type(0)
        total /= work_dtype.type(sampled_r.shape[1])
        total /= work_dtype.type(sampled_c.shape[1])
        out[chunk, rows, cols] = total
    return out.reshape(array.shape[:-2] + out_hw)


def adaptive_avg_pool2d_backward(grad_output: ArrayLike, input_shape: Sequence[int]) -> np.ndarray:
    """Spread each output's gradient evenly over its adaptive window.

    Output ``(i, j)`` hands ``grad_output[i, j] / kh / kw`` to each cell of its window;
    a cell that several windows share adds their shares in output order (PyTorch's
    order). The output size is read from ``grad_output``. A 1 x 1 output (global
    pooling, PyTorch's ``mean``) hands every cell ``grad_output / (H * W)``.

    >>> adaptive_avg_pool2d_backward([[6.0, 6.0, 6.0]], (1, 5))
    array([[3., 5., 2., 5., 3.]])
    """
    grad = as_input(grad_output, "grad_output")
    shape = input_shape_of(input_shape)
    if grad.shape[:-2] != shape[:-2]:
        raise ValueError(
            f"grad_output has shape {grad.shape} but input_shape is {shape}: their leading "
            f"(batch, channel) axes must match, got {grad.shape[:-2]} and {shape[:-2]}")
    height, width = shape[-2:]
    out_h, out_w = grad.shape[-2:]
    adaptive_output((height, width), (out_h, out_w))
    dtype = grad.dtype if grad.dtype.kind == "f" else np.dtype(np.float64)
    grad_planes = _planes(grad).astype(dtype, copy=False)
    count = grad_planes.shape[0]
    if (out_h, out_w) == (1, 1):
        share = grad_planes.reshape(count, 1) / dtype.type(height * width)
        return np.repeat(share, height * width, axis=1).reshape(shape)
    starts_r, ends_r = adaptive_bounds(height, out_h)
    starts_c, ends_c = adaptive_bounds(width, out_w)
    shares = grad_planes / (ends_r - starts_r).astype(dtype)[:, None]
    shares /= (ends_c - starts_c).astype(dtype)[None, :]
    first_r, covers_r = adaptive_covers(height, out_h)
    first_c, covers_c = adaptive_covers(width, out_w)
    grad_input = np.zeros((count, height, width), dtype)
    # A cell's windows are (first_r + s, first_c + t); row-major output order is s
    # outer, t inner. Where a cell has fewer windows the term is 0, which changes
    # nothing: the sum starts at +0.0 and so is never -0.0.
    for s in range(int(covers_r.max())):
        rows = np.minimum(first_r + s, out_h - 1)
        row_ok = s < covers_r
        for t in range(int(covers_c.max())):
            cols = np.minimum(first_c + t, out_w - 1)
            term = shares[:, rows[:, None], cols[None, :]]
            if not (row_ok.all() and (t < covers_c).all()):
                term = np.where(row_ok[:, None] & (t < covers_c)[None, :], term, 0)
            grad_input += term
    return grad_input.reshape(shape)


def adaptive_max_pool2d(input: ArrayLike, output_size: OutputSize, return_indices: bool = False
                        ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Max pooling onto a given output size (``output_size`` as in
    :func:`adaptive_avg_pool2d`), with the ties and NaN rules of ``max_pool2d``;
    ``indices`` are flat positions in each ``H x W`` plane, as PyTorch returns them.

    >>> out, indices = adaptive_max_pool2d([[1, 5, 2, 4, 3]], (1, 3), return_indices=True)
    >>> out, indices
    (array([[5, 5, 4]]), array([[1, 1, 3]]))

    The two first windows, ``[0, 2)`` and ``[1, 4)``, share the 5 of cell 1.
    """
    array = as_input(input, "input")
    return_indices = as_flag(return_indices, "return_indices")
    out_hw = adaptive_output(array.shape[-2:], output_size)
    height, width = array.shape[-2:]
    planes = _planes(array)
    if height % out_hw[0] == 0 and width % out_hw[1] == 0:
        out, indices = _tiled_first_max(planes, out_hw)
    else:
        out, indices = _adaptive_max_planes(planes, out_hw)
    shape = array.shape[:-2] + out_hw
    out = out.reshape(shape)
    return (out, indices.reshape(shape)) if return_indices else out


def _first_max(values, axis):
    """Along ``axis``: where the maximum is by PyTorch's scan (the first of equal values,
    the last NaN), and the maximum itself."""
    chosen = np.argmax(values, axis=axis)
    best = np.take_along_axis(values, np.expand_dims(chosen, axis), axis).squeeze(axis)
    if values.dtype.kind == "f":
        holes = np.isnan(best)
        if holes.any():
            # argmax stops at the first NaN: count back from the end for the last one.
            nan = np.flip(np.isnan(values), axis)
            last = values.shape[axis] - 1 - np.argmax(nan, axis=axis)
            np.copyto(chosen, last, where=holes)
            best = np.take_along_axis(values, np.expand_dims(chosen, axis), axis).squeeze(axis)
    return chosen, best


#: Elements of input a tiled max pooling rearranges at a time (it stays in the cache).
_TILED_BLOCK_ELEMENTS = 1 << 18


def _tiled_max_planes(planes, out_hw):
    """Windows that tile the plane (``Out`` divides ``In``): a block of planes at a time
    is rearranged so that each window's cells are one contiguous row, in row-major
    order, and :func:`_first_max` scans the rows."""
    count, height, width = planes.shape
    (out_h, out_w), kh, kw = out_hw, height // out_hw[0], width // out_hw[1]
    out = np.empty((count,) + out_hw, planes.dtype)
    indices = np.empty((count,) + out_hw, np.int64)
    corner = np.arange(out_h)[:, None] * kh * width + np.arange(out_w)[None, :] * kw
    step = max(1, _TILED_BLOCK_ELEMENTS // (height * width))
    for first in range(0, count, step):
        block = planes[first:first + step].reshape(-1, out_h, kh, out_w, kw)
        cells = np.ascontiguousarray(block.transpose(0, 1, 3, 2, 4)).reshape(
            block.shape[0], out_h, out_w, kh * kw)
        chosen, out[first:first + step] = _first_max(cells, 3)
        row, col = np.divmod(chosen, kw)
        row *= width
        row += col
        row += corner
        indices[first:first + step] = row
    return out, indices


#: Elements of input :func:`_tiled_first_max` takes at a time: it makes a dozen NumPy calls
#: per block, which small blocks pay for many times over (bench_pool's case H, poolgrad and
#: torch in turn: blocks of 2**14 cells took 2.8x torch's time, of 2**18 1.1x, of 2**20 and
#: more 0.85-1.04x); its temporaries are a byte per cell.
_FIRST_MAX_BLOCK_ELEMENTS = 1 << 21


def _first_set_byte(flags):
    """Per little-endian unsigned int of 1, 2, 4 or 8 bytes, each byte 0 or 1 and not all
    0: which byte is the first non-zero one in memory (the lowest).

    >>> _first_set_byte(np.array([1, 256, 1 << 56 | 1 << 40], np.uint64))
    array([0, 1, 5])
    """
    words = flags.astype(np.uint64)
    lowest = words & (~words + np.uint64(1))  # the lowest set bit alone: a power of two
    return (np.frexp(lowest.astype(np.float64))[1].astype(np.int64) - 1) // 8


def _tiled_first_max(planes, out_hw):
    """:func:`_tiled_max_planes`' answer without rearranging the input, where a window is
    1, 2, 4 or 8 cells wide: each window's maximum by np.maximum over its rows, then over
    its columns, then the first cell holding it. The flags "this cell holds its window's
    maximum" of one row of a window are read as one integer (a byte per cell), so the first
    row holding it is the first non-zero integer, and the cell in that row its first
    non-zero byte. A block with a NaN maximum (the last NaN wins there) and other widths go
    to :func:`_tiled_max_planes`.
    """
    count, height, width = planes.shape
    (out_h, out_w), kh, kw = out_hw, height // out_hw[0], width // out_hw[1]
    if kw not in (1, 2, 4, 8):
        return _tiled_max_planes(planes, out_hw)
    out = np.empty((count,) + out_hw, planes.dtype)
    indices = np.empty((count,) + out_hw, np.int64)
    corner = np.arange(out_h)[:, None] * kh * width + np.arange(out_w)[None, :] * kw
    step = max(1, _FIRST_MAX_BLOCK_ELEMENTS // (height * width))
    for first in range(0, count, step):
        block = planes[first:first + step]
        n = block.shape[0]
        lines = block.reshape(n, out_h, kh, width)
        line_max = lines[:, :, 0].copy()
        for k in range(1, kh):
            np.maximum(line_max, lines[:, :, k], out=line_max)
        line_max = line_max.reshape(n, out_h, out_w, kw)
        best = line_max[..., 0].copy()
        for k in range(1, kw):
            np.maximum(best, line_max[..., k], out=best)
        if best.dtype.kind == "f" and np.isnan(best).any():
            out[first:first + n], indices[first:first + n] = _tiled_max_planes(block, out_hw)
            continue
        hits = lines == np.repeat(best, kw, axis=-1)[:, :, None, :]
        row_flags = hits.view(np.dtype(f"<u{kw}")).reshape(n, out_h, kh, out_w)
        held = np.ascontiguousarray((row_flags != 0).transpose(0, 1, 3, 2))  # (n, out_h, out_w, kh)
        if kh in (1, 2, 4, 8):
            row = _first_set_byte(held.view(np.dtype(f"<u{kh}"))[..., 0])
        else:
            row = np.argmax(held, axis=3)
        flags = np.take_along_axis(row_flags, row[:, :, None, :], 2)[:, :, 0]
        index = row * width + _first_set_byte(flags) + corner
        indices[first:first + n] = index
        out[first:first + n] = best
        if best.dtype.kind == "f" and (zero := best == 0).any():
            # np.maximum may give either zero of ±0.0; the output is the chosen cell's.
            chosen = np.take_along_axis(block.reshape(n, -1), index.reshape(n, -1), 1)
            np.copyto(out[first:first + n], chosen.reshape(best.shape), where=zero)
    return out, indices


def _adaptive_max_planes(planes, out_hw):
    count = planes.shape[0]
    width = planes.shape[2]
    out = np.empty((count,) + out_hw, planes.dtype)
    indices = np.empty((count,) + out_hw, np.int64)
    for (rows, cols), chunk, cells, (sampled_r, sampled_c) in _window_blocks(planes, out_hw):
        chosen, best = _first_max(cells, cells.ndim - 1)
        a, b = np.divmod(chosen, sampled_c.shape[1])
        out[chunk, rows, cols] = best
        indices[chunk, rows, cols] = (sampled_r[:, 0][:, None] + a) * width + (
            sampled_c[:, 0][None, :] + b)
    return out, indices


def adaptive_max_pool2d_backward(grad_output: ArrayLike, indices: ArrayLike,
                                 input_shape: Sequence[int]) -> np.ndarray:
    """Route each output's gradient to the cell its maximum came from; a cell chosen by
    several windows adds their gradients (in output order, as PyTorch does).

    >>> out, indices = adaptive_max_pool2d([[1, 5, 2, 4, 3]], (1, 3), return_indices=True)
    >>> adaptive_max_pool2d_backward([[1.0, 2.0, 4.0]], indices, (1, 5))
    array([[0., 3., 0., 4., 0.]])
    """
    return max_pool2d_backward(grad_output, indices, input_shape)


def _sequential(items):
    """``items`` added one by one along the first axis from +0.0 (vectorised over the
    rest)."""
    total = np.zeros(items.shape[1:], items.dtype)
    for item in items:
        total += item
    return total


def _ceil_log2(value):
    return (int(value) - 1).bit_length() if value > 1 else 0


def _multi_row_sum(blocks):
    """aten's multi_row_sum over ``blocks`` ``(count, ...)``: runs of ``step`` blocks are
    added into level 0, every ``step`` level-0 sums into level 1, and so on over 4 levels,
    which are added together at the end (``step = 2**max(4, ceil(log2(count)) // 4)``)."""
    step = 1 << max(4, _ceil_log2(blocks.shape[0]) // 4)
    items, tails = blocks, []
    for _level in range(3):
        full = items.shape[0] // step
        tails.append(_sequential(items[full * step:]))
        runs = items[:full * step].reshape((full, step) + items.shape[1:])
        items = _sequential(runs.swapaxes(0, 1)) if full else items[:0]
    total = tails[0]
    total += tails[1]
    total += tails[2]
    total += _sequential(items)
    return total


def _row_sum(vectors):
    """aten's row_sum over ``vectors`` ``(count, lanes, R)``: four interleaved
    accumulators (``ilp_factor``), the leftovers into the first, then the four added.

    A sum that starts from +0.0 is never -0.0, so adding an accumulator that stayed at
    +0.0 changes nothing: those additions are skipped.
    """
    count = vectors.shape[0]
    groups = count // 4
    first = np.zeros(vectors.shape[1:], vectors.dtype)
    partial = None
    if groups:
        blocks = vectors[:groups * 4].reshape((groups, 4) + vectors.shape[1:])
        if groups < 16:
            # Fewer blocks than one cascade step: multi_row_sum is a plain running sum.
            partial = _sequential(blocks)
        else:
            partial = _multi_row_sum(blocks)
        first += partial[0]
    for k in range(groups * 4, count):
        first += vectors[k]
    if partial is not None:
        for k in range(1, 4):
            first += partial[k]
    return first


#: Rows per block of :func:`_torch_sum`'s transpose: a block's columns (``n x 256``) stay
#: in cache while they are added, where one transpose of every row at once streams the
#: whole batch through memory twice (the ResNet head's 4096 rows of 49: about 1.5x faster).
TRANSPOSE_BLOCK = 256


#: The row lengths, in whole vectors, that :func:`_block_sums` adds with
#: :func:`_row_sum_in_order` (about 10% faster there; the ResNet head has 6).
IN_ORDER_VECTORS = range(4, 64)


def _torch_sum(rows):
    """The sum of each row ``(R, n)`` in the order of PyTorch's CPU sum (SumKernel.cpp's
    cascade_sum over a contiguous row): whole vectors of :data:`TORCH_VECTOR_BYTES`
    through :func:`_row_sum`, then the scalar tail from 0, then the vector's lanes; a
    row shorter than one vector goes through :func:`_row_sum` as scalars. The rows are
    transposed first, in blocks of :data:`TRANSPOSE_BLOCK`, so that every step is one
    contiguous operation over a block's rows (every block at once).

    >>> _torch_sum(np.array([[1.0, 2.0, 3.0]]))
    array([6.])
    """
    count = rows.shape[0]
    if count == 0:
        return np.zeros(0, rows.dtype)
    block = min(count, TRANSPOSE_BLOCK)
    full = count - count % block
    sums = _block_sums(rows[:full], block)
    if full == count:
        return sums
    return np.concatenate([sums, _block_sums(rows[full:], count - full)])


def _block_sums(rows, block):
    """:func:`_torch_sum` of ``rows``, whose count is a multiple of ``block``."""
    count, n = rows.shape
    blocks = count // block
    lanes = TORCH_VECTOR_BYTES // rows.dtype.itemsize
    # (blocks, n, block): column k of every block is one contiguous (blocks, block) slab.
    columns = np.ascontiguousarray(rows.reshape(blocks, block, n).transpose(0, 2, 1))
    if n < lanes:
        return _row_sum(columns.transpose(1, 0, 2)[:, None])[0].reshape(count)
    whole = n // lanes
    if whole in IN_ORDER_VECTORS:
        # Every sum below ends up added into `total`, which starts from +0.0 and so is never
        # -0.0: a partial sum's sign of zero cannot show, and only the order of the additions
        # matters. So row_sum's accumulators skip their zeros, and each vector is a slab of
        # `columns` (every block's part contiguous) instead of a copy: 14 additions for the
        # ResNet head's rows of 49.
        vectors = columns[:, :whole * lanes].reshape(blocks, whole, lanes, block)
        acc = _row_sum_in_order(vectors)
        tail = range(whole * lanes, n)
        total = (columns[:, tail[0]] if tail else acc[:, 0]) + rows.dtype.type(0)
        for k in tail[1:]:
            total += columns[:, k]
        for k in range(0 if tail else 1, lanes):
            total += acc[:, k]
        return total.reshape(count)
    vectors = columns[:, :whole * lanes].reshape(blocks, whole, lanes, block).transpose(1, 2, 0, 3)
    acc = _row_sum(vectors)
    total = np.zeros((blocks, block), rows.dtype)
    for k in range(whole * lanes, n):
        total += columns[:, k]
    for k in range(lanes):
        total += acc[k]
    return total.reshape(count)


def _row_sum_in_order(vectors):
    """:func:`_row_sum`'s additions in its order, for 4 to 63 vectors (one cascade step),
    without its starts from +0.0: ``vectors`` is ``(blocks, count, lanes, block)``, and
    the result may differ from row_sum's only by the sign of a zero."""
    count = vectors.shape[1]
    groups = count // 4
    partial = [vectors[:, j] for j in range(4)]
    if groups > 1:
        partial = [partial[j] + vectors[:, 4 + j] for j in range(4)]
        for group in range(2, groups):
            for j in range(4):
                partial[j] += vectors[:, 4 * group + j]
    rest = [vectors[:, k] for k in range(groups * 4, count)] + partial[1:]
    first = partial[0] + rest[0]
    for vector in rest[1:]:
        first += vector
    return first
