"""Hostile input, tried in earnest: huge parameters, odd dtypes and shapes, signed zeros
and NaN payloads, and the trace() contract held to its exact identities."""

import functools
import json
import math
import operator
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import poolgrad
import reference
from poolgrad import exercises, picture, wire
from poolgrad.trace import MAX_TRACE_CELLS, MAX_TRACE_WINDOW_CELLS, trace
from poolgrad.geometry import geometry
from poolgrad.windows import PhaseLayout, compact

SIXTEEN = np.arange(16.0).reshape(4, 4)
HUGE = [10**6, 10**9, 2**40, 2**62, 2**63 - 1]


def _geometry_or_none(shape, params):
    try:
        return geometry(shape, params["kernel_size"], params["stride"], params["padding"],
                        params["dilation"], params["ceil_mode"])
    except ValueError:
        return None


# -- 1. the magnitude of a parameter costs nothing --------------------------------------

@pytest.mark.parametrize("stride", [10**9, 2**63 - 1])
def test_a_huge_stride_answers_at_once_at_every_entry_point(stride):
    out, indices = poolgrad.max_pool2d(SIXTEEN, 2, stride=stride, return_indices=True)
    assert out.tolist() == [[5.0]] and indices.tolist() == [[5]]
    assert poolgrad.avg_pool2d(SIXTEEN, 2, stride=stride).tolist() == [[2.5]]
    grad = poolgrad.max_pool2d_backward([[1.0]], indices, (4, 4))
    assert grad[1, 1] == 1.0 and grad.sum() == 1.0
    spread = poolgrad.avg_pool2d_backward([[4.0]], (4, 4), 2, stride=stride)
    assert spread[:2, :2].tolist() == [[1.0, 1.0], [1.0, 1.0]] and spread.sum() == 4.0
    t = trace(SIXTEEN, 2, stride=stride, grad_output=1)
    assert t["output"] == [[5.0]] and t["argmax"] == [[[1, 1]]]
    avg = trace(SIXTEEN, 2, stride=stride, mode="avg", grad_output=1)
    assert avg["output"] == [[2.5]] and avg["grad_input"][0][:2] == [0.25, 0.25]
    layer = poolgrad.MaxPool2d(2, stride=stride)
    assert layer.forward(SIXTEEN).tolist() == [[5.0]]
    assert layer.backward([[2.0]])[1, 1] == 2.0
    avg_layer = poolgrad.AvgPool2d(2, stride=stride)
    assert avg_layer.forward(SIXTEEN).tolist() == [[2.5]]
    assert avg_layer.backward([[4.0]]).sum() == 4.0
    assert exercises.max_pool2d_backward(SIXTEEN, [[1.5]], 2, stride)[1][1] == 1.5


def test_a_huge_dilation_in_ceil_mode_samples_only_the_first_cell():
    out, indices = poolgrad.max_pool2d(SIXTEEN, 2, stride=10**9, dilation=10**9,
                                       ceil_mode=True, return_indices=True)
    assert out.tolist() == [[0.0]] and indices.tolist() == [[0]]
    t = trace(SIXTEEN, 2, stride=2**63 - 1, dilation=2**62, ceil_mode=True)
    assert t["window_rows"] == [[0, 2**62]] and t["argmax"] == [[[0, 0]]]


@st.composite
def any_magnitude(draw):
    """Geometries whose stride and dilation range from 1 to 2**63 - 1."""
    height, width = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    step = st.one_of(st.integers(1, 5), st.sampled_from(HUGE))
    params = dict(kernel_size=(kh, kw), stride=(draw(step), draw(step)),
                  padding=(draw(st.integers(0, kh // 2)), draw(st.integers(0, kw // 2))),
                  dilation=(draw(step), draw(step)), ceil_mode=draw(st.booleans()))
    return (height, width), params


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(any_magnitude())
def test_the_layout_is_sized_by_the_input_and_output_never_by_the_parameters(case):
    shape, params = case
    geo = _geometry_or_none(shape, params)
    assume(geo is not None)
    small = compact(geo)
    assert small.output == geo.output and small.padding == geo.padding
    for size, pad, stride, dilation in zip(shape, geo.padding, small.stride, small.dilation):
        assert stride <= size + 2 * pad and dilation <= size + pad
    layout = PhaseLayout(small, np.float64, 0.0, planes=1)
    kh, kw = small.kernel
    assert layout.phases <= kh * kw
    assert layout.rows <= 2 * (shape[0] + 2 * geo.padding[0] + 1)
    assert layout.cols <= 2 * (shape[1] + 2 * geo.padding[1] + 1)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(any_magnitude(), st.data())
def test_huge_parameters_match_the_loop_reference(case, data):
    shape, params = case
    assume(_geometry_or_none(shape, params) is not None)
    x = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=shape[0] * shape[1],
                                    max_size=shape[0] * shape[1])), float).reshape(shape)
    out, indices = poolgrad.max_pool2d(x, return_indices=True, **params)
    expected, expected_indices = reference.max_pool2d(x, **params)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(indices, expected_indices)
    if params["dilation"] == (1, 1):
        avg = dict(params)
        del avg["dilation"]
        for cip in (True, False):
            np.testing.assert_array_equal(
                poolgrad.avg_pool2d(x, count_include_pad=cip, **avg),
                reference.avg_pool2d(x, count_include_pad=cip, **avg))
            grad = np.ones(out.shape)
            np.testing.assert_array_equal(
                poolgrad.avg_pool2d_backward(grad, shape, count_include_pad=cip, **avg),
                reference.avg_pool2d_backward(grad, shape, count_include_pad=cip, **avg))


@pytest.mark.slow
@pytest.mark.torch
@settings(max_examples=150, deadline=None)
@given(any_magnitude(), st.data())
def test_huge_parameters_match_torch(torch, case, data):
    shape, params = case
    # Beyond 32 bits torch's CPU kernel refuses ("cannot be converted to type int").
    assume(max(params["stride"] + params["dilation"]) <= 10**9)
    geo = _geometry_or_none(shape, params)
    assume(geo is not None)
    x = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=shape[0] * shape[1],
                                    max_size=shape[0] * shape[1])), float).reshape(shape)
    out, indices = poolgrad.max_pool2d(x, return_indices=True, **params)
    expected, expected_indices = torch.ops.aten.max_pool2d_with_indices(
        torch.from_numpy(x[None]), list(geo.kernel), list(geo.stride), list(geo.padding),
        list(geo.dilation), geo.ceil_mode)
    np.testing.assert_array_equal(out, expected.numpy()[0])
    np.testing.assert_array_equal(indices, expected_indices.numpy()[0])


# -- 2. every refusal is a ValueError or TypeError whose message is true -----------------

@pytest.mark.parametrize("kwargs, message", [
    ({"dilation": 2**63}, r"dilation=9223372036854775808 is too large: .* at most 2\*\*63 - 1"),
    ({"stride": 2**64}, "stride=18446744073709551616 is too large"),
    ({"stride": (1, 2**63)}, "stride=9223372036854775808 is too large"),
    ({"padding": 2**63}, "padding=9223372036854775808 is too large"),
    ({"kernel_size": 2**70}, "kernel_size=1180591620717411303424 is too large"),
])
def test_parameters_beyond_64_bits_are_a_value_error(kwargs, message):
    params = {"kernel_size": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        poolgrad.max_pool2d(SIXTEEN, **params)
    with pytest.raises(ValueError, match=message):
        trace(SIXTEEN, **params)
    answer = json.loads(wire.run_trace(json.dumps({"x": SIXTEEN.tolist(), **params})))
    assert answer.keys() == {"error"} and "too large" in answer["error"]


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.int16, np.uint8])
def test_indices_of_any_integer_dtype_route_the_gradient(dtype):
    out, indices = poolgrad.max_pool2d(SIXTEEN, 2, return_indices=True)
    expected = poolgrad.max_pool2d_backward([[1.0, 2.0], [3.0, 4.0]], indices, (4, 4))
    routed = poolgrad.max_pool2d_backward([[1.0, 2.0], [3.0, 4.0]], indices.astype(dtype),
                                          (4, 4))
    np.testing.assert_array_equal(routed, expected)


def test_object_arrays_of_real_numbers_are_pooled_as_numbers():
    floats = np.array([[1.5, 2.25], [-3.0, 0.5]], dtype=object)
    assert poolgrad.max_pool2d(floats, 2).tolist() == [[2.25]]
    fractions = np.array([[Fraction(1, 2), Fraction(3, 4)]], dtype=object)
    assert poolgrad.avg_pool2d(fractions, (1, 2)).tolist() == [[0.625]]
    decimals = [[Decimal("1.25"), 2]]
    assert poolgrad.max_pool2d(decimals, (1, 2)).tolist() == [[2.0]]
    integers = np.array([[1, 7], [3, 2]], dtype=object)
    out = poolgrad.max_pool2d(integers, 2)
    assert out.dtype == np.int64 and out.tolist() == [[7]]


def test_object_arrays_are_refused_with_a_true_message():
    with pytest.raises(ValueError, match="input holds integers outside the 64-bit range: convert"):
        poolgrad.max_pool2d(np.array([[2**70, 1]], dtype=object), 1)
    with pytest.raises(TypeError, match="input must hold numbers, got a value of type str"):
        poolgrad.max_pool2d(np.array([[1.5, "2"]], dtype=object), 1)
    with pytest.raises(ValueError, match=r"np.asarray\(grad_output, dtype=float\)"):
        poolgrad.max_pool2d_backward([[2**70]], [[0]], (1, 1))
    with pytest.raises(ValueError, match=r"got 0 values: \[\] \(a sequence holds one int or two\)"):
        poolgrad.max_pool2d(SIXTEEN, [])


def test_a_missing_channel_axis_is_named_as_such():
    with pytest.raises(ValueError, match=r"grad_output has shape \(2, 2\) but input_shape is "
                                         r"\(3, 4, 4\): .* got \(\) and \(3,\)"):
        poolgrad.max_pool2d_backward(np.ones((2, 2)), [[0, 1], [2, 3]], (3, 4, 4))


@pytest.mark.parametrize("request_, message", [
    ({"x": [[1, "abc"]], "kernel_size": 1}, 'x row 0, col 1: "abc" is not a number'),
    ({"x": [["nan"]], "kernel_size": 1}, 'x row 0, col 0: "nan" is not a number'),
    ({"x": [[1, 2]], "kernel_size": [1, 2], "grad_output": [["x"]]},
     'grad_output row 0, col 0: "x" is not a number'),
    ({"x": [[1, 2]], "kernel_size": [1, 2], "grad_output": "ones"},
     'grad_output: "ones" is not a number'),
    ({"x": ["1,2"], "kernel_size": 1}, 'x entry 0: "1,2" is not a number'),
    ({"x": [[1]]}, "mode='max' needs kernel_size"),
    ({"kernel_size": 1}, "the request needs at least x"),
    ({"x": [[1]], "mode": "lp", "kernel_size": 1, "norm_type": "two"}, 'norm_type: "two" is not a number'),
    ({"x": [[1]], "kernel_size": 1, "bogus": 1}, 'unknown setting "bogus"'),
    ({"x": [[1]], "kernel_size": 1, "count_include_pad": "garbage"},
     "count_include_pad must be True or False"),
    ({"x": [[1]], "kernel_size": 1, "mode": ["max"]}, r"mode=\['max'\] is not a pooling mode"),
    ({"x": [[[[1]]]], "kernel_size": 1}, "x must be one 2D plane"),
])
def test_the_worker_hook_answers_every_bad_request_with_a_message(request_, message):
    answer = json.loads(wire.run_trace(json.dumps(request_)))
    assert answer.keys() == {"error"}
    assert pytest.approx is not None and __import__("re").search(message, answer["error"])
    assert "Traceback" not in answer["error"]



def test_a_norm_type_beyond_a_float_is_refused_through_the_wire():
    # A 400-digit int is valid JSON; float() of it overflows, as kernel_size=10**400 is too large.
    answer = json.loads(wire.run_trace('{"x": [[1, 2]], "kernel_size": 1, "mode": "lp", '
                                       '"norm_type": 1' + "0" * 400 + "}"))
    assert answer == {"error": "norm_type is beyond a 64-bit float (more than 1.8e308 in size): use "
                               "inf for the largest |x| of each window, -inf for the smallest"}


def test_a_gradient_sum_beyond_a_float_is_the_infinity_it_rounds_to():
    for sign, name in ((1, "Infinity"), (-1, "-Infinity")):
        t = trace([[1, 2]], kernel_size=1, grad_output=[[sign * 1e308, sign * 1e308]])
        assert t["grad_output_sum"] == t["grad_input_sum"] == name
        answer = json.loads(wire.run_trace(json.dumps(
            {"x": [[1, 2]], "kernel_size": 1, "grad_output": [[sign * 1e308, sign * 1e308]]})))
        assert answer["trace"]["grad_output_sum"] == name
    # A partial sum overflows, the exact sum does not: it is the largest float.
    largest = np.finfo(np.float64).max
    t = trace([[1, 2, 3]], kernel_size=1, grad_output=[[largest, largest, -largest]])
    assert t["grad_output_sum"] == t["grad_input_sum"] == largest


def test_the_worker_hook_says_so_when_poolgrad_itself_fails(monkeypatch):
    def broken(**_):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(wire, "trace", broken)
    answer = json.loads(wire.run_trace('{"x": [[1]], "kernel_size": 1}'))
    assert answer == {"error": "poolgrad failed unexpectedly (ZeroDivisionError: division by zero); "
                               "this is a bug in poolgrad, please report it with the request"}
    monkeypatch.setattr(wire, "trace", lambda **_: {"output": object()})
    assert json.loads(wire.run_trace('{"x": [[1]], "kernel_size": 1}'))["error"].startswith(
        "poolgrad failed unexpectedly (TypeError: Object of type object is not JSON serializable)")


def test_a_pictures_request_is_answered_with_a_pair_when_poolgrad_itself_fails(monkeypatch):
    def broken(request, pixels):
        raise ZeroDivisionError("division by zero")

    # wire imports the picture's module with its first picture request, and reads run_picture there.
    monkeypatch.setattr(picture, "run_picture", broken)
    answer, planes = wire.run_trace('{"kind": "picture", "shape": [1, 1, 4], "kernel_size": 1}',
                                    bytes([1, 2, 3, 255]))
    assert json.loads(answer)["error"].startswith("poolgrad failed unexpectedly (ZeroDivisionError")
    assert planes == b""

@pytest.mark.parametrize("text, message", [
    ("{", "the request is not valid JSON"),
    ('{"x": [[NaN]], "kernel_size": 1}', "bare constant NaN"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('"x"', "must be a JSON object"),
])
def test_the_worker_hook_refuses_what_is_not_a_request(text, message):
    assert message in json.loads(wire.run_trace(text))["error"]


def test_the_worker_hook_carries_the_named_numbers_both_ways():
    request = {"x": [["-0", 0.0], ["NaN", "-Infinity"]], "kernel_size": [1, 2], "stride": 1,
               "grad_output": [["Infinity"], [1]]}
    t = json.loads(wire.run_trace(json.dumps(request)))["trace"]
    assert t["input"] == [[-0.0, 0.0], ["NaN", "-Infinity"]]
    assert math.copysign(1, t["output"][0][0]) == -1 and t["output"][1] == ["NaN"]
    assert t["grad_input"][0] == ["Infinity", 0.0]


# -- 3. the output is the input at the returned index, bit for bit -----------------------

def _nans(bits, dtype):
    return np.array(bits, {np.float64: np.uint64, np.float32: np.uint32}[dtype]).view(dtype)


SPECIAL_64 = [-0.0, 0.0, 1.0, -1.0, *_nans([0x7FF8000000000001, 0xFFF8000000000002,
                                              0x7FF0000000000003, 0xFFF4000000000004],
                                             np.float64).tolist()]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 2), st.booleans(), st.sampled_from([np.float64, np.float32]), st.data())
def test_the_output_is_the_chosen_cell_bit_for_bit(height, width, kh, kw, stride, ceil,
                                                    dtype, data):
    geo = _geometry_or_none((height, width), dict(kernel_size=(kh, kw), stride=stride,
                                                  padding=0, dilation=1, ceil_mode=ceil))
    assume(geo is not None)
    picks = data.draw(st.lists(st.integers(0, len(SPECIAL_64) - 1), min_size=height * width,
                               max_size=height * width))
    bits = np.array(SPECIAL_64)[picks].view(np.uint64)
    if dtype == np.float32:
        # float64 -> float32 keeps the sign, and a NaN's payload where it fits (a
        # signalling NaN becomes quiet, which the cast reports as "invalid").
        with np.errstate(invalid="ignore"):
            x = np.array(SPECIAL_64, np.float64).astype(np.float32)[picks].reshape(height, width)
    else:
        x = bits.view(np.float64).reshape(height, width)
    out, indices = poolgrad.max_pool2d(x, (kh, kw), stride, ceil_mode=ceil, return_indices=True)
    unsigned = {np.float64: np.uint64, np.float32: np.uint32}[dtype]
    np.testing.assert_array_equal(out.view(unsigned), x.ravel()[indices].view(unsigned))


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("values", [
    [[-0.0, 0.0]], [[0.0, -0.0]], [[-0.0, -0.0, 0.0, 1.0, -0.0]],
    [_nans([0x7FF8000000000001, 0xFFF8000000000002], np.float64).tolist()],
    [_nans([0xFFF8000000000005, 0x7FF8000000000006, 0xFFF8000000000007], np.float64).tolist()],
])
def test_signed_zeros_and_nan_signs_match_torch(torch, dtype, values):
    x = np.array(values, np.float64).astype(dtype)
    for kernel, stride in (((1, 2), (1, 1)), ((1, 2), (1, 2)), ((1, 3), (1, 1))):
        if kernel[1] > x.shape[1]:
            continue
        out, indices = poolgrad.max_pool2d(x, kernel, stride, return_indices=True)
        expected, expected_indices = torch.ops.aten.max_pool2d_with_indices(
            torch.from_numpy(x[None]), list(kernel), list(stride), [0, 0], [1, 1], False)
        unsigned = {np.float64: np.uint64, np.float32: np.uint32}[dtype]
        np.testing.assert_array_equal(out.view(unsigned), expected.numpy()[0].view(unsigned))
        np.testing.assert_array_equal(indices, expected_indices.numpy()[0])


# -- 4. shapes PyTorch accepts ------------------------------------------------------------

def test_an_empty_batch_pools_to_an_empty_batch():
    x = np.zeros((0, 3, 5, 4), np.float32)
    out, indices = poolgrad.max_pool2d(x, 2, return_indices=True)
    assert out.shape == indices.shape == (0, 3, 2, 2) and out.dtype == np.float32
    assert poolgrad.avg_pool2d(x, 2, stride=1).shape == (0, 3, 4, 3)
    assert poolgrad.max_pool2d_backward(np.zeros(out.shape), indices, x.shape).shape == x.shape
    assert poolgrad.avg_pool2d_backward(np.zeros((0, 3, 2, 2)), x.shape, 2).shape == x.shape
    layer = poolgrad.MaxPool2d(2)
    assert layer.forward(x).shape == (0, 3, 2, 2)
    assert layer.backward(np.zeros((0, 3, 2, 2))).shape == x.shape


@pytest.mark.parametrize("shape", [(0, 4, 4), (2, 0, 4, 4), (1, 1, 0, 4)])
def test_only_the_batch_may_be_empty(shape):
    with pytest.raises(ValueError, match="only the batch N of a 4-D input may be 0"):
        poolgrad.max_pool2d(np.zeros(shape), 2)


@pytest.mark.torch
def test_an_empty_batch_matches_torch(torch):
    x = torch.zeros((0, 2, 7, 6))
    for mode in ("max", "avg"):
        if mode == "max":
            expected = torch.nn.functional.max_pool2d(x, 3, 2, 1, ceil_mode=True)
            out = poolgrad.max_pool2d(x.numpy(), 3, 2, 1, ceil_mode=True)
        else:
            expected = torch.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True)
            out = poolgrad.avg_pool2d(x.numpy(), 3, 2, 1, ceil_mode=True)
        assert out.shape == tuple(expected.shape)


def test_one_element_sequences_and_an_empty_stride_read_as_pytorch_reads_them():
    np.testing.assert_array_equal(poolgrad.max_pool2d(SIXTEEN, [2]),
                                  poolgrad.max_pool2d(SIXTEEN, 2))
    np.testing.assert_array_equal(
        poolgrad.max_pool2d(SIXTEEN, [3], stride=[1], padding=[1], dilation=[2]),
        poolgrad.max_pool2d(SIXTEEN, 3, stride=1, padding=1, dilation=2))
    np.testing.assert_array_equal(poolgrad.avg_pool2d(SIXTEEN, (2,), stride=[]),
                                  poolgrad.avg_pool2d(SIXTEEN, 2))
    assert poolgrad.MaxPool2d([2]).kernel_size == (2, 2)


@pytest.mark.torch
def test_one_element_sequences_match_torch(torch):
    x = torch.from_numpy(SIXTEEN[None])
    np.testing.assert_array_equal(
        poolgrad.max_pool2d(SIXTEEN, [3], stride=[1], padding=[1], dilation=[2]),
        torch.nn.functional.max_pool2d(x, [3], stride=[1], padding=[1], dilation=[2])[0])
    np.testing.assert_array_equal(poolgrad.avg_pool2d(SIXTEEN, [2], stride=[]),
                                  torch.nn.functional.avg_pool2d(x, [2], stride=[])[0])


# -- 5. trace(): the contract's identities hold exactly ---------------------------------

def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return float(value) if isinstance(value, str) else value


def _left_to_right(terms):
    return functools.reduce(operator.add, terms, 0.0)


@st.composite
def trace_cases(draw):
    height, width = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    mode = draw(st.sampled_from(["max", "avg"]))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    dilation = (1, 1) if mode == "avg" else (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    params = dict(kernel_size=(kh, kw), stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))),
                  padding=(draw(st.integers(0, kh // 2)), draw(st.integers(0, kw // 2))),
                  dilation=dilation, ceil_mode=draw(st.booleans()))
    assume(_geometry_or_none((height, width), params) is not None)
    cells = height * width
    x = np.array(draw(st.lists(st.integers(-3, 3), min_size=cells, max_size=cells)),
                 float).reshape(height, width)
    params.update(mode=mode, count_include_pad=draw(st.booleans()))
    return x, params


# Gradients of very different magnitudes, so that additions round.
GRADIENTS = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([0.1, 1e-17, 3.0]))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(trace_cases(), st.data())
def test_trace_identities_hold_exactly(case, data):
    x, params = case
    out_h, out_w = geometry(x.shape, params["kernel_size"], params["stride"], params["padding"],
                            params["dilation"], params["ceil_mode"]).output
    grad = np.array(data.draw(st.lists(GRADIENTS, min_size=out_h * out_w,
                                       max_size=out_h * out_w))).reshape(out_h, out_w)
    t = json.loads(json.dumps(trace(x, grad_output=grad, **params), allow_nan=False))
    for r, row in enumerate(t["grad_terms"]):
        for c, terms in enumerate(row):
            assert _left_to_right(terms) == t["grad_input"][r][c]
    all_terms = [term for row in t["grad_terms"] for terms in row for term in terms]
    assert t["grad_input_sum"] == math.fsum(all_terms)
    assert t["grad_output_sum"] == math.fsum(grad.ravel().tolist())
    mode = params.pop("mode")
    cip = params.pop("count_include_pad")
    if mode == "max":
        assert t["grad_output_sum"] == t["grad_input_sum"]
        for i, row in enumerate(t["argmax"]):
            for j, (r, c) in enumerate(row):
                assert t["output"][i][j] == t["input"][r][c]
        _, indices = poolgrad.max_pool2d(x, return_indices=True, **params)
        expected = poolgrad.max_pool2d_backward(grad, indices, x.shape)
    else:
        del params["dilation"]
        expected = poolgrad.avg_pool2d_backward(grad, x.shape, count_include_pad=cip, **params)
    # The trace's gradient is the backward pass's, bit for bit.
    np.testing.assert_array_equal(np.array(t["grad_input"]), expected)


@settings(max_examples=100, deadline=None)
@given(trace_cases())
def test_trace_identities_survive_non_finite_gradients(case):
    x, params = case
    t = trace(x, grad_output=math.inf, **params)
    json.dumps(t, allow_nan=False)
    if params["mode"] == "max":
        assert t["grad_output_sum"] == t["grad_input_sum"] == "Infinity"


@pytest.mark.parametrize("dtype", [np.longdouble, np.float16, np.float32, np.uint64, np.int8])
def test_trace_of_any_numeric_dtype_is_strict_json(dtype):
    x = np.array([[1, 2, 3], [4, 5, 6]]).astype(dtype)
    for mode in ("max", "avg"):
        t = trace(x, 2, stride=1, mode=mode, grad_output=np.ones((1, 2), np.longdouble))
        back = json.loads(json.dumps(t, allow_nan=False))
        assert back["output"] == ([[5, 6]] if mode == "max" else [[3.0, 4.0]])


def test_count_include_pad_is_checked_in_both_modes():
    for mode in ("max", "avg"):
        with pytest.raises(TypeError, match="count_include_pad must be True or False"):
            trace(SIXTEEN, 2, mode=mode, count_include_pad="garbage")


# -- 6. trace() has a ceiling of its own ------------------------------------------------

def test_trace_refuses_a_plane_beyond_its_ceiling_and_says_what_to_use():
    assert MAX_TRACE_CELLS == 64 * 64
    assert trace(np.zeros((64, 64)), 2)["output_shape"] == [32, 32]
    with pytest.raises(ValueError, match=r"x has 65 x 64 = 4160 cells, too many for trace\(\): "
                                         r"it describes at most 4096 cells \(64 x 64\); pool "
                                         "larger planes with max_pool2d / avg_pool2d"):
        trace(np.zeros((65, 64)), 2)
    with pytest.raises(ValueError, match="too many for trace"):
        trace(np.zeros((1024, 1024)), 2, mode="avg", grad_output=1)


def test_trace_refuses_an_output_beyond_its_ceiling_in_every_mode():
    assert trace(np.zeros((2, 2)), mode="adaptive_avg", output_size=64)["output_shape"] == [64, 64]
    for mode in ("adaptive_avg", "adaptive_max"):
        with pytest.raises(ValueError, match=r"the output would have 65 x 65 = 4225 cells, too many "
                                             r"for trace\(\): it describes at most 4096 cells \(64 x 64\); "
                                             r"use a smaller output_size, or pool with "
                                             "adaptive_avg_pool2d / adaptive_max_pool2d"):
            trace(np.zeros((2, 2)), mode=mode, output_size=65)
        answer = json.loads(wire.run_trace(json.dumps({"x": [[1, 2], [3, 4]], "mode": mode,
                                                       "output_size": [1, 4097]})))
        assert answer["error"].startswith("the output would have 1 x 4097 = 4097 cells, too many")
    # Padding makes a 64 x 64 plane's output one line longer on each side.
    with pytest.raises(ValueError, match=r"the output would have 65 x 65 = 4225 cells, too many for "
                                         r"trace\(\): .* use a larger kernel or stride, or pool with "
                                         "max_pool2d / avg_pool2d"):
        trace(np.zeros((64, 64)), 2, stride=1, padding=1)

def test_trace_refuses_too_many_window_cells():
    # 64 x 64 with 33 x 33 windows, stride 1, padding 16: 64 x 64 outputs of 1089 cells.
    with pytest.raises(ValueError, match=r"64 x 64 outputs with 33 x 33 windows are too many "
                                         r"window cells for trace\(\) \(4460544; at most 262144\)"):
        trace(np.zeros((64, 64)), 33, stride=1, padding=16, mode="avg")
    assert MAX_TRACE_WINDOW_CELLS == 2**18
    # The widget's largest view (16 x 16, kernel 16, padding 8, stride 1) fits.
    t = trace(np.zeros((16, 16)), 16, stride=1, padding=8, mode="avg", grad_output=1)
    assert t["output_shape"] == [17, 17]
