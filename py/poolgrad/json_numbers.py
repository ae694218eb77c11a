"""Numbers as strict JSON carries them: the one table of the names that stand for the
numbers JSON cannot write, and the encoders that use it.

Strict JSON has no NaN, infinities or negative zero, and ``JSON.parse`` rejects Python's
``NaN`` token, so they travel as the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``
(what JavaScript's ``Number()`` turns back into the numbers) and, in a request,
``"-0"``. :mod:`poolgrad.wire` reads requests with the table (and with
:func:`load_json`, which names an integer too long for Python to read); :func:`poolgrad.trace`
and :mod:`poolgrad.exercise_check` write their answers with the encoders.
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np

#: The strings that stand for the numbers strict JSON cannot write.
NUMBER_NAMES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}

#: The names an answer uses: -0.0 is a JSON number as it is (``-0.0``), only requests,
#: whose numbers come from text such as the URL hash, spell it ``"-0"``.
NON_FINITE_NAMES = ("NaN", "Infinity", "-Infinity")


def number_name(value: float) -> str | None:
    """The name of a non-finite ``value``; None for a finite one.

    >>> number_name(float("-inf")), number_name(float("nan")), number_name(2.5)
    ('-Infinity', 'NaN', None)
    """
    if math.isfinite(value):
        return None
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def json_values(values):
    """Nested lists of ``values`` that survive strict JSON: non-finite floats as names.
    Integer arrays stay integers; floats wider than 64 bits (``longdouble``) are rounded
    to the 64-bit floats JSON numbers are.

    >>> json_values(np.array([[1.5, np.nan], [-np.inf, 2.0]]))
    [[1.5, 'NaN'], ['-Infinity', 2.0]]
    >>> json_values(np.array([3, -1]))
    [3, -1]
    >>> json_values(np.float32(np.inf))
    'Infinity'
    """
    values = np.asarray(values)
    if values.dtype.kind == "f" and values.dtype.itemsize > 8:
        values = values.astype(np.float64)
    if values.dtype.kind != "f" or np.isfinite(values).all():
        return values.tolist()
    boxed = values.astype(object)
    for name in NON_FINITE_NAMES:
        number = NUMBER_NAMES[name]
        boxed[np.isnan(values) if math.isnan(number) else values == number] = name
    return boxed.tolist()


class NumberTooLong(ValueError):
    """A JSON integer with more digits than Python turns into an int."""


class _TooLong:
    """Stands in for an integer too long to read until :func:`load_json` names where it sits."""

    def __init__(self, digits):
        self.digits = digits


def _first_too_long(value, where):
    """(where, digits) of the first :class:`_TooLong` in ``value``, or None."""
    if isinstance(value, _TooLong):
        return where, value.digits
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        inner = f"{where}[{key}]" if isinstance(key, int) else (f"{where}.{key}" if where else key)
        found = _first_too_long(item, inner)
        if found:
            return found
    return None


def load_json(text: str, **options) -> object:
    """``json.loads(text, **options)``, but an integer of more digits than Python reads
    (``sys.get_int_max_str_digits()``, 4300 unless changed) is a :class:`NumberTooLong`
    that names where it sits, not Python's advice to raise the limit.

    >>> load_json('{"stride": 2, "x": [[1, 2]]}')
    {'stride': 2, 'x': [[1, 2]]}
    >>> load_json('{"x": [[1, ' + "9" * 5000 + ']]}')
    Traceback (most recent call last):
    ...
    poolgrad.json_numbers.NumberTooLong: x[0][1] is a number of 5000 digits, too long to read: a number in a request has at most 4300 digits
    """
    try:
        return json.loads(text, **options)
    except ValueError as refused:
        # Only int() past its limit raises a plain ValueError here (a JSON error is a
        # JSONDecodeError, a hook's refusal its own kind): read again to say where it is.
        if type(refused) is not ValueError:
            raise
        found = _too_long_integer(text, options)
        if found is None:
            raise
        raise NumberTooLong(found) from None


def _too_long_integer(text, options):
    """Where ``text`` holds an integer past Python's limit, said as a refusal; or None."""
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if not limit:  # a Python that reads integers of any length
        return None

    def integer(digits):
        count = len(digits) - digits.startswith("-")
        return _TooLong(count) if count > limit else int(digits)

    found = _first_too_long(json.loads(text, parse_int=integer, **options), "")
    if found is None:
        return None
    where, digits = found
    return (f"{where or 'the request'} is a number of {digits} digits, too long to read: a "
            f"number in a request has at most {limit} digits")
