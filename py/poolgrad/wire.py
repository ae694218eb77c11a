"""The Python side of the widget's worker protocol: one JSON request in, one JSON answer out.

The page's worker (web/runtime/worker.js) imports :func:`run_trace` and hands it every request
as a JSON string: the keyword arguments of :func:`poolgrad.trace`. Strict JSON has no
NaN, infinities or negative zero among its numbers, so inside ``x`` and ``grad_output``
they travel as the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` and ``"-0"``.
``grad_output`` may also be one number for every output cell (the page sends 1, the
default all-ones gradient: only Python knows the output's shape).

A request with ``"kind": "chain"`` carries the keyword arguments of
:func:`poolgrad.chain_trace` instead (the chain view's); named numbers may sit at any
depth of its arrays. A request without ``"kind"`` (or with ``"kind": "pool"``) is a
pooling request as above.

Whatever the request, the answer is JSON: ``{"trace": ...}`` or ``{"error": message}``,
where the message says what is wrong, for the page to show as it is; an exception that no
request should cause (a bug) is answered as one too, and says it is a bug.

A request of ``"kind": "picture"`` pools a picture instead: its pixels travel beside the
JSON as bytes, and the answer is a pair, the JSON and the planes' bytes
(:func:`poolgrad.picture.run_picture`).

The chain's and the picture's modules are imported by their first request: the page's
Python starts from a memory image made after importing this module (docs/startup.md), and
a first visit to the pooling view carries neither.
"""

from __future__ import annotations

import json

from .json_numbers import NUMBER_NAMES
from .trace import trace

#: The keyword arguments a request may carry: those of :func:`poolgrad.trace`.
REQUEST_KEYS = ("x", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "mode",
                "grad_output", "count_include_pad", "output_size", "norm_type", "unpool")

#: The keyword arguments of a chain request (``"kind": "chain"``): chain_trace()'s.
CHAIN_REQUEST_KEYS = ("x", "weight", "target", "bias", "stride", "padding", "dilation",
                      "activation", "pool", "pool_kernel_size", "pool_stride", "loss",
                      "grad_output", "learning_rate", "steps")
#: The arrays of a chain request, whose named numbers are decoded at any depth.
_CHAIN_ARRAYS = ("x", "weight", "target", "bias", "grad_output")
#: The deepest array a chain request holds: weight, (F, C, kh, kw).
_CHAIN_DEPTH = 4


class RequestError(ValueError):
    """A request that is not JSON of the expected form."""


def run_trace(request_json: str, pixels: bytes | None = None) -> str | tuple[str, bytes]:
    """Answer one request from the page: trace() as JSON, or a clear error as JSON.

    >>> answer = json.loads(run_trace('{"x": [[1, 2], [3, "NaN"]], "kernel_size": 2}'))
    >>> answer["trace"]["output"], answer["trace"]["indices"]
    ([['NaN']], [[3]])
    >>> json.loads(run_trace('{"x": [["-0", 0]], "kernel_size": [1, 2]}'))["trace"]["output"]
    [[-0.0]]

    Every user error comes back as a message, never as a traceback:

    >>> json.loads(run_trace('{"x": [[1, "two"]], "kernel_size": 1}'))["error"]
    'x row 0, col 1: "two" is not a number (the only strings allowed are NaN, Infinity, -Infinity, -0)'
    >>> json.loads(run_trace('{"x": [[1]], "kernel_size": 1, "dilation": 9223372036854775808}'))["error"]
    'dilation=9223372036854775808 is too large: pooling parameters are 64-bit integers, at most 2**63 - 1 as in PyTorch; use a smaller dilation'
    >>> json.loads(run_trace('[1, 2]'))["error"]
    'the request must be a JSON object of trace() settings, got list'

    A chain request:

    >>> answer = json.loads(run_trace('{"kind": "chain", "x": [[1, 2], [3, 4]], '
    ...                               '"weight": [[1]], "pool": null, "grad_output": 1}'))
    >>> answer["trace"]["grad_weight"]
    [[[[10.0]]]]

    A picture's request names its kind and brings its pixels:

    >>> answer, planes = run_trace('{"kind": "picture", "shape": [1, 1, 4], "kernel_size": 1}',
    ...                            bytes([10, 20, 30, 255]))
    >>> json.loads(answer)["picture"]["planes"][1], len(planes)
    ({'name': 'stage-1', 'shape': [3, 1, 1], 'offset': 4, 'dtype': 'float32'}, 16)
    """
    try:
        request = _load(request_json)
    except RequestError as refused:
        return _refused(str(refused), pixels)
    kind = request.pop("kind", "pool")
    if kind == "picture":
        try:
            from .picture import run_picture

            return run_picture(request, pixels)
        except Exception as failure:  # a bug of poolgrad's: said as one, never raised
            return json.dumps({"error": unexpected_failure(failure)}), b""
    try:
        if kind == "chain":
            from .chain import chain_trace

            result = chain_trace(**_chain_request(request))
        elif kind == "pool":
            result = trace(**_parse(request))
        else:
            raise RequestError(f'the request\'s "kind" must be "pool" or "chain" (or "picture", '
                               f"with its pixels), got {kind!r:.40}")
    except (ValueError, TypeError) as refused:
        return json.dumps({"error": str(refused)})
    except Exception as failure:  # a bug of poolgrad's: said as one, never raised
        return json.dumps({"error": unexpected_failure(failure)})
    try:
        return json.dumps({"trace": result}, allow_nan=False)
    except Exception as failure:
        return json.dumps({"error": unexpected_failure(failure)})


def unexpected_failure(failure: BaseException) -> str:
    """The message for an exception no caller could cause: a bug, said to be one.

    >>> unexpected_failure(ZeroDivisionError("division by zero"))
    'poolgrad failed unexpectedly (ZeroDivisionError: division by zero); this is a bug in poolgrad, please report it with the request'
    """
    return (f"poolgrad failed unexpectedly ({type(failure).__name__}: {failure}); this is a bug in "
            "poolgrad, please report it with the request")


def _refused(message, pixels):
    """A refusal in the form the request expects: a picture's (pixels sent) is a pair."""
    answer = json.dumps({"error": message})
    return answer if pixels is None else (answer, b"")


def _load(request_json):
    """The request's JSON object."""
    if not isinstance(request_json, str):
        raise RequestError(f"the request must be a JSON string, got {type(request_json).__name__}")
    try:
        request = json.loads(request_json, parse_constant=_refuse_constant)
    except RecursionError:
        raise RequestError("the request is nested too deeply to be a pooling request") from None
    except json.JSONDecodeError as error:
        raise RequestError(f"the request is not valid JSON: {error}") from None
    if not isinstance(request, dict):
        raise RequestError(
            f"the request must be a JSON object of trace() settings, got {type(request).__name__}")
    return request


def _parse(request):
    """The request as trace()'s keyword arguments, named numbers turned into floats."""
    for key in request:
        if key not in REQUEST_KEYS:
            raise RequestError(f'the request has an unknown setting "{key[:40]}"; known settings: '
                               f"{', '.join(REQUEST_KEYS)}")
    if "x" not in request:
        raise RequestError("the request needs at least x (and kernel_size, or output_size "
                           "in the adaptive modes)")
    request["x"] = _decode(request["x"], "x")
    if isinstance(request.get("norm_type"), str):
        request["norm_type"] = _number(request["norm_type"], "norm_type")
    if "grad_output" in request and request["grad_output"] is not None:
        request["grad_output"] = _decode(request["grad_output"], "grad_output")
    return request


def _chain_request(request):
    """A chain request as chain_trace()'s keyword arguments, named numbers turned into
    floats wherever they sit in its arrays."""
    for key in request:
        if key not in CHAIN_REQUEST_KEYS:
            raise RequestError(f'the chain request has an unknown setting "{key[:40]}"; known '
                               f"settings: {', '.join(CHAIN_REQUEST_KEYS)}")
    if "x" not in request or "weight" not in request:
        raise RequestError("the chain request needs at least x and weight")
    for key in _CHAIN_ARRAYS:
        if request.get(key) is not None:
            request[key] = _decode_nested(request[key], key, _CHAIN_DEPTH)
    return request


def _decode_nested(value, where, depth):
    """Nested lists with the named numbers turned into floats, at most ``depth`` deep
    (deeper ones are left for chain_trace()'s own checks to refuse)."""
    if isinstance(value, str):
        return _number(value, where)
    if not isinstance(value, list) or depth == 0:
        return value
    return [_decode_nested(item, f"{where}[{index}]", depth - 1)
            for index, item in enumerate(value)]


def _refuse_constant(name):
    raise RequestError(f"the request holds the bare constant {name}; write it as the "
                       f'string "{name}"')


def _decode(value, name):
    """A number, or rows of numbers, with the named numbers turned into floats.

    One flat pass over the rows of the page's 2-D grid; anything deeper is left for
    trace()'s own checks to refuse.
    """
    if isinstance(value, str):
        return _number(value, name)
    if not isinstance(value, list):
        return value
    return [[_number(cell, f"{name} row {r}, col {c}") if isinstance(cell, str) else cell
             for c, cell in enumerate(row)] if isinstance(row, list) else
            (_number(row, f"{name} entry {r}") if isinstance(row, str) else row)
            for r, row in enumerate(value)]


def _number(text, where):
    if text in NUMBER_NAMES:
        return NUMBER_NAMES[text]
    raise RequestError(f'{where}: "{text[:24]}" is not a number (the only strings allowed are '
                       f"{', '.join(NUMBER_NAMES)})")
