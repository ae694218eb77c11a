"""Numbers as strict JSON carries them: the one table of the names that stand for the
numbers JSON cannot write, and the encoders that use it.

Strict JSON has no NaN, infinities or negative zero, and ``JSON.parse`` rejects Python's
``NaN`` token, so they travel as the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``
(what JavaScript's ``Number()`` turns back into the numbers) and, in a request,
``"-0"``. :mod:`poolgrad.wire` reads requests with the table; :func:`poolgrad.trace`
and :mod:`poolgrad.exercise_check` write their answers with the encoders.
"""

from __future__ import annotations

import math

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
