"""max_pool2d and its backward: the lesson's numbers, the loop reference, PyTorch."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import poolgrad
import reference

FIXTURE = np.array([[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]])


# -- the reference facts --------------------------------------------------------------

def test_fixture_2x2_stride_2_outputs_and_cells():
    out, indices = poolgrad.max_pool2d(FIXTURE, 2, 2, return_indices=True)
    assert out.tolist() == [[4, 8], [9, -2]]
    assert indices.tolist() == [[5, 6], [13, 11]]


def test_fixture_gradients_land_on_the_chosen_cells_only():
    _, indices = poolgrad.max_pool2d(FIXTURE, 2, return_indices=True)
    grad = poolgrad.max_pool2d_backward([[1.0, 2.0], [3.0, 4.0]], indices, (4, 4))
    expected = np.zeros(16)
    expected[[5, 6, 13, 11]] = [1, 2, 3, 4]
    assert grad.ravel().tolist() == expected.tolist()


def test_fixture_3x3_stride_1_two_outputs_share_a_cell():
    out, indices = poolgrad.max_pool2d(FIXTURE, 3, 1, return_indices=True)
    assert out.tolist() == [[8, 8], [9, 9]]
    assert indices.tolist() == [[6, 6], [13, 13]]
    grad = poolgrad.max_pool2d_backward([[1.0, 2.0], [3.0, 4.0]], indices, (4, 4))
    assert grad.ravel()[6] == 3.0 and grad.ravel()[13] == 7.0 and grad.sum() == 10.0


@pytest.mark.parametrize("k, s, side", [(2, 2, 2), (3, 1, 2), (2, 1, 3), (4, 1, 1),
                                        (1, 1, 4), (3, 2, 1), (1, 3, 2)])
def test_fixture_output_sides(k, s, side):
    assert poolgrad.max_pool2d(FIXTURE, k, s).shape == (side, side)


# -- semantics ------------------------------------------------------------------------

def test_ties_go_to_the_first_cell_in_row_major_order():
    x = [[1, 7, 7], [7, 2, 7]]
    _, indices = poolgrad.max_pool2d(x, (2, 3), return_indices=True)
    assert indices.tolist() == [[1]]
    _, indices = poolgrad.max_pool2d(np.full((3, 3), 4.0), 2, 1, return_indices=True)
    assert indices.tolist() == [[0, 1], [3, 4]]


def test_nan_wins_and_points_at_the_last_nan_as_torch_does():
    nan = np.nan
    x = np.array([[1.0, nan, 3.0], [nan, 9.0, nan], [0.0, 0.0, 0.0]])
    out, indices = poolgrad.max_pool2d(x, 3, return_indices=True)
    assert np.isnan(out[0, 0]) and indices.tolist() == [[5]]
    out, indices = poolgrad.max_pool2d(np.array([[nan, 5.0], [1.0, 2.0]]), 2,
                                       return_indices=True)
    assert np.isnan(out[0, 0]) and indices.tolist() == [[0]]


def test_padding_never_wins_and_all_minus_infinity_picks_the_first_inside_cell():
    x = np.full((3, 3), -np.inf)
    out, indices = poolgrad.max_pool2d(x, 3, 1, padding=1, return_indices=True)
    assert np.all(out == -np.inf)
    assert indices.tolist() == [[0, 0, 1], [0, 0, 1], [3, 3, 4]]
    out, indices = poolgrad.max_pool2d([[-5, -3], [-7, -2]], 2, 1, padding=1,
                                       return_indices=True)
    assert out.tolist() == [[-5, -3, -3], [-5, -2, -2], [-7, -2, -2]]
    assert indices.tolist() == [[0, 1, 1], [0, 3, 3], [2, 3, 3]]


def test_smallest_integers_behave_like_minus_infinity():
    low = np.iinfo(np.int8).min
    x = np.full((2, 2), low, np.int8)
    out, indices = poolgrad.max_pool2d(x, 2, 1, padding=1, return_indices=True)
    assert out.dtype == np.int8 and np.all(out == low)
    assert indices.tolist() == [[0, 0, 1], [0, 0, 1], [2, 2, 3]]


def test_dilation_samples_spread_cells_with_indices_in_the_unpadded_plane():
    x = np.arange(25).reshape(5, 5)
    out, indices = poolgrad.max_pool2d(x, 3, stride=2, padding=1, dilation=2,
                                       return_indices=True)
    # Rows and columns sampled: -1 (padding), 1, 3 for the first window, 1, 3, 5 (out)
    # for the second: every window's largest cell is (3, 3).
    assert out.tolist() == [[18, 18], [18, 18]]
    assert indices.tolist() == [[18, 18], [18, 18]]


def test_leading_axes_are_kept():
    x = np.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4)
    out, indices = poolgrad.max_pool2d(x, 2, return_indices=True)
    assert out.shape == indices.shape == (2, 3, 2, 2)
    assert indices.max() < 16 and out[1, 2].tolist() == x[1, 2, 1::2, 1::2].tolist()


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64,
                                   np.uint64, np.float16, np.float32, np.float64])
def test_max_pooling_keeps_the_dtype(dtype):
    x = (np.arange(36) % 7).reshape(6, 6).astype(dtype)
    out, indices = poolgrad.max_pool2d(x, 3, 2, padding=1, return_indices=True)
    assert out.dtype == dtype and indices.dtype == np.int64
    expected, expected_indices = reference.max_pool2d(x, 3, 2, padding=1)
    assert out.tolist() == expected.tolist()
    assert indices.tolist() == expected_indices.tolist()


def test_backward_keeps_a_floating_gradient_dtype_and_turns_integers_to_float64():
    # Integer gradients: PyTorch refuses them (no integer tensor requires grad, and
    # max_pool2d_backward is "not implemented for 'Long'"); poolgrad returns float64, as
    # avg_pool2d_backward does.
    _, indices = poolgrad.max_pool2d(FIXTURE, 2, return_indices=True)
    for dtype, result in ((np.float16, np.float16), (np.float32, np.float32),
                          (np.float64, np.float64), (np.int64, np.float64),
                          (np.int8, np.float64), (np.uint16, np.float64)):
        grad = poolgrad.max_pool2d_backward(np.full((2, 2), 3, dtype), indices, (4, 4))
        assert grad.dtype == result
        assert grad.sum() == 12 and grad[1, 1] == 3


def test_non_contiguous_input_is_fine():
    x = np.arange(64.0).reshape(8, 8)[::2, ::-1].T
    out, indices = poolgrad.max_pool2d(x, 2, 1, return_indices=True)
    expected, expected_indices = reference.max_pool2d(x, 2, 1)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(indices, expected_indices)


def test_many_planes_span_several_blocks():
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 4, (3, 300, 9, 9)).astype(np.float32)
    x[0, 5, 2, 2] = np.nan
    out, indices = poolgrad.max_pool2d(x, 3, 2, padding=1, return_indices=True)
    expected, expected_indices = reference.max_pool2d(x, 3, 2, padding=1)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(indices, expected_indices)
    grad = rng.standard_normal(out.shape)
    np.testing.assert_array_equal(poolgrad.max_pool2d_backward(grad, indices, x.shape),
                                  reference.max_pool2d_backward(grad, indices, x.shape))


# -- the loop reference, on random cases ----------------------------------------------

@st.composite
def pooling_cases(draw, values=None):
    height, width = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    leading = draw(st.sampled_from([(), (2,), (1, 2)]))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    params = dict(kernel_size=(kh, kw),
                  stride=draw(st.one_of(st.none(), st.tuples(st.integers(1, 4),
                                                             st.integers(1, 4)))),
                  padding=(draw(st.integers(0, kh // 2)), draw(st.integers(0, kw // 2))),
                  dilation=(draw(st.integers(1, 3)), draw(st.integers(1, 3))),
                  ceil_mode=draw(st.booleans()))
    cells = int(np.prod(leading + (height, width)))
    element = values if values is not None else st.one_of(
        st.integers(-3, 3).map(float),
        st.sampled_from([np.nan, -np.inf, np.inf]),
    )
    x = np.array(draw(st.lists(element, min_size=cells, max_size=cells)),
                 dtype=np.float64).reshape(leading + (height, width))
    return x, params


def _valid(x, params):
    try:
        poolgrad.geometry.geometry(x.shape[-2:], params["kernel_size"], params["stride"],
                                     params["padding"], params["dilation"],
                                     params["ceil_mode"])
    except ValueError:
        return False
    return True


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(pooling_cases(), st.sampled_from([np.float64, np.float32, np.int32]), st.data())
def test_forward_indices_and_backward_match_the_loop_reference(case, dtype, data):
    x, params = case
    assume(_valid(x, params))  # an invalid draw is discarded, not counted as a pass
    if np.dtype(dtype).kind == "i":
        x = np.nan_to_num(x, nan=0, posinf=7, neginf=-7)
    x = x.astype(dtype)
    out, indices = poolgrad.max_pool2d(x, return_indices=True, **params)
    expected, expected_indices = reference.max_pool2d(x, **params)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(indices, expected_indices)
    assert out.dtype == x.dtype
    grad = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=out.size,
                                       max_size=out.size)), float).reshape(out.shape)
    np.testing.assert_array_equal(poolgrad.max_pool2d_backward(grad, indices, x.shape),
                                  reference.max_pool2d_backward(grad, indices, x.shape))


@settings(max_examples=60, deadline=None)
@given(pooling_cases(values=st.floats(-100, 100, width=32)), st.data())
def test_gradient_is_conserved(case, data):
    x, params = case
    assume(_valid(x, params))  # an invalid draw is discarded, not counted as a pass
    out, indices = poolgrad.max_pool2d(x, return_indices=True, **params)
    grad = np.array(data.draw(st.lists(st.floats(-10, 10), min_size=out.size,
                                       max_size=out.size))).reshape(out.shape)
    grad_input = poolgrad.max_pool2d_backward(grad, indices, x.shape)
    assert grad_input.shape == x.shape
    assert grad_input.sum() == pytest.approx(grad.sum(), abs=1e-9)


# -- backward: bad input --------------------------------------------------------------

@pytest.mark.parametrize("grad, indices, shape, error, message", [
    (np.ones((2, 2)), np.zeros((2, 3), int), (4, 4), ValueError,
     r"indices has shape \(2, 3\) but grad_output has shape \(2, 2\)"),
    (np.ones((2, 2)), np.full((2, 2), 16), (4, 4), ValueError,
     "indices holds 16, outside the 4 x 4 plane: every index must be in 0 .. 15"),
    (np.ones((2, 2)), np.full((2, 2), -1), (4, 4), ValueError, "indices holds -1"),
    (np.ones((2, 2)), np.zeros((2, 2)), (4, 4), TypeError, "indices must be integers"),
    (np.ones((3, 2, 2)), np.zeros((3, 2, 2), int), (2, 4, 4), ValueError,
     r"grad_output has shape \(3, 2, 2\) but input_shape is \(2, 4, 4\): their leading "
     r"\(batch, channel\) axes must match, got \(3,\) and \(2,\)"),
    # The leading axes are compared whole: a missing channel axis is not "shape ()".
    (np.ones((2, 2)), [[0, 1], [2, 3]], (3, 4, 4), ValueError,
     r"grad_output has shape \(2, 2\) but input_shape is \(3, 4, 4\): .* got \(\) and \(3,\)"),
    (np.ones((2, 2)), np.zeros((2, 2), int), (10**5, 10**5), ValueError,
     "input_shape=.* is too large"),
    ([[1, 2], [3]], np.zeros((2, 2), int), (4, 4), ValueError, "grad_output has ragged rows"),
    ([["a"]], np.zeros((1, 1), int), (4, 4), TypeError, "grad_output must hold numbers"),
])
def test_backward_refuses_inconsistent_input(grad, indices, shape, error, message):
    with pytest.raises(error, match=message):
        poolgrad.max_pool2d_backward(grad, indices, shape)


# -- PyTorch ----------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.torch
@settings(max_examples=150, deadline=None)
@given(pooling_cases(), st.sampled_from(["float32", "float64", "float16", "int32"]),
       st.data())
def test_matches_torch_bit_for_bit(torch, case, dtype, data):
    x, params = case
    if dtype == "int32":
        x = np.nan_to_num(x, nan=0, posinf=7, neginf=-7)
    x = x.astype(dtype)
    kernel = params["kernel_size"]
    stride = params["stride"] or kernel
    args = (list(kernel), list(stride), list(params["padding"]), list(params["dilation"]),
            params["ceil_mode"])
    assume(_valid(x, params))  # an invalid draw is discarded, not counted as a pass
    expected, expected_indices = torch.ops.aten.max_pool2d_with_indices(
        torch.from_numpy(x.reshape((-1,) + x.shape[-2:])), *args)
    out, indices = poolgrad.max_pool2d(x, return_indices=True, **params)
    np.testing.assert_array_equal(out.reshape(expected.shape), expected.numpy())
    np.testing.assert_array_equal(indices.reshape(expected.shape), expected_indices.numpy())
    assert out.dtype == expected.numpy().dtype
    if dtype == "int32":
        return
    grad = np.array(data.draw(st.lists(st.floats(-4, 4, width=16), min_size=out.size,
                                       max_size=out.size))).astype(dtype).reshape(out.shape)
    expected_grad = torch.ops.aten.max_pool2d_with_indices_backward(
        torch.from_numpy(grad.reshape(expected.shape)),
        torch.from_numpy(x.reshape((-1,) + x.shape[-2:])), *args, expected_indices)
    np.testing.assert_array_equal(
        poolgrad.max_pool2d_backward(grad, indices, x.shape).reshape(expected_grad.shape),
        expected_grad.numpy())


@pytest.mark.torch
def test_matches_torch_on_a_large_random_batch(torch):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 40, 33, 31)).astype(np.float32)
    x[rng.random(x.shape) < 0.01] = np.nan
    for k, s, p, d, ceil in [(3, 2, 1, 1, False), (2, 2, 0, 1, True), (3, 1, 1, 2, True)]:
        expected, expected_indices = torch.ops.aten.max_pool2d_with_indices(
            torch.from_numpy(x), [k, k], [s, s], [p, p], [d, d], ceil)
        out, indices = poolgrad.max_pool2d(x, k, s, p, d, ceil, return_indices=True)
        np.testing.assert_array_equal(out, expected.numpy())
        np.testing.assert_array_equal(indices, expected_indices.numpy())
        grad = rng.standard_normal(out.shape).astype(np.float32)
        expected_grad = torch.ops.aten.max_pool2d_with_indices_backward(
            torch.from_numpy(grad), torch.from_numpy(x), [k, k], [s, s], [p, p], [d, d],
            ceil, expected_indices)
        np.testing.assert_array_equal(poolgrad.max_pool2d_backward(grad, indices, x.shape),
                                      expected_grad.numpy())


def test_torch_keyword_names_are_accepted():
    # torch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation,
    # ceil_mode, return_indices) and avg_pool2d(input, kernel_size, stride, padding,
    # ceil_mode, count_include_pad, divisor_override): the same names here.
    out, indices = poolgrad.max_pool2d(input=FIXTURE, kernel_size=2, stride=2, padding=0,
                                       dilation=1, ceil_mode=False, return_indices=True)
    assert out.tolist() == [[4, 8], [9, -2]] and indices.tolist() == [[5, 6], [13, 11]]
    avg = poolgrad.avg_pool2d(input=FIXTURE, kernel_size=2, stride=2, padding=0,
                              ceil_mode=False, count_include_pad=True, divisor_override=None)
    assert avg.tolist() == [[2.5, 6.5], [1.0, -4.0]]
    with pytest.raises(ValueError, match="input has ragged rows"):
        poolgrad.max_pool2d(input=[[1, 2], [3]], kernel_size=1)


def test_the_backward_functions_read_alike_with_keywords():
    _, indices = poolgrad.max_pool2d(FIXTURE, 2, return_indices=True)
    grad = [[1.0, 2.0], [3.0, 4.0]]
    routed = poolgrad.max_pool2d_backward(grad_output=grad, indices=indices, input_shape=(4, 4))
    spread = poolgrad.avg_pool2d_backward(grad_output=grad, input_shape=(4, 4), kernel_size=2)
    assert routed.shape == spread.shape == (4, 4)
    assert routed.sum() == spread.sum() == 10.0
