"""avg_pool2d and its backward: the lesson's example, divisors, the loop reference,
finite differences and PyTorch."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import poolgrad
import reference
from poolgrad.avg_pool import divisors
from poolgrad.geometry import geometry

EXAMPLE = [[12, 10, 9, 6], [11, 8, 13, 5], [2, 14, 15, 0], [4, 3, 7, 1]]


def test_lesson_example_outputs_and_gradient_spread():
    assert poolgrad.avg_pool2d(EXAMPLE, 2).tolist() == [[10.25, 8.25], [5.75, 5.75]]
    grad = poolgrad.avg_pool2d_backward([[1, 2], [3, 4]], (4, 4), 2)
    assert grad.tolist() == [[0.25, 0.25, 0.5, 0.5], [0.25, 0.25, 0.5, 0.5],
                             [0.75, 0.75, 1.0, 1.0], [0.75, 0.75, 1.0, 1.0]]


def test_divisors_count_padding_unless_told_not_to():
    g = geometry((3, 3), 3, stride=1, padding=1)
    assert divisors(g).tolist() == [[9] * 3] * 3
    assert divisors(g, count_include_pad=False).tolist() == [[4, 6, 4], [6, 9, 6], [4, 6, 4]]
    assert divisors(g).dtype == np.int64


def test_ceil_mode_window_past_the_padding_divides_by_what_it_covers():
    # 5 wide, k=3, s=2, p=1, ceil: windows start at -1, 1, 3; the last covers 3, 4, 5
    # where 5 is the right padding: 3 cells. A 4-wide input with k=2, s=3, ceil: the
    # second window starts at 3 and hangs past the input (no padding): 1 cell.
    assert divisors(geometry((5, 5), 3, 2, 1, ceil_mode=True))[0].tolist() == [9, 9, 9]
    assert divisors(geometry((1, 4), (1, 2), (1, 3), ceil_mode=True)).tolist() == [[2, 1]]
    out = poolgrad.avg_pool2d([[1.0, 2.0, 3.0, 4.0]], (1, 2), (1, 3), ceil_mode=True)
    assert out.tolist() == [[1.5, 4.0]]


def test_count_include_pad_false_averages_inside_cells_only():
    x = [[1.0, 2.0], [3.0, 4.0]]
    assert poolgrad.avg_pool2d(x, 2, 1, 1).tolist()[0] == [0.25, 0.75, 0.5]
    assert poolgrad.avg_pool2d(x, 2, 1, 1, count_include_pad=False).tolist()[0] == [
        1.0, 1.5, 2.0]


@pytest.mark.parametrize("dtype, result", [
    (np.float16, np.float16), (np.float32, np.float32), (np.float64, np.float64),
    (np.int8, np.float64), (np.int32, np.float64), (np.int64, np.float64),
    (np.uint8, np.float64)])
def test_average_pooling_returns_floating_point(dtype, result):
    x = (np.arange(16) % 5).reshape(4, 4).astype(dtype)
    out = poolgrad.avg_pool2d(x, 2)
    assert out.dtype == result
    np.testing.assert_allclose(out, reference.avg_pool2d(x, 2), rtol=1e-3)


def test_backward_dtype_follows_the_gradient():
    for dtype, result in ((np.float32, np.float32), (np.float16, np.float16),
                          (np.int64, np.float64)):
        grad = poolgrad.avg_pool2d_backward(np.ones((2, 2), dtype), (4, 4), 2)
        assert grad.dtype == result


def test_avg_pool_refuses_dilation_style_arguments_and_bad_flags():
    with pytest.raises(TypeError, match="count_include_pad must be True or False"):
        poolgrad.avg_pool2d(EXAMPLE, 2, count_include_pad=None)
    with pytest.raises(ValueError, match="padding=2 is too large for kernel_size=2"):
        poolgrad.avg_pool2d(EXAMPLE, 2, padding=2)


def test_divisor_override_divides_every_window_by_it():
    # torch.nn.functional.avg_pool2d(x, 2, divisor_override=3) on the example: the sums
    # 41, 33, 23, 23 over 3; padding and ceil mode change what is summed, not the divisor.
    out = poolgrad.avg_pool2d(EXAMPLE, 2, divisor_override=3)
    np.testing.assert_array_equal(out, np.array([[41, 33], [23, 23]]) / 3.0)
    padded = poolgrad.avg_pool2d([[1.0, 2.0], [3.0, 4.0]], 2, 1, 1, divisor_override=2,
                                 count_include_pad=False)
    assert padded.tolist()[0] == [0.5, 1.5, 1.0]
    assert poolgrad.avg_pool2d(EXAMPLE, 2, divisor_override=-1).tolist() == [[-41, -33], [-23, -23]]
    grad = poolgrad.avg_pool2d_backward([[1.0, 2.0]], (2, 4), 2, divisor_override=4)
    assert grad.tolist() == [[0.25, 0.25, 0.5, 0.5]] * 2
    layer = poolgrad.AvgPool2d(2, divisor_override=1)
    assert layer(EXAMPLE).tolist() == [[41, 33], [23, 23]]
    assert layer.backward([[1, 2], [3, 4]]).tolist()[0] == [1.0, 1.0, 2.0, 2.0]


@pytest.mark.parametrize("value, error, message", [
    (0, ValueError, "divisor_override must not be 0"),
    (2.0, TypeError, "divisor_override must be an int or None, got 2.0 of type float"),
    (True, TypeError, "divisor_override must be an int or None, got True of type bool"),
    (2**63, ValueError, "divisor_override=9223372036854775808 is too large"),
])
def test_divisor_override_is_a_nonzero_int_as_in_torch(value, error, message):
    for call in (lambda: poolgrad.avg_pool2d(EXAMPLE, 2, divisor_override=value),
                 lambda: poolgrad.avg_pool2d_backward(np.ones((2, 2)), (4, 4), 2,
                                                      divisor_override=value),
                 lambda: poolgrad.AvgPool2d(2, divisor_override=value)):
        with pytest.raises(error, match=message):
            call()


@pytest.mark.parametrize("grad, shape, error, message", [
    (np.ones((2, 3)), (4, 4), ValueError,
     r"grad_output has shape \(2, 3\) but avg_pool2d's output for input_shape=\(4, 4\) "
     r"has shape \(2, 2\)"),
    (np.ones((2, 2)), (2, 4, 4), ValueError, r"has shape \(2, 2, 2\)"),
    (np.ones((2, 2)), (10**5, 10**5), ValueError, "input_shape=.* is too large"),
    (np.ones((2, 2)), (4,), ValueError, "input_shape must be 2-D"),
    ([[1, 2], [3]], (4, 4), ValueError, "grad_output has ragged rows"),
    ([[None, 1], [1, 1]], (4, 4), TypeError, "grad_output must hold numbers"),
])
def test_backward_refuses_inconsistent_input(grad, shape, error, message):
    with pytest.raises(error, match=message):
        poolgrad.avg_pool2d_backward(grad, shape, 2)


# -- the loop reference and finite differences ----------------------------------------

@st.composite
def avg_cases(draw):
    height, width = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    leading = draw(st.sampled_from([(), (2,), (1, 2)]))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    params = dict(kernel_size=(kh, kw),
                  stride=draw(st.one_of(st.none(), st.tuples(st.integers(1, 4),
                                                             st.integers(1, 4)))),
                  padding=(draw(st.integers(0, kh // 2)), draw(st.integers(0, kw // 2))),
                  ceil_mode=draw(st.booleans()),
                  count_include_pad=draw(st.booleans()),
                  divisor_override=draw(st.one_of(st.none(), st.none(),
                                                  st.integers(-9, 9).filter(bool))))
    shape = leading + (height, width)
    values = draw(st.lists(st.floats(-50, 50), min_size=int(np.prod(shape)),
                           max_size=int(np.prod(shape))))
    return np.array(values).reshape(shape), params


def _output_shape(x, params):
    try:
        g = geometry(x.shape[-2:], params["kernel_size"], params["stride"],
                     params["padding"], 1, params["ceil_mode"])
    except ValueError:
        return None
    return x.shape[:-2] + g.output


@settings(max_examples=150, deadline=None)
@given(avg_cases(), st.data())
def test_forward_and_backward_match_the_loop_reference_exactly(case, data):
    x, params = case
    shape = _output_shape(x, params)
    assume(shape is not None)  # an invalid draw is discarded, not counted as a pass
    np.testing.assert_array_equal(poolgrad.avg_pool2d(x, **params),
                                  reference.avg_pool2d(x, **params))
    grad = np.array(data.draw(st.lists(st.floats(-5, 5), min_size=int(np.prod(shape)),
                                       max_size=int(np.prod(shape))))).reshape(shape)
    np.testing.assert_array_equal(poolgrad.avg_pool2d_backward(grad, x.shape, **params),
                                  reference.avg_pool2d_backward(grad, x.shape, **params))


@settings(max_examples=40, deadline=None)
@given(avg_cases())
def test_backward_matches_finite_differences(case):
    x, params = case
    shape = _output_shape(x, params)
    assume(shape is not None)  # an invalid draw is discarded, not counted as a pass
    rng = np.random.default_rng(0)
    grad = rng.standard_normal(shape)
    analytic = poolgrad.avg_pool2d_backward(grad, x.shape, **params)
    step = 1e-3
    numeric = np.empty_like(x)
    for cell in np.ndindex(x.shape):
        bump = np.zeros_like(x)
        bump[cell] = step
        up = (poolgrad.avg_pool2d(x + bump, **params) * grad).sum()
        down = (poolgrad.avg_pool2d(x - bump, **params) * grad).sum()
        numeric[cell] = (up - down) / (2 * step)
    np.testing.assert_allclose(analytic, numeric, atol=1e-6)


# -- PyTorch ----------------------------------------------------------------------------

@pytest.mark.torch
@settings(max_examples=150, deadline=None)
@given(avg_cases(), st.sampled_from(["float32", "float64", "float16"]), st.data())
def test_matches_torch_bit_for_bit(torch, case, dtype, data):
    x, params = case
    shape = _output_shape(x, params)
    assume(shape is not None)  # an invalid draw is discarded, not counted as a pass
    x = x.astype(dtype)
    kernel = params["kernel_size"]
    args = (list(kernel), list(params["stride"] or kernel), list(params["padding"]),
            params["ceil_mode"], params["count_include_pad"], params["divisor_override"])
    planes = torch.from_numpy(x.reshape((-1,) + x.shape[-2:]))
    expected = torch.ops.aten.avg_pool2d(planes, *args)
    out = poolgrad.avg_pool2d(x, **params)
    assert out.dtype == expected.numpy().dtype
    np.testing.assert_array_equal(out.reshape(expected.shape), expected.numpy())
    grad = np.array(data.draw(st.lists(st.floats(-4, 4, width=16), min_size=out.size,
                                       max_size=out.size))).astype(dtype).reshape(shape)
    expected_grad = torch.ops.aten.avg_pool2d_backward(
        torch.from_numpy(grad.reshape(expected.shape)), planes, *args)
    np.testing.assert_array_equal(
        poolgrad.avg_pool2d_backward(grad, x.shape, **params).reshape(expected_grad.shape),
        expected_grad.numpy())


@pytest.mark.torch
def test_matches_torch_on_a_large_random_batch(torch):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 40, 33, 31)).astype(np.float32)
    for k, s, p, ceil, cip in [(3, 2, 1, False, True), (2, 2, 0, True, True),
                               (3, 1, 1, True, False)]:
        args = ([k, k], [s, s], [p, p], ceil, cip)
        expected = torch.ops.aten.avg_pool2d(torch.from_numpy(x), *args)
        out = poolgrad.avg_pool2d(x, k, s, p, ceil, cip)
        np.testing.assert_array_equal(out, expected.numpy())
        grad = rng.standard_normal(out.shape).astype(np.float32)
        expected_grad = torch.ops.aten.avg_pool2d_backward(
            torch.from_numpy(grad), torch.from_numpy(x), *args, None)
        np.testing.assert_array_equal(
            poolgrad.avg_pool2d_backward(grad, x.shape, k, s, p, ceil, cip),
            expected_grad.numpy())
