"""lp_pool2d and its gradient against PyTorch, and the rules of the issue; the
torch-free twin is test_golden's family cases."""

import numpy as np
import pytest

import poolgrad


def test_p_one_is_the_sum_and_p_inf_the_largest_magnitude():
    x = np.arange(16.0).reshape(4, 4) - 5
    np.testing.assert_array_equal(poolgrad.lp_pool2d(x, 1, 2),
                                  poolgrad.avg_pool2d(x, 2) * 4)
    np.testing.assert_array_equal(poolgrad.lp_pool2d(x, np.inf, 2),
                                  poolgrad.max_pool2d(np.abs(x), 2))
    assert poolgrad.lp_pool2d(x, -np.inf, 2).tolist() == [[0.0, 1.0], [3.0, 5.0]]


def test_ceil_mode_scales_an_edge_window_by_what_it_covers():
    x = np.ones((3, 3))
    out = poolgrad.lp_pool2d(x, 1, 2, ceil_mode=True)
    # The edge windows cover 2 (and 1) cells but are scaled to 4: avg * kw * kh.
    assert out.tolist() == [[4.0, 4.0], [4.0, 4.0]]


def test_an_odd_p_with_a_negative_sum_gives_nan_and_zero_sums_give_zero_gradient():
    assert np.isnan(poolgrad.lp_pool2d([[-3.0, 1.0], [0.0, 0.0]], 3, 2)).all()
    grad = poolgrad.lp_pool2d_backward([[1.0]], np.zeros((2, 2)), 2, 2)
    assert grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("norm_type, error, message", [
    (0, ValueError, "norm_type must not be 0"),
    (float("nan"), ValueError, "norm_type must be a number, got NaN"),
    ("2", TypeError, "norm_type must be a number such as 2"),
    (True, TypeError, "norm_type must be a number"),
    pytest.param(10**400, ValueError, "norm_type is beyond a 64-bit float", id="10**400"),
])
def test_bad_norm_types_are_refused(norm_type, error, message):
    with pytest.raises(error, match=message):
        poolgrad.lp_pool2d(np.ones((2, 2)), norm_type, 2)
    with pytest.raises(error, match=message):
        poolgrad.LPPool2d(norm_type, 2)


def test_int_inputs_pool_to_float64():
    assert poolgrad.lp_pool2d([[3, 4], [0, 0]], 2, 2).dtype == np.float64


@pytest.mark.parametrize("seed", range(60))
def test_matches_torch(torch, seed):
    rng = np.random.default_rng(seed)
    height, width = (int(v) for v in rng.integers(2, 10, 2))
    kernel = int(rng.integers(1, min(height, width) + 1))
    stride, ceil_mode = int(rng.integers(1, 4)), bool(seed % 2)
    p = [1.0, 2.0, 3.0, np.inf, -np.inf, 0.5][seed % 6]
    dtype = [np.float32, np.float64][seed % 2]
    x = rng.standard_normal((2, height, width))
    if seed % 3 == 0:
        x = np.round(x)
    x = x.astype(dtype)
    functional = torch.nn.functional
    tensor = torch.from_numpy(x).requires_grad_(True)
    out = functional.lp_pool2d(tensor, p, kernel, stride, ceil_mode)
    grad = rng.integers(-4, 5, out.shape).astype(dtype) / 2
    out.backward(torch.from_numpy(grad))
    mine = poolgrad.lp_pool2d(x, p, kernel, stride, ceil_mode)
    mine_grad = poolgrad.lp_pool2d_backward(grad, x, p, kernel, stride, ceil_mode)
    assert mine.dtype == dtype and mine_grad.dtype == dtype
    if p in (1.0, np.inf, -np.inf):
        np.testing.assert_array_equal(mine.view(f"u{x.itemsize}"), out.detach().numpy().view(f"u{x.itemsize}"))
        np.testing.assert_array_equal(mine_grad, tensor.grad.numpy())
    else:
        # torch's pow is SLEEF's (within an ulp); NumPy's is correctly rounded.
        tolerance = 8 * np.finfo(dtype).eps
        np.testing.assert_allclose(mine, out.detach().numpy(), rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(mine_grad, tensor.grad.numpy(), rtol=16 * tolerance,
                                   atol=16 * tolerance)
