"""trace(): the widget's one source of truth, checked against the pooling functions."""

import functools
import json
import operator
import math

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

import poolgrad
import poolgrad.geometry
from poolgrad.trace import trace

FIXTURE = [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]]
AVG_EXAMPLE = [[12, 10, 9, 6], [11, 8, 13, 5], [2, 14, 15, 0], [4, 3, 7, 1]]


def decode(value):
    """What the browser does: JSON numbers stay, the non-finite names become floats."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    return float(value) if isinstance(value, str) else value


def test_fixture_2x2_stride_2_outputs_argmax_and_gradient_landing():
    t = trace(FIXTURE, 2, stride=2, grad_output=[[1, 2], [3, 4]])
    assert t["output"] == [[4, 8], [9, -2]]
    assert t["indices"] == [[5, 6], [13, 11]]
    assert t["argmax"] == [[[1, 1], [1, 2]], [[3, 1], [2, 3]]]
    flat = [v for row in t["grad_input"] for v in row]
    assert {i: v for i, v in enumerate(flat) if v} == {5: 1.0, 6: 2.0, 13: 3.0, 11: 4.0}
    assert t["grad_output_sum"] == t["grad_input_sum"] == 10.0
    assert t["sources"][1][1] == [[0, 0]] and t["sources"][0][0] == []


def test_fixture_3x3_stride_1_shared_cell_adds_up():
    t = trace(FIXTURE, 3, stride=1, grad_output=[[1, 2], [3, 4]])
    assert t["output"] == [[8, 8], [9, 9]]
    assert t["sources"][1][2] == [[0, 0], [0, 1]]
    assert t["sources"][3][1] == [[1, 0], [1, 1]]
    assert t["grad_terms"][1][2] == [1.0, 2.0] and t["grad_input"][1][2] == 3.0
    assert t["grad_terms"][3][1] == [3.0, 4.0] and t["grad_input"][3][1] == 7.0


@pytest.mark.parametrize("k, s, side", [(2, 2, 2), (3, 1, 2), (2, 1, 3), (4, 1, 1),
                                        (1, 1, 4), (3, 2, 1), (1, 3, 2)])
def test_output_sides_and_size_formula_on_the_fixture(k, s, side):
    t = trace(FIXTURE, k, stride=s)
    assert t["output_shape"] == [side, side]
    rows = t["size_formula"]["rows"]
    assert rows == {"n": 4, "k": k, "s": s, "p": 0, "d": 1, "ceil": False,
                    "numerator": 4 - (k - 1) - 1, "by_formula": side, "size": side, "dropped_last": False}


def test_average_example_spreads_the_gradient():
    t = trace(AVG_EXAMPLE, 2, mode="avg", grad_output=[[1, 2], [3, 4]])
    assert t["output"] == [[10.25, 8.25], [5.75, 5.75]]
    assert t["divisor"] == [[4, 4], [4, 4]]
    assert "argmax" not in t and "indices" not in t
    assert t["grad_input"] == [[0.25, 0.25, 0.5, 0.5], [0.25, 0.25, 0.5, 0.5],
                               [0.75, 0.75, 1.0, 1.0], [0.75, 0.75, 1.0, 1.0]]
    assert t["sources"][2][3] == [[1, 1]] and t["grad_terms"][2][3] == [1.0]


def test_avg_padding_counts_padded_cells_unless_told_not_to():
    x = [[1.0, 2.0], [3.0, 4.0]]
    with_pad = trace(x, 2, stride=1, padding=1, mode="avg", grad_output=np.ones((3, 3)))
    without = trace(x, 2, stride=1, padding=1, mode="avg", grad_output=np.ones((3, 3)),
                    count_include_pad=False)
    assert with_pad["divisor"][0][0] == 4 and without["divisor"][0][0] == 1
    assert with_pad["output"][0][0] == 0.25 and without["output"][0][0] == 1.0
    assert with_pad["pad_value"] == 0
    # Counting padding, each of the 4 cells gets 1/4 from the 4 windows covering it:
    # the padded cells keep the rest of the 9. Not counting it, every window hands on
    # its whole gradient.
    assert with_pad["grad_input_sum"] == 4.0
    assert without["grad_input_sum"] == pytest.approx(9.0)


def test_windows_with_padding_and_dilation_use_unpadded_coordinates():
    t = trace(np.arange(25).reshape(5, 5), 3, stride=2, padding=1, dilation=2)
    assert t["window_rows"] == [[-1, 1, 3], [1, 3, 5]]
    assert t["window_cols"] == t["window_rows"]
    assert t["argmax"][1][1] == [3, 3] and t["indices"][1][1] == 18


def test_ceil_mode_reports_the_dropped_window():
    t = trace(np.zeros((5, 5)), 2, stride=2, padding=1, ceil_mode=True)
    assert t["size_formula"]["rows"]["numerator"] == 5
    assert t["size_formula"]["rows"]["size"] == 3
    assert t["size_formula"]["rows"]["dropped_last"] is True


def test_nan_and_infinities_survive_strict_json():
    t = trace([[math.nan, 1.0], [-math.inf, math.inf]], 1, grad_output=[[1, 2], [3, 4]])
    text = json.dumps(t, allow_nan=False)
    back = json.loads(text)
    assert back["input"] == [["NaN", 1.0], ["-Infinity", "Infinity"]]
    assert back["pad_value"] == "-Infinity"


@pytest.mark.parametrize("kwargs, error, message", [
    ({"mode": "min"}, ValueError, "mode='min' is not a pooling mode"),
    ({"mode": "avg", "dilation": 2}, ValueError, "dilation=2 is not available for average"),
    ({"grad_output": [[1, 2, 3]]}, ValueError, r"grad_output must have the output's shape \(2, 2\)"),
])
def test_bad_requests_name_what_is_wrong(kwargs, error, message):
    with pytest.raises(error, match=message):
        trace(FIXTURE, 2, **kwargs)


def test_a_number_as_grad_output_is_every_output_cell_s_gradient():
    t = trace(FIXTURE, 2, stride=1, grad_output=1)
    assert t["grad_output"] == [[1.0] * 3] * 3
    assert t["grad_input_sum"] == 9.0
    with pytest.raises(TypeError, match="grad_output"):
        trace(FIXTURE, 2, grad_output="ones")


def test_trace_takes_one_plane_only():
    with pytest.raises(ValueError, match="x must be one 2D plane"):
        trace([FIXTURE], 2)


@st.composite
def cases(draw):
    height, width = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    mode = draw(st.sampled_from(["max", "avg"]))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    dh, dw = (1, 1) if mode == "avg" else (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    ph, pw = draw(st.integers(0, kh // 2)), draw(st.integers(0, kw // 2))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    ceil = draw(st.booleans())
    cip = draw(st.booleans())
    values = draw(st.lists(st.integers(-3, 3), min_size=height * width,
                           max_size=height * width))
    x = np.array(values, dtype=np.float64).reshape(height, width)
    return x, dict(kernel_size=(kh, kw), stride=(sh, sw), padding=(ph, pw),
                   dilation=(dh, dw), ceil_mode=ceil, mode=mode, count_include_pad=cip)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(cases(), st.data())
def test_trace_agrees_with_the_pooling_functions(case, data):
    x, params = case
    try:
        geo = poolgrad.geometry.geometry(x.shape, params["kernel_size"], params["stride"],
                                           params["padding"], params["dilation"],
                                           params["ceil_mode"])
    except ValueError:
        reject()  # an invalid draw is discarded, not counted as a pass
    out_h, out_w = geo.output
    grad = np.array(data.draw(st.lists(st.integers(-4, 4), min_size=out_h * out_w,
                                       max_size=out_h * out_w)),
                    dtype=np.float64).reshape(out_h, out_w)
    t = json.loads(json.dumps(trace(x, grad_output=grad, **params), allow_nan=False))
    mode = params.pop("mode")
    cip = params.pop("count_include_pad")
    if mode == "max":
        out, idx = poolgrad.max_pool2d(x, return_indices=True, **params)
        np.testing.assert_array_equal(decode(t["output"]), out)
        np.testing.assert_array_equal(t["indices"], idx)
        expected_grad = poolgrad.max_pool2d_backward(grad, idx, x.shape)
    else:
        del params["dilation"]
        out = poolgrad.avg_pool2d(x, count_include_pad=cip, **params)
        np.testing.assert_allclose(decode(t["output"]), out)
        expected_grad = poolgrad.avg_pool2d_backward(grad, x.shape, count_include_pad=cip,
                                                     **params)
    np.testing.assert_allclose(decode(t["grad_input"]), expected_grad, atol=1e-12)

    height, width = x.shape
    for r in range(height):
        for c in range(width):
            # The terms listed for a cell add up to its gradient, one per source.
            assert len(t["grad_terms"][r][c]) == len(t["sources"][r][c])
            assert sum(t["grad_terms"][r][c]) == pytest.approx(t["grad_input"][r][c])
            for i, j in t["sources"][r][c]:
                # A source's window really samples the cell.
                assert r in t["window_rows"][i] and c in t["window_cols"][j]
                if mode == "max":
                    assert t["argmax"][i][j] == [r, c]
    if mode == "max":
        assert t["grad_input_sum"] == pytest.approx(t["grad_output_sum"])


def test_trace_states_the_ties_and_the_formulas_count():
    # Ties: every window cell holding the maximum, the winner (the argmax) first; a NaN
    # maximum ties with nothing. The front end reads these instead of re-deriving them.
    t = poolgrad.trace([[3, 3, 1, 0], [2, 3, 3, 1], [0, 1, 2, 2], [1, 0, 2, 1]], 2)
    assert t["tied"] == [[[[0, 0], [0, 1], [1, 1]], [[1, 2]]], [[[2, 1], [3, 0]], [[2, 2], [2, 3], [3, 2]]]]
    assert all(t["tied"][i][j][0] == t["argmax"][i][j] for i in range(2) for j in range(2))
    nan = poolgrad.trace([[1.0, np.nan], [2.0, 2.0]], 2, stride=1, padding=1)
    assert nan["tied"][0][1] == [] and nan["output"][0][1] == "NaN"
    assert nan["tied"][2][1] == [[1, 0], [1, 1]]
    # Ceil mode: the formula counts 4 windows on 5 cells with k=2, s=2, p=1, the last one
    # would start in the padding and is dropped.
    rows = poolgrad.trace(np.arange(25.0).reshape(5, 5), 2, padding=1, ceil_mode=True)["size_formula"]["rows"]
    assert (rows["by_formula"], rows["size"], rows["dropped_last"]) == (4, 3, True)
    assert "tied" not in poolgrad.trace(np.ones((2, 2)), 2, mode="avg")


# -- the pooling family's modes ---------------------------------------------------------

def _left_to_right(terms):
    # float() reads the strict-JSON names ("NaN", "Infinity") back.
    return functools.reduce(operator.add, map(float, terms), 0.0)


@pytest.mark.parametrize("shape, output_size", [((5, 5), 3), ((2, 3), (5, 4)), ((4, 6), (None, 4)),
                                                ((3, 3), 1), ((7, 5), (3, 2))])
def test_adaptive_traces_describe_windows_that_vary_and_share_cells(shape, output_size):
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-3, 4, shape).astype(float)
    for mode in ("adaptive_avg", "adaptive_max"):
        t = poolgrad.trace(x, mode=mode, output_size=output_size, grad_output=rng.standard_normal(
            poolgrad.geometry.adaptive_output(shape, output_size)))
        json.dumps(t, allow_nan=False)
        out_h, out_w = t["output_shape"]
        assert t["kernel_size"] is None and t["output_size"] == [out_h, out_w]
        for i, rows in enumerate(t["window_rows"]):
            for j, cols in enumerate(t["window_cols"]):
                assert t["window_size"][i][j] == len(rows) * len(cols)
        shared = np.zeros(shape, int)
        for rows in t["window_rows"]:
            for cols in t["window_cols"]:
                shared[np.ix_(rows, cols)] += 1
        assert t["shared"] == shared.tolist()
        for r in range(shape[0]):
            for c in range(shape[1]):
                assert _left_to_right(t["grad_terms"][r][c]) == t["grad_input"][r][c]
        if mode == "adaptive_max":
            assert all(t["tied"][i][j][0] == t["argmax"][i][j] or np.isnan(t["output"][i][j])
                       for i in range(out_h) for j in range(out_w) if t["tied"][i][j])
        else:
            assert t["divisor"] == t["window_size"]
            expected_sources = [[sorted([i, j] for i, rows in enumerate(t["window_rows"]) if r in rows
                                        for j, cols in enumerate(t["window_cols"]) if c in cols)
                                 for c in range(shape[1])] for r in range(shape[0])]
            assert t["sources"] == expected_sources


def test_five_into_three_shares_the_middle_lines():
    t = poolgrad.trace(np.arange(25.0).reshape(5, 5), mode="adaptive_avg", output_size=3)
    assert t["window_bounds"]["rows"] == [[0, 2], [1, 4], [3, 5]]
    assert [row.count(4) for row in t["shared"]] == [0, 2, 0, 2, 0]
    assert t["divisor"][0] == [4, 6, 4]


def test_unpooling_in_the_max_modes_writes_each_output_once():
    fixture = [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]]
    t = poolgrad.trace(fixture, 3, stride=1, unpool=True, grad_output=1)
    assert t["unpooled"] == [[0, 0, 0, 0], [0, 0, 8, 0], [0, 0, 0, 0], [0, 9, 0, 0]]
    assert t["grad_input"][1][2] == 2.0  # the gradient adds what unpooling writes once
    t = poolgrad.trace([[1, 5, 2, 4, 3]], mode="adaptive_max", output_size=(1, 3), unpool=True)
    assert t["unpooled"] == [[0, 5, 0, 4, 0]]
    out, indices = poolgrad.max_pool2d(np.array(fixture), 2, return_indices=True)
    assert poolgrad.trace(fixture, 2, unpool=True)["unpooled"] == poolgrad.max_unpool2d(
        out, indices, 2).tolist()


@pytest.mark.parametrize("p", [1, 2, 3, float("inf")])
def test_lp_traces_split_the_gradient_into_shares_and_a_factor(p):
    rng = np.random.default_rng(int(p) if p != float("inf") else 9)
    x = rng.integers(-3, 4, (5, 6)).astype(float)
    t = poolgrad.trace(x, 2, stride=(1, 2), mode="lp", norm_type=p, ceil_mode=True,
                       grad_output=1.5)
    json.dumps(t, allow_nan=False)
    np.testing.assert_array_equal(
        np.array(t["output"], dtype=float),
        poolgrad.lp_pool2d(x, p, 2, (1, 2), ceil_mode=True))
    for r in range(5):
        for c in range(6):
            total = _left_to_right(t["grad_terms"][r][c]) * float(t["grad_factor"][r][c])
            expected = float(t["grad_input"][r][c])
            assert total == expected or (np.isnan(total) and np.isnan(expected))


@pytest.mark.parametrize("kwargs, message", [
    (dict(mode="adaptive_avg", output_size=2, kernel_size=2), "kernel_size does not apply"),
    (dict(mode="adaptive_max", output_size=2, stride=1, padding=1),
     "stride, padding do not apply to mode='adaptive_max'"),
    (dict(mode="adaptive_avg"), "needs output_size"),
    (dict(mode="max"), "mode='max' needs kernel_size"),
    (dict(mode="avg", kernel_size=2, unpool=True), "unpool applies to the max modes"),
    (dict(mode="lp", kernel_size=2), "mode='lp' needs norm_type"),
    (dict(mode="lp", kernel_size=2, norm_type=0), "norm_type must not be 0"),
    (dict(mode="max", kernel_size=2, norm_type=2), "norm_type applies to mode='lp' only"),
    (dict(mode="avg", kernel_size=2, output_size=2), "output_size applies to the adaptive modes"),
    (dict(mode="lp", kernel_size=2, norm_type=2, padding=1), "lp_pool2d has no padding"),
    (dict(mode="adaptive_avg", output_size=0), "output_size must have sides of at least 1"),
])
def test_family_modes_refuse_what_does_not_apply(kwargs, message):
    with pytest.raises(ValueError, match=message):
        poolgrad.trace(np.ones((4, 4)), **kwargs)
