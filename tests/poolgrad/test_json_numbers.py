"""poolgrad.json_numbers: one table of the names strict JSON needs, read by the wire and
written by the trace and the exercise checker."""

import json
import math

import numpy as np

from poolgrad import exercise_check, wire
from poolgrad.json_numbers import NON_FINITE_NAMES, NUMBER_NAMES, json_values, number_name


def test_json_values_keeps_integers_and_floats_apart():
    assert json_values(np.array([1, 2], dtype=np.int64)) == [1, 2]
    assert json_values(np.array([0.5], dtype=np.float32)) == [0.5]
    assert json_values(np.array(math.nan)) == "NaN"


def test_every_name_an_answer_writes_is_one_a_request_may_use_for_the_same_number():
    values = np.array([math.nan, math.inf, -math.inf, -0.0, 1.5])
    written = json_values(values)
    assert written[:3] == list(NON_FINITE_NAMES) and written[3:] == [-0.0, 1.5]
    assert all(number_name(v) == name for v, name in zip(values[:3], NON_FINITE_NAMES))
    assert number_name(-0.0) is None and number_name(1.5) is None
    for name, value in zip(written, values):
        back = NUMBER_NAMES.get(name, name)
        assert math.isnan(back) if math.isnan(value) else (back == value and math.copysign(1, back) == math.copysign(1, value))
    # The wire reads them, the trace and the checker write them.
    answer = json.loads(wire.run_trace(json.dumps({"x": [["NaN", "Infinity", "-Infinity", "-0"]], "kernel_size": 1})))
    assert answer["trace"]["output"] == [["NaN", "Infinity", "-Infinity", -0.0]]
    assert exercise_check._number(math.inf) == "Infinity" and exercise_check._number(-math.inf) == "-Infinity"
