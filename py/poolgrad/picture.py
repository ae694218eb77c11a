"""Pooling a picture: what the widget's picture view asks of poolgrad.

The page decodes the learner's image in the browser and sends its RGBA pixels, row by
row, as bytes (no JSON list of numbers: a 256 x 256 picture is 262144 bytes). This module
turns them into the planes of the chosen channel (:func:`picture_planes`), pools them with
the library's own functions, ``repeat`` times as a stack of layers does, routes a gradient
of ones back through every stage (:func:`pool_picture`) and describes one selected output
pixel the way :func:`poolgrad.trace` describes a cell (:func:`zoom`), so the page's grid
sentences read the same. The front end draws what comes back; it computes nothing.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .adaptive_pool import (adaptive_avg_pool2d, adaptive_avg_pool2d_backward, adaptive_max_pool2d,
                            adaptive_max_pool2d_backward)
from .avg_pool import avg_pool2d, avg_pool2d_backward, divisors
from .geometry import adaptive_bounds, axis_formula, geometry, sampled_lines
from .json_numbers import NUMBER_NAMES, json_values
from .lp_pool import lp_pool2d, lp_pool2d_backward
from .max_pool import max_pool2d, max_pool2d_backward
from .trace import ADAPTIVE_MODES, MAX_MODES, MODES, _refuse_window_parameters
from .validation import _pair, as_flag, as_norm_type

#: The longest side a picture may have: the page scales larger ones down to its size.
MAX_PICTURE_SIDE = 256
#: The longer sides the view offers (#picture-size): a larger picture is scaled down to one.
PICTURE_SIZES = (32, 64, 128, 256)
#: How many times the same pooling may be stacked.
MAX_REPEAT = 4
#: What the picture view pools: every colour channel on its own, their luma, or one.
CHANNELS = ("rgb", "grey", "r", "g", "b")
#: ITU-R BT.601 luma weights: grey = round(0.299 R + 0.587 G + 0.114 B).
LUMA = (0.299, 0.587, 0.114)
#: Cells of margin the zoom shows around a window.
ZOOM_MARGIN = 1


def picture_planes(rgba: Any, channel: str = "rgb") -> np.ndarray:
    """The ``(C, H, W)`` uint8 planes of an ``(H, W, 4)`` RGBA picture, for ``channel``.

    Transparency is laid over white (``round(v * a / 255 + 255 * (1 - a / 255))``), so an
    opaque picture keeps the file's 0-255 values exactly. ``rgb`` gives three planes,
    ``grey`` one of ``round(0.299 R + 0.587 G + 0.114 B)``, ``r``, ``g``, ``b`` one each.

    >>> rgba = np.array([[[255, 0, 0, 255], [10, 20, 30, 0]]], dtype=np.uint8)
    >>> picture_planes(rgba).tolist()
    [[[255, 255]], [[0, 255]], [[0, 255]]]
    >>> picture_planes(rgba, "grey").tolist(), picture_planes(rgba, "g").shape
    ([[[76, 255]]], (1, 1, 2))
    """
    if channel not in CHANNELS:
        raise ValueError(f"channel={str(channel)[:20]!r} is not a picture channel: use one of "
                         + ", ".join(CHANNELS))
    rgba = np.asarray(rgba)
    if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
        raise ValueError(f"the picture must be (H, W, 4) RGBA uint8, got shape {rgba.shape} "
                         f"of {rgba.dtype}")
    colour = rgba[..., :3].astype(np.float64)
    alpha = rgba[..., 3:].astype(np.float64) / 255
    rgb = np.where(alpha == 1, colour, np.round(colour * alpha + 255 * (1 - alpha)))
    planes = rgb.transpose(2, 0, 1)
    if channel == "grey":
        grey = np.round(np.tensordot(np.array(LUMA), planes, axes=1))
        return grey[None].astype(np.uint8)
    if channel in ("r", "g", "b"):
        planes = planes["rgb".index(channel)][None]
    return planes.astype(np.uint8)


def picture_rgba(image: Any) -> np.ndarray:
    """An image array as the ``(H, W, 4)`` RGBA uint8 pixels the picture view pools.

    ``image`` is ``(H, W)`` (grey: each colour channel the same), ``(H, W, 3)`` or
    ``(3, H, W)`` (red, green, blue; ``(H, W, 3)`` is read first when both fit), of uint8 or
    of whole numbers from 0 to 255 (a picture file's values); alpha is 255.

    >>> picture_rgba([[0, 255]]).tolist()
    [[[0, 0, 0, 255], [255, 255, 255, 255]]]
    >>> picture_rgba(np.zeros((3, 1, 2))).shape
    (1, 2, 4)
    >>> picture_rgba([[0.5]])
    Traceback (most recent call last):
    ...
    ValueError: the picture's values must be whole numbers from 0 to 255 (uint8, or numbers such as a picture file holds); got 0.5
    """
    pixels = np.asarray(image)
    shape = pixels.shape
    if pixels.ndim == 3 and shape[2] == 3:
        rgb = pixels
    elif pixels.ndim == 3 and shape[0] == 3:
        rgb = pixels.transpose(1, 2, 0)
    elif pixels.ndim == 2:
        rgb = np.repeat(pixels[..., None], 3, axis=2)
    else:
        raise ValueError(f"a picture must be (H, W) grey, (H, W, 3) or (3, H, W) colour, got shape {shape}")
    if 0 in rgb.shape:
        raise ValueError(f"the picture must have at least one row and one column, got shape {shape}")
    if pixels.dtype != np.uint8:
        if pixels.dtype.kind not in "iuf":
            raise ValueError(f"the picture's values must be numbers from 0 to 255, got dtype {pixels.dtype}")
        outside = rgb[~((rgb >= 0) & (rgb <= 255) & (rgb == np.round(rgb)))] if pixels.dtype.kind == "f" \
            else rgb[(rgb < 0) | (rgb > 255)]
        if outside.size:
            raise ValueError("the picture's values must be whole numbers from 0 to 255 (uint8, or numbers "
                             f"such as a picture file holds); got {outside.flat[0].item()!r}")
    rgba = np.full(rgb.shape[:2] + (4,), 255, dtype=np.uint8)
    rgba[..., :3] = rgb
    return rgba


def fit_picture(pixels: Any, size: int) -> np.ndarray:
    """``pixels`` (``(H, W, ...)``) with its longer side at most ``size``: as it is when it
    fits, else scaled down keeping its aspect, each pixel the nearest one of the picture
    (so the values stay the picture's own).

    >>> fit_picture(np.arange(16).reshape(4, 4), 2).tolist()
    [[5, 7], [13, 15]]
    >>> fit_picture(np.zeros((300, 100, 4)), 128).shape
    (128, 43, 4)
    """
    pixels = np.asarray(pixels)
    height, width = pixels.shape[:2]
    longer = max(height, width)
    if longer <= size:
        return pixels
    sides = [max(1, (side * size + longer // 2) // longer) for side in (height, width)]
    rows, cols = ((np.arange(n) + 0.5) * side / n for n, side in zip(sides, (height, width)))
    return pixels[rows.astype(np.intp)[:, None], cols.astype(np.intp)]


def _settings(mode, kernel_size, stride, padding, dilation, ceil_mode, count_include_pad,
              output_size, norm_type):
    """The pooling settings checked once, up front, with trace()'s messages."""
    if not isinstance(mode, str) or mode not in MODES:
        raise ValueError(f"mode={mode!r} is not a pooling mode: use one of "
                         + ", ".join(repr(name) for name in MODES))
    settings = {"mode": mode, "ceil_mode": as_flag(ceil_mode, "ceil_mode"),
                "count_include_pad": as_flag(count_include_pad, "count_include_pad")}
    if norm_type is not None and mode != "lp":
        raise ValueError(f"norm_type applies to mode='lp' only, not mode={mode!r}")
    if output_size is not None and mode not in ADAPTIVE_MODES:
        raise ValueError(f"output_size applies to the adaptive modes only, not mode={mode!r}: "
                         "use kernel_size and stride")
    if mode in ADAPTIVE_MODES:
        _refuse_window_parameters(mode, kernel_size, stride, padding, dilation, ceil_mode)
        if output_size is None:
            raise ValueError(f"mode={mode!r} needs output_size (an int or an (h, w) pair)")
        return {**settings, "output_size": output_size}
    if kernel_size is None:
        raise ValueError(f"mode={mode!r} needs kernel_size")
    if mode == "lp":
        if norm_type is None:
            raise ValueError("mode='lp' needs norm_type (p, such as 2)")
        if _pair(padding, "padding") != (0, 0) or _pair(dilation, "dilation") != (1, 1):
            raise ValueError("lp_pool2d has no padding and no dilation: use padding=0 and "
                             "dilation=1 with mode='lp'")
        settings["norm_type"] = as_norm_type(norm_type)
    if mode == "avg" and _pair(dilation, "dilation") != (1, 1):
        raise ValueError(f"dilation={dilation!r} is not available for average pooling "
                         "(avg_pool2d has no dilation): use dilation=1 or mode='max'")
    return {**settings, "kernel_size": kernel_size, "stride": stride, "padding": padding,
            "dilation": dilation}


def _forward(planes, s):
    """One stage: (output, indices or None), with the library's pooling of ``s["mode"]``."""
    mode = s["mode"]
    if mode == "max":
        return max_pool2d(planes, s["kernel_size"], s["stride"], s["padding"], s["dilation"],
                          s["ceil_mode"], return_indices=True)
    if mode == "adaptive_max":
        return adaptive_max_pool2d(planes, s["output_size"], return_indices=True)
    if mode == "avg":
        return avg_pool2d(planes, s["kernel_size"], s["stride"], s["padding"], s["ceil_mode"],
                          s["count_include_pad"]), None
    if mode == "adaptive_avg":
        return adaptive_avg_pool2d(planes, s["output_size"]), None
    return lp_pool2d(planes, s["norm_type"], s["kernel_size"], s["stride"], s["ceil_mode"]), None


def _backward(grad, stage_input, indices, s):
    """The gradient at one stage's input, from the gradient at its output."""
    mode, shape = s["mode"], stage_input.shape
    if mode == "max":
        return max_pool2d_backward(grad, indices, shape)
    if mode == "adaptive_max":
        return adaptive_max_pool2d_backward(grad, indices, shape)
    if mode == "avg":
        return avg_pool2d_backward(grad, shape, s["kernel_size"], s["stride"], s["padding"],
                                   s["ceil_mode"], s["count_include_pad"])
    if mode == "adaptive_avg":
        return adaptive_avg_pool2d_backward(grad, shape)
    return lp_pool2d_backward(grad, stage_input, s["norm_type"], s["kernel_size"], s["stride"],
                              s["ceil_mode"])


def pool_picture(planes: Any, kernel_size: Any = None, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, ceil_mode: bool = False, mode: str = "max",
                 count_include_pad: bool = True, output_size: Any = None, norm_type: float | None = None,
                 repeat: int = 1, gradient: bool = False) -> dict[str, Any]:
    """Pool ``(C, H, W)`` picture planes ``repeat`` times, and route a gradient of ones back.

    The settings are :func:`poolgrad.trace`'s (checked the same way, one message per
    rule); each stage pools the previous stage's output with them. Returns ``stages``
    (each stage's output, ``(C, h, w)``), ``indices`` (per stage, the max modes' flat
    indices, else ``None``), ``settings`` and, with ``gradient``, ``grad_input``: the
    gradient at the picture of an upstream gradient of ones on the last stage, routed back
    through every stage (float64, the planes' shape).

    >>> picture = np.array([[[1, 2, 5, 6], [3, 4, 8, 7], [0, 1, 3, 2], [4, 9, 6, 5]]], np.uint8)
    >>> pooled = pool_picture(picture, 2, gradient=True)
    >>> pooled["stages"][0].tolist(), pooled["grad_input"][0].tolist()[1]
    ([[[4, 8], [9, 6]]], [0.0, 1.0, 1.0, 0.0])
    >>> pool_picture(picture, 2, repeat=2)["stages"][1].tolist()
    [[[9]]]
    >>> pool_picture(picture, 2, repeat=3)
    Traceback (most recent call last):
    ...
    ValueError: stage 3 of 3: kernel_size=2 is larger than the 1 x 1 picture stage 2 left: use fewer repeats or a smaller kernel
    """
    planes = np.asarray(planes)
    if planes.ndim != 3:
        raise ValueError(f"the picture planes must be (C, H, W), got shape {planes.shape}")
    if isinstance(repeat, bool) or not isinstance(repeat, (int, np.integer)) \
            or not 1 <= repeat <= MAX_REPEAT:
        raise ValueError(f"repeat must be a whole number from 1 to {MAX_REPEAT}, got {repeat!r}")
    gradient = as_flag(gradient, "gradient")
    s = _settings(mode, kernel_size, stride, padding, dilation, ceil_mode, count_include_pad,
                  output_size, norm_type)
    inputs, stages, indices = [], [], []
    current = planes
    for number in range(1, repeat + 1):
        try:
            out, chosen = _forward(current, s)
        except ValueError as refused:
            if number == 1:
                raise
            side = "x".join(str(n) for n in current.shape[1:]).replace("x", " x ")
            kernel = s.get("kernel_size")
            why = (f"kernel_size={kernel} is larger than the {side} picture stage {number - 1} left"
                   if kernel is not None and min(_pair(kernel, "kernel_size")) > min(current.shape[1:])
                   else str(refused))
            raise ValueError(f"stage {number} of {repeat}: {why}: use fewer repeats or a smaller "
                             "kernel") from None
        inputs.append(current)
        stages.append(out)
        indices.append(chosen)
        current = out
    result = {"stages": stages, "indices": indices, "inputs": inputs, "settings": s}
    if gradient:
        grad = np.ones(stages[-1].shape)
        for stage_input, chosen in zip(reversed(inputs), reversed(indices)):
            grad = _backward(grad, stage_input, chosen, s)
        result["grad_input"] = grad
    return result


def stage_formula(input_hw, s):
    """Each axis's output-size formula numbers for one stage (``None`` in the adaptive modes).

    >>> stage_formula((5, 4), {"mode": "max", "kernel_size": 2, "stride": None, "padding": 0,
    ...                        "dilation": 1, "ceil_mode": False})["rows"]
    {'n': 5, 'k': 2, 's': 2, 'p': 0, 'd': 1, 'numerator': 3, 'size': 2}
    """
    if s["mode"] in ADAPTIVE_MODES:
        return None
    geo = geometry(input_hw, s["kernel_size"], s["stride"], s["padding"], s["dilation"],
                   s["ceil_mode"])
    formula = {}
    for axis, name in enumerate(("rows", "cols")):
        n, k, st, p, d = (geo.input[axis], geo.kernel[axis], geo.stride[axis],
                          geo.padding[axis], geo.dilation[axis])
        numerator, _, size = axis_formula(n, k, st, p, d, geo.ceil_mode)
        formula[name] = {"n": n, "k": k, "s": st, "p": p, "d": d, "numerator": numerator,
                         "size": size}
    return formula


def _lines(s, stage_input_hw, output_hw):
    """Per axis, the input lines each output line's window samples (padding included)."""
    if s["mode"] in ADAPTIVE_MODES:
        lines = []
        for size, count in zip(stage_input_hw, output_hw):
            starts, ends = adaptive_bounds(size, count)
            lines.append([list(range(a, b)) for a, b in zip(starts.tolist(), ends.tolist())])
        return lines
    geo = geometry(stage_input_hw, s["kernel_size"], s["stride"], s["padding"], s["dilation"],
                   s["ceil_mode"])
    return [sampled_lines(count, k, st, p, d).tolist()
            for count, k, st, p, d in zip(geo.output, geo.kernel, geo.stride, geo.padding,
                                          geo.dilation)]


def zoom(pooled: dict, selection: Any, channel: int = 0) -> dict[str, Any] | None:
    """The selected output pixel of the last stage, described as :func:`poolgrad.trace`
    describes a cell, but only where the page looks: keys are the rows and columns
    concerned (JSON turns them into strings; the page indexes them as trace()'s lists).

    ``selection`` is ``(row, col)`` of the last stage's output, ``channel`` the plane
    shown. Returns ``None`` when the selection lies outside the output. The keys:
    ``selected``, ``channel``, ``mode``, ``input_shape`` and ``output_shape`` (of the last
    stage), ``box`` (``rows`` / ``cols``: the first and last input line the zoom shows, the
    window with a margin, clipped to the input), ``window_rows`` / ``window_cols``,
    ``input`` (the box's values), ``output``; ``argmax`` (the max modes), ``divisor``
    (avg), ``window_size`` (adaptive), ``norm_type`` and ``lp_sums`` (lp); with the
    gradient, ``grad_output`` (1), and for the cells it reaches ``sources``,
    ``grad_terms`` and ``grad_input`` at the last stage's input.

    >>> picture = np.array([[[1, 2, 5, 6], [3, 4, 8, 7], [0, 1, 3, 2], [4, 9, 6, 5]]], np.uint8)
    >>> z = zoom(pool_picture(picture, 2), (0, 1))
    >>> z["box"], z["output"], z["argmax"]
    ({'rows': [0, 2], 'cols': [1, 3]}, {0: {1: 8}}, {0: {1: [1, 2]}})
    >>> z["input"][1]
    {1: 4, 2: 8, 3: 7}
    """
    s = pooled["settings"]
    stage_input, out = pooled["inputs"][-1], pooled["stages"][-1]
    if not 0 <= channel < out.shape[0]:
        raise ValueError(f"zoom channel {channel} is not one of the picture's {out.shape[0]} "
                         "channels")
    i, j = (int(v) for v in selection)
    (height, width), (out_h, out_w) = stage_input.shape[1:], out.shape[1:]
    if not (0 <= i < out_h and 0 <= j < out_w):
        return None
    row_lines, col_lines = _lines(s, (height, width), (out_h, out_w))
    rows, cols = row_lines[i], col_lines[j]
    inside_rows = [r for r in rows if 0 <= r < height]
    inside_cols = [c for c in cols if 0 <= c < width]
    box_rows = [max(0, min(inside_rows) - ZOOM_MARGIN), min(height - 1, max(inside_rows) + ZOOM_MARGIN)]
    box_cols = [max(0, min(inside_cols) - ZOOM_MARGIN), min(width - 1, max(inside_cols) + ZOOM_MARGIN)]
    plane, out_plane = stage_input[channel], out[channel]
    box = plane[box_rows[0]:box_rows[1] + 1, box_cols[0]:box_cols[1] + 1]
    value = json_values(out_plane[i, j])
    described: dict[str, Any] = {
        "selected": [i, j], "channel": channel, "mode": s["mode"],
        "input_shape": [height, width], "output_shape": [out_h, out_w],
        "box": {"rows": box_rows, "cols": box_cols},
        "window_rows": {i: rows}, "window_cols": {j: cols},
        "input": {box_rows[0] + r: {box_cols[0] + c: v for c, v in enumerate(line)}
                  for r, line in enumerate(json_values(box))},
        "output": {i: {j: value}},
    }
    gradient = "grad_input" in pooled
    indices = pooled["indices"][-1]
    if gradient:
        # The last stage's own backward of ones: what the sentence adds up at its input.
        routed = _backward(np.ones(out.shape), stage_input, indices, s)[channel]
        described["grad_output"] = {i: {j: 1.0}}
        described["grad_input"] = {r: {c: float(routed[r, c]) for c in range(box_cols[0], box_cols[1] + 1)}
                                   for r in range(box_rows[0], box_rows[1] + 1)}
    mode = s["mode"]
    if mode in MAX_MODES:
        flat = int(indices[channel, i, j])
        r, c = divmod(flat, width)
        described["argmax"] = {i: {j: [r, c]}}
        if gradient:
            chosen = np.argwhere(indices[channel] == flat).tolist()
            described["sources"] = {r: {c: chosen}}
            described["grad_terms"] = {r: {c: [1.0] * len(chosen)}}
    elif mode == "avg":
        geo = geometry((height, width), s["kernel_size"], s["stride"], s["padding"],
                       s["dilation"], s["ceil_mode"])
        divisor = int(divisors(geo, s["count_include_pad"])[i, j])
        described["divisor"] = {i: {j: divisor}}
        if gradient:
            described["sources"] = {r: {c: [[i, j]] for c in inside_cols} for r in inside_rows}
            described["grad_terms"] = {r: {c: [1.0 / divisor] for c in inside_cols}
                                       for r in inside_rows}
    elif mode == "adaptive_avg":
        described["divisor"] = {i: {j: len(rows) * len(cols)}}
        described["window_size"] = {i: {j: len(rows) * len(cols)}}
        if gradient:
            share = 1.0 / (len(rows) * len(cols))
            described["sources"] = {r: {c: [[i, j]] for c in cols} for r in rows}
            described["grad_terms"] = {r: {c: [share] for c in cols} for r in rows}
    else:
        p = s["norm_type"]
        described["norm_type"] = json_values(p)
        described["lp_sums"] = {i: {j: json_values(float(out_plane[i, j]) ** p)}}
    if mode == "adaptive_max":
        described["window_size"] = {i: {j: len(rows) * len(cols)}}
    return described


def gradient_share(grad_input: np.ndarray) -> dict[str, int]:
    """How many of the picture's pixels got any gradient (in any channel), of how many.

    >>> gradient_share(np.array([[[0.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [2.0, 0.0]]]))
    {'reached': 2, 'pixels': 4}
    """
    reached = np.any(grad_input != 0, axis=0)
    return {"reached": int(reached.sum()), "pixels": int(reached.size)}


#: The settings a picture request may carry besides its kind.
PICTURE_KEYS = ("shape", "channel", "kernel_size", "stride", "padding", "dilation", "ceil_mode",
                "mode", "count_include_pad", "output_size", "norm_type", "repeat", "gradient",
                "selection", "zoom_channel")


def _pixels_of(request, pixels):
    """The request's pixels as an ``(H, W, 4)`` uint8 array, each refusal one message."""
    shape = request.get("shape")
    if (not isinstance(shape, list) or len(shape) != 3 or shape[2] != 4
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in shape)):
        raise ValueError(f"shape must be [height, width, 4] (RGBA rows), got {str(shape)[:40]}")
    height, width = shape[:2]
    if height < 1 or width < 1:
        raise ValueError(f"the picture must have at least one row and one column, got "
                         f"{height} x {width}")
    if max(height, width) > MAX_PICTURE_SIDE:
        raise ValueError(f"the picture is {height} x {width} pixels: at most "
                         f"{MAX_PICTURE_SIDE} on its longer side; scale it down first")
    if pixels is None:
        raise ValueError("a picture request needs its pixels (bytes beside the JSON)")
    # Under Pyodide a JavaScript Uint8Array arrives as a proxy that copies itself out.
    data = pixels.to_bytes() if hasattr(pixels, "to_bytes") else pixels
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"the pixels must be bytes, got {type(data).__name__}")
    if len(data) != height * width * 4:
        raise ValueError(f"the pixels hold {len(data)} bytes; a {height} x {width} RGBA picture "
                         f"has {height * width * 4}")
    return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 4)


def _packed(planes):
    """The planes' bytes one after the other, and where each starts (4-byte aligned)."""
    described, chunks, offset = [], [], 0
    for name, values, dtype in planes:
        data = np.ascontiguousarray(values, dtype=dtype).tobytes()
        described.append({"name": name, "shape": list(values.shape), "offset": offset,
                          "dtype": np.dtype(dtype).name})
        padding = -len(data) % 4
        chunks.append(data + bytes(padding))
        offset += len(data) + padding
    return described, b"".join(chunks)


def run_picture(request: dict, pixels: Any) -> tuple[str, bytes]:
    """Answer the picture view's request: ``(JSON, planes' bytes)``, or ``(error JSON, b"")``.

    ``request`` holds ``shape`` (``[H, W, 4]``), ``channel``, the pooling settings of
    :func:`pool_picture`, ``repeat``, ``gradient``, ``selection`` (``[row, col]`` of the
    last stage's output, or absent) and ``zoom_channel``; ``pixels`` are the RGBA bytes,
    row-major. The JSON is ``{"picture": ...}`` with ``planes`` (each ``name``, ``shape``,
    ``dtype``, ``offset`` into the bytes: ``input`` as uint8, ``stage-1`` ...
    ``stage-N`` and ``grad-input`` as float32 for drawing), ``stages`` (each one's
    ``shape`` and output-size ``formula``), ``gradient_share``, ``zoom`` (:func:`zoom`)
    and the exact value range of each plane (``ranges``) for its colour scale.

    >>> import json
    >>> answer, planes = run_picture({"shape": [1, 2, 4], "channel": "grey", "kernel_size": [1, 2],
    ...                               "mode": "avg", "selection": [0, 0]},
    ...                              bytes([0, 0, 0, 255, 255, 255, 255, 255]))
    >>> picture = json.loads(answer)["picture"]
    >>> picture["zoom"]["output"], np.frombuffer(planes, np.float32, 1, picture["planes"][1]["offset"])
    ({'0': {'0': 127.5}}, array([127.5], dtype=float32))
    >>> json.loads(run_picture({"shape": [300, 2, 4]}, b"")[0])["error"]
    'the picture is 300 x 2 pixels: at most 256 on its longer side; scale it down first'
    """
    try:
        for key in request:
            if key not in PICTURE_KEYS:
                raise ValueError(f'the picture request has an unknown setting "{str(key)[:40]}"; '
                                 f"known settings: {', '.join(PICTURE_KEYS)}")
        rgba = _pixels_of(request, pixels)
        planes = picture_planes(rgba, request.get("channel", "rgb"))
        settings = {key: request[key] for key in ("kernel_size", "stride", "padding", "dilation",
                                                  "ceil_mode", "mode", "count_include_pad",
                                                  "output_size", "norm_type", "repeat", "gradient")
                    if key in request}
        if isinstance(settings.get("norm_type"), str):  # "Infinity", as the wire spells it
            settings["norm_type"] = NUMBER_NAMES.get(settings["norm_type"], settings["norm_type"])
        pooled = pool_picture(planes, **settings)
        selection = request.get("selection")
        zoom_channel = request.get("zoom_channel", 0)
        if selection is not None and (not isinstance(selection, list) or len(selection) != 2
                                      or not all(isinstance(v, int) for v in selection)):
            raise ValueError(f"selection must be [row, col] of the output, got {str(selection)[:40]}")
        if not isinstance(zoom_channel, int) or isinstance(zoom_channel, bool):
            raise ValueError(f"zoom_channel must be a channel number, got {str(zoom_channel)[:20]}")
        described = None if selection is None else zoom(pooled, selection, zoom_channel)
    except (ValueError, TypeError) as refused:
        return json.dumps({"error": str(refused)}), b""
    named = [("input", planes, np.uint8)]
    named += [(f"stage-{n}", stage, np.float32) for n, stage in enumerate(pooled["stages"], 1)]
    if "grad_input" in pooled:
        named.append(("grad-input", pooled["grad_input"], np.float32))
    layout, data = _packed(named)
    s = pooled["settings"]
    answer = {
        "channel": request.get("channel", "rgb"),
        "planes": layout,
        "ranges": {name: json_values([np.min(values), np.max(values)]) for name, values, _ in named},
        "stages": [{"shape": list(stage.shape), "formula": stage_formula(stage_input.shape[1:], s)}
                   for stage, stage_input in zip(pooled["stages"], pooled["inputs"])],
        "gradient_share": gradient_share(pooled["grad_input"]) if "grad_input" in pooled else None,
        "zoom": described,
    }
    return json.dumps({"picture": answer}, allow_nan=False), data
