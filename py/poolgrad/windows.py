"""The padded input laid out so that every kernel offset is one contiguous slice.

Pooling visits the k*k offsets of the window; for one offset ``(a, b)`` the cells it
samples across all outputs are ``padded[a*d + i*s, b*d + j*s]``. Reading that as a strided
view is slow (NumPy's fast loops want unit strides), so the padded planes are first
split by *stride phase*: phase ``(r, c)`` holds the padded cells whose row is ``r`` modulo
the row stride and whose column is ``c`` modulo the column stride. In a phase the cells of
one offset are a plain sub-rectangle, and because every phase plane is stored with a
fixed row length, the sub-rectangles of all planes of a block are one *flat* slice of
memory, if we accept a few wasted lanes at the end of each row (those land in the
columns past the output's width and are never read back).

Work happens in blocks of planes small enough to stay in the processor's cache; each
kernel offset then costs a handful of in-place ufunc calls over one flat slice.

Only the phases that some kernel offset reads are laid out, and :func:`compact` first
drops what the parameters' magnitude cannot change (offsets that land past the input for
every window, the stride of a single window, the dilation of a one-cell kernel), so the
cost depends on the sizes of the input and the output, never on how large a stride or a
dilation is.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

#: Bytes of one phase-split block: about the size of a core's share of the level-2/3
#: caches (measured: 256 KiB to 1 MiB blocks are within 10% of each other, 1 MiB best).
BLOCK_BYTES = 1 << 20


@lru_cache(maxsize=256)
def compact(geo):
    """``geo`` with the same sampled cells, in the same order, and small parameters.

    Per axis: kernel offsets whose line lies past the input for every window (``a * d -
    p >= n``; those only ever sample padding) are dropped from the end of the window; a
    single output ignores its stride, and a one-line window its dilation. The result
    describes the same cells of the input as ``geo`` does, so max pooling's scan and
    average pooling's sums (padding adds 0) are unchanged; what a window divides by
    still comes from ``geo`` itself.

    >>> from poolgrad.geometry import geometry
    >>> small = compact(geometry((4, 4), 2, stride=10**9, dilation=10**9, ceil_mode=True))
    >>> small.kernel, small.stride, small.dilation, small.output
    ((1, 1), (1, 1), (1, 1), (1, 1))
    """
    kernels, strides, dilations = [], [], []
    for size, kernel, stride, pad, dilation, count in zip(
            geo.input, geo.kernel, geo.stride, geo.padding, geo.dilation, geo.output):
        kernel = min(kernel, (size - 1 + pad) // dilation + 1)
        kernels.append(kernel)
        strides.append(1 if count == 1 else stride)
        dilations.append(1 if kernel == 1 else dilation)
    return geo._replace(kernel=tuple(kernels), stride=tuple(strides),
                        dilation=tuple(dilations))


class PhaseLayout:
    """Phase-split, padded buffers for blocks of planes of one :class:`Geometry`.

    ``offsets[o]`` is where kernel offset ``o`` (row-major over the window) starts in a
    block's flat memory; ``length(n)`` is how many flat elements cover all
    outputs of ``n`` planes. Output ``(p, i, j)`` of the block sits at flat position
    ``p * plane + i * cols + j`` of a buffer shaped like one phase, which
    :meth:`outputs` reads back.

    >>> from poolgrad.geometry import geometry
    >>> layout = PhaseLayout(geometry((4, 4), 2), np.float64, fill=0.0, planes=1)
    >>> planes = np.arange(16.0).reshape(1, 4, 4)
    >>> flat = layout.load(planes)
    >>> [flat[start:start + layout.length(1)].tolist() for start in layout.offsets]
    [[0.0, 2.0, 8.0, 10.0], [1.0, 3.0, 9.0, 11.0], [4.0, 6.0, 12.0, 14.0], [5.0, 7.0, 13.0, 15.0]]

    Element ``j`` of every slice belongs to output ``j``: the window of output 0 holds
    cells 0, 1, 4 and 5. With overlapping windows a phase row is longer than an output
    row, and the extra lanes are computed but never read: for 3 x 3 windows with stride
    1, the centre offset's slice holds outputs (0, 0), (0, 1), two wasted lanes (7 and
    8), then outputs (1, 0), (1, 1).

    >>> layout = PhaseLayout(geometry((4, 4), 3, stride=1), np.float64, 0.0, planes=1)
    >>> flat = layout.load(planes)
    >>> flat[layout.offsets[4]:layout.offsets[4] + layout.length(1)].tolist()
    [5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    """

    def __init__(self, geo, dtype, fill, planes):
        (kh, kw), (sh, sw) = geo.kernel, geo.stride
        (dh, dw), (out_h, out_w) = geo.dilation, geo.output
        self.geo = geo
        self.dtype = np.dtype(dtype)
        # Rows/columns of one phase plane: enough for the furthest kernel offset.
        # With stride 1 and no padding the input planes themselves are the one phase.
        self.direct = (sh, sw) == (1, 1) and geo.padding == (0, 0)
        if self.direct:
            self.rows, self.cols = geo.input
        else:
            self.rows = (dh * (kh - 1)) // sh + out_h
            self.cols = (dw * (kw - 1)) // sw + out_w
        self.plane = self.rows * self.cols
        self._slots = _phase_slots(geo)
        self.phases = len(self._slots)
        per_plane = self.phases * self.plane * self.dtype.itemsize
        #: Planes per block: as many as fit in BLOCK_BYTES, but no more than there are.
        self.block = max(1, min(planes, BLOCK_BYTES // per_plane))
        phase_size = self.block * self.plane
        #: Flat elements of one block's buffer (all phases).
        self.size = self.phases * phase_size
        self.fill = fill
        self._input = None
        self.offsets = []
        for a in range(kh):
            row_phase, row_shift = divmod(a * dh, sh)[::-1]
            for b in range(kw):
                col_phase, col_shift = divmod(b * dw, sw)[::-1]
                start = (self._slots[row_phase, col_phase] * phase_size
                         + row_shift * self.cols + col_shift)
                self.offsets.append(start)
        self._copies = None if self.direct else list(self._phase_copies())

    def _phase_copies(self):
        """For each laid-out phase: (its slot, input slices, phase-plane slices)."""
        (height, width), (ph, pw) = self.geo.input, self.geo.padding
        sh, sw = self.geo.stride
        for (row_phase, col_phase), slot in self._slots.items():
            rows = _phase_span(row_phase, sh, ph, height, self.rows)
            cols = _phase_span(col_phase, sw, pw, width, self.cols)
            if rows is None or cols is None:
                continue
            (first_in_r, count_r, first_ph_r), (first_in_c, count_c, first_ph_c) = rows, cols
            source = (slice(None),
                      slice(first_in_r, first_in_r + sh * (count_r - 1) + 1, sh),
                      slice(first_in_c, first_in_c + sw * (count_c - 1) + 1, sw))
            target = (slice(first_ph_r, first_ph_r + count_r),
                      slice(first_ph_c, first_ph_c + count_c))
            yield slot, source, target

    def allocate(self, fill):
        """A flat buffer for one block in this layout, every lane set to ``fill``."""
        return np.full(self.size, fill, dtype=self.dtype)

    def length(self, planes):
        """Flat elements that cover every output of ``planes`` planes in one slice."""
        out_h, out_w = self.geo.output
        return (planes - 1) * self.plane + (out_h - 1) * self.cols + out_w

    def load(self, planes):
        """Copy a block of input planes ``(n, H, W)`` into place; return flat memory.

        Padding lanes keep the fill value they got at allocation, since every block
        writes exactly the same cells.
        """
        if self.direct:
            return np.ascontiguousarray(planes, dtype=self.dtype).reshape(-1)
        if self._input is None:
            self._input = self.allocate(self.fill)
        self._scatter_planes(planes, self._input)
        return self._input

    def _scatter_planes(self, planes, flat):
        buffer = flat.reshape(self.phases, self.block, self.rows, self.cols)
        count = planes.shape[0]
        for phase, source, target in self._copies:
            np.copyto(buffer[phase, :count, target[0], target[1]], planes[source])

    def unload(self, flat, planes):
        """The inverse of :meth:`load`: copy the phase-split ``flat`` into ``planes``.

        The backward pass accumulates gradients in the phase layout; this hands them to
        the unpadded cells (whatever landed on padding is dropped). Cells that no window
        samples are left as they are.
        """
        if self.direct:
            np.copyto(planes, flat[:planes.size].reshape(planes.shape))
            return
        buffer = flat.reshape(self.phases, self.block, self.rows, self.cols)
        count = planes.shape[0]
        for phase, source, target in self._copies:
            np.copyto(planes[source], buffer[phase, :count, target[0], target[1]])

    def outputs(self, flat, planes):
        """View the first ``planes`` output planes ``(n, OH, OW)`` of a flat array laid
        out like one phase (the lane of output ``(p, i, j)`` is ``p*plane + i*cols + j``)."""
        out_h, out_w = self.geo.output
        return flat[:planes * self.plane].reshape(planes, self.rows, self.cols)[
            :, :out_h, :out_w]

@lru_cache(maxsize=256)
def _phase_slots(geo):
    """Where each phase some kernel offset reads sits in a block, ``{(row phase, column
    phase): slot}``: at most one phase per offset, however large the stride."""
    (kh, kw), (sh, sw), (dh, dw) = geo.kernel, geo.stride, geo.dilation
    row_phases = sorted({(a * dh) % sh for a in range(kh)})
    col_phases = sorted({(b * dw) % sw for b in range(kw)})
    return {(r, c): slot for slot, (r, c) in enumerate(
        (r, c) for r in row_phases for c in col_phases)}


def _phase_span(phase, stride, pad, size, length):
    """Which input lines land in one phase, and where: (first input line, count, first
    position in the phase), or None when none do.

    Phase position ``i`` holds padded line ``phase + stride * i``, i.e. input line
    ``phase + stride * i - pad``.
    """
    first = max(0, -(-(pad - phase) // stride))
    first_input = phase + stride * first - pad
    if first_input >= size or first >= length:
        return None
    count = min(length - first, (size - 1 - first_input) // stride + 1)
    return first_input, count, first
