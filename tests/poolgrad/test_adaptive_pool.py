"""Adaptive pooling against PyTorch (generated cases, bit for bit), a loop reference and
the issue's numbers; its torch-free twin is test_golden's family cases."""

import math

import numpy as np
import pytest

import poolgrad
from poolgrad.geometry import adaptive_bounds, adaptive_covers


def _bits(array):
    array = np.ascontiguousarray(array)
    return array.view(f"u{array.dtype.itemsize}")


def _loop_avg(x, out_hw):
    """Window by window, as aten's loop (the 1 x 1 case aside, which torch sends to mean)."""
    height, width = x.shape
    out = np.empty(out_hw)
    for i in range(out_hw[0]):
        r0, r1 = i * height // out_hw[0], math.ceil((i + 1) * height / out_hw[0])
        for j in range(out_hw[1]):
            c0, c1 = j * width // out_hw[1], math.ceil((j + 1) * width / out_hw[1])
            total = 0.0
            for r in range(r0, r1):
                for c in range(c0, c1):
                    total += x[r, c]
            out[i, j] = total / (r1 - r0) / (c1 - c0)
    return out


def test_five_into_three_windows_overlap_as_the_issue_says():
    starts, ends = adaptive_bounds(5, 3)
    assert list(zip(starts.tolist(), ends.tolist())) == [(0, 2), (1, 4), (3, 5)]
    first, covers = adaptive_covers(5, 3)
    assert covers.tolist() == [1, 2, 1, 2, 1]
    x = np.arange(25.0).reshape(5, 5)
    np.testing.assert_array_equal(poolgrad.adaptive_avg_pool2d(x, 3), _loop_avg(x, (3, 3)))


@pytest.mark.parametrize("seed", range(40))
def test_matches_the_loop_reference(seed):
    rng = np.random.default_rng(seed)
    height, width = rng.integers(1, 9, 2)
    out_hw = tuple(int(v) for v in rng.integers(2, 12, 2))
    x = rng.standard_normal((height, width))
    np.testing.assert_array_equal(poolgrad.adaptive_avg_pool2d(x, out_hw), _loop_avg(x, out_hw))


def test_global_pooling_keeps_one_number_per_channel_and_spreads_the_gradient():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    out = poolgrad.adaptive_avg_pool2d(x, 1)
    np.testing.assert_array_equal(out[..., 0, 0], x.mean(axis=(-2, -1)))
    grad = poolgrad.adaptive_avg_pool2d_backward(np.ones((2, 3, 1, 1)), x.shape)
    np.testing.assert_array_equal(grad, np.full(x.shape, 1 / 20))


def test_none_keeps_a_side_and_int_inputs_average_to_float64():
    out = poolgrad.adaptive_avg_pool2d(np.arange(12).reshape(3, 4), (None, 2))
    assert out.shape == (3, 2) and out.dtype == np.float64
    out = poolgrad.adaptive_max_pool2d(np.arange(12).reshape(3, 4), (2, None))
    assert out.shape == (2, 4) and out.dtype == np.int64


def test_adaptive_gradients_are_conserved():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 7, 5))
    grad = rng.integers(-4, 5, (2, 3, 4)).astype(float)
    _, indices = poolgrad.adaptive_max_pool2d(x, (3, 4), return_indices=True)
    assert poolgrad.adaptive_max_pool2d_backward(grad, indices, x.shape).sum() == grad.sum()
    assert np.isclose(poolgrad.adaptive_avg_pool2d_backward(grad, x.shape).sum(), grad.sum())


@pytest.mark.parametrize("output_size, error, message", [
    (0, ValueError, "output_size must have sides of at least 1"),
    ((2, -1), ValueError, "output_size must have sides of at least 1"),
    ([3], ValueError, r"output_size must be an int or an \(h, w\) pair, got 1 value"),
    ((1, 2, 3), ValueError, "got 3 values"),
    (2.5, TypeError, "output_size must be an int or an"),
    ((2, "3"), TypeError, "output_size must hold ints or None"),
    ((10**5, 10**5), ValueError, "is too large: an output plane holds at most"),
])
def test_bad_output_sizes_are_refused_with_what_to_fix(output_size, error, message):
    for function in (poolgrad.adaptive_avg_pool2d, poolgrad.adaptive_max_pool2d):
        with pytest.raises(error, match=message):
            function(np.ones((4, 4)), output_size)
    with pytest.raises(error, match=message):
        poolgrad.AdaptiveAvgPool2d(output_size) if output_size != (10**5, 10**5) else \
            poolgrad.adaptive_avg_pool2d(np.ones((4, 4)), output_size)


def test_backward_refuses_mismatched_leading_axes():
    with pytest.raises(ValueError, match="leading"):
        poolgrad.adaptive_avg_pool2d_backward(np.ones((2, 1, 1)), (3, 4, 4))


def _cases(count):
    rng = np.random.default_rng(24)
    for number in range(count):
        height, width = (int(v) for v in rng.integers(1, 13, 2))
        sides = [int(v) for v in rng.integers(1, 17, 2)]
        output_size = [sides, (None, sides[1]), (sides[0], None), 1, sides[0]][number % 5]
        dtype = ["float32", "float64", "float16"][number % 3]
        x = rng.standard_normal((2, 2, height, width))
        if number % 4 == 0:
            x = np.round(x)  # ties
        if number % 6 == 1:
            x[rng.random(x.shape) < 0.2] = np.nan
        if number % 6 == 2:
            x[rng.random(x.shape) < 0.3] = -0.0
            x[rng.random(x.shape) < 0.2] = -np.inf
        yield pytest.param(x.astype(dtype), output_size, id=f"{number}-{dtype}-{height}x{width}->{output_size}")


@pytest.mark.parametrize("x, output_size", list(_cases(90)))
def test_matches_torch_bit_for_bit(torch, x, output_size):
    functional = torch.nn.functional
    grad = np.random.default_rng(x.size).integers(-8, 9, (1,)).astype(x.dtype)
    tensor = torch.from_numpy(x).requires_grad_(True)
    out = functional.adaptive_avg_pool2d(tensor, output_size)
    upstream = np.broadcast_to(grad, out.shape).copy() * np.arange(out.numel()).reshape(
        out.shape).astype(x.dtype) / 8
    out.backward(torch.from_numpy(upstream))
    mine = poolgrad.adaptive_avg_pool2d(x, output_size)
    assert (_bits(mine) == _bits(out.detach().numpy())).all()
    assert (_bits(poolgrad.adaptive_avg_pool2d_backward(upstream, x.shape))
            == _bits(tensor.grad.numpy())).all()

    tensor = torch.from_numpy(x).requires_grad_(True)
    out, indices = functional.adaptive_max_pool2d(tensor, output_size, return_indices=True)
    out.backward(torch.from_numpy(upstream))
    mine, mine_indices = poolgrad.adaptive_max_pool2d(x, output_size, return_indices=True)
    np.testing.assert_array_equal(mine_indices, indices.numpy())
    assert (_bits(mine) == _bits(out.detach().numpy())).all()
    assert (_bits(poolgrad.adaptive_max_pool2d_backward(upstream, mine_indices, x.shape))
            == _bits(tensor.grad.numpy())).all()


def test_the_layers_remember_what_backward_needs():
    layer = poolgrad.AdaptiveMaxPool2d((1, 3))
    with pytest.raises(RuntimeError, match="needs a forward call first"):
        layer.backward([[1.0, 1.0, 1.0]])
    layer.forward([[1.0, 5.0, 2.0, 4.0, 3.0]])
    assert layer.indices.tolist() == [[1, 1, 3]]
    assert repr(poolgrad.AdaptiveAvgPool2d((None, 2))) == "AdaptiveAvgPool2d(output_size=(None, 2))"


@pytest.mark.parametrize("output_size", [1, 2, (2, 3), 5])
def test_an_empty_batch_pools_to_an_empty_batch(output_size):
    x = np.zeros((0, 3, 5, 5), np.float32)
    out = poolgrad.adaptive_avg_pool2d(x, output_size)
    assert out.shape[:2] == (0, 3) and out.dtype == np.float32
    assert poolgrad.adaptive_avg_pool2d_backward(out, x.shape).shape == x.shape
    out, indices = poolgrad.adaptive_max_pool2d(x, output_size, return_indices=True)
    assert poolgrad.adaptive_max_pool2d_backward(out, indices, x.shape).shape == x.shape


def test_an_adaptive_layer_refuses_a_gradient_of_another_output_shape():
    # The functions read the output size off the gradient; the layer knows it.
    layer = poolgrad.AdaptiveAvgPool2d(2)
    layer(np.ones((4, 4)))
    with pytest.raises(ValueError, match="grad_output has shape"):
        layer.backward(np.ones((3, 3)))


@pytest.mark.parametrize("count, n", [(1, 49), (255, 49), (256, 49), (700, 49), (513, 3), (300, 17), (4096, 49)])
def test_the_blocked_torch_sum_adds_each_row_in_the_same_order_as_one_row_alone(count, n):
    # _torch_sum transposes its rows in blocks (for speed): each row's additions must not
    # depend on which block it falls in, nor on the blocks' count or the tail's size.
    from poolgrad.adaptive_pool import _torch_sum

    rows = np.random.default_rng(count * n).standard_normal((count, n)).astype(np.float32) * 1e3
    alone = np.concatenate([_torch_sum(rows[r:r + 1]) for r in range(count)])
    assert np.array_equal(_torch_sum(rows).view(np.int32), alone.view(np.int32))


GLOBAL_ROW_LENGTHS = [1, 7, 8, 15, 16, 31, 32, 33, 49, 63, 64, 100, 255, 256, 257, 511, 512, 513, 1024, 2100]


def _global_case(n, dtype):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((3, 100, 1, n)) * 10.0 ** rng.integers(-2, 6, (3, 100, 1, 1))).astype(dtype)
    x[0, :7] = -0.0  # all-negative-zero rows: the sum is +0.0
    x[1, ::9, 0, ::5] = -0.0
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", GLOBAL_ROW_LENGTHS)
def test_global_average_pooling_matches_torch_for_every_row_length(torch, n, dtype):
    # Every path of the sum that follows torch's order: rows shorter than a vector, the
    # in-order additions (4 to 63 vectors), the cascade beyond, with and without a tail.
    x = _global_case(n, dtype)
    expected = torch.nn.functional.adaptive_avg_pool2d(torch.from_numpy(x), 1).numpy()
    assert (_bits(poolgrad.adaptive_avg_pool2d(x, 1)) == _bits(expected)).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", GLOBAL_ROW_LENGTHS)
def test_the_in_order_sum_gives_row_sums_very_bits(monkeypatch, n, dtype):
    # The torch-free twin of the test above: the in-order additions against aten's
    # row_sum as written (with its starts from +0.0), which the golden file pins to torch.
    from poolgrad import adaptive_pool

    x = _global_case(n, dtype)
    fast = adaptive_pool.adaptive_avg_pool2d(x, 1)
    monkeypatch.setattr(adaptive_pool, "IN_ORDER_VECTORS", range(0))
    assert (_bits(fast) == _bits(adaptive_pool.adaptive_avg_pool2d(x, 1))).all()


def _loop_max(plane, out_hw):
    """aten's adaptive max scan, window by window: a cell wins when it is greater than the
    best so far or NaN (so the first of equal values and the last NaN win)."""
    height, width = plane.shape
    out = np.empty(out_hw, plane.dtype)
    indices = np.empty(out_hw, np.int64)
    for i in range(out_hw[0]):
        r0, r1 = i * height // out_hw[0], math.ceil((i + 1) * height / out_hw[0])
        for j in range(out_hw[1]):
            c0, c1 = j * width // out_hw[1], math.ceil((j + 1) * width / out_hw[1])
            best, where = None, None
            for r in range(r0, r1):
                for c in range(c0, c1):
                    value = plane[r, c]
                    if best is None or value > best or value != value:
                        best, where = value, r * width + c
            out[i, j], indices[i, j] = best, where
    return out, indices


def _tiled_case(seed):
    """Windows that tile the plane, each 1 to 9 cells a side, with ties, ±0.0, -inf and
    (in some) NaN, in float and integer dtypes."""
    rng = np.random.default_rng(seed)
    out_hw = tuple(int(v) for v in rng.integers(1, 4, 2))
    kernel = tuple(int(v) for v in rng.integers(1, 10, 2))
    dtype = ["float32", "float64", "float16", "int8", "int64", "uint8"][seed % 6]
    shape = (int(rng.integers(1, 40)), out_hw[0] * kernel[0], out_hw[1] * kernel[1])
    if np.dtype(dtype).kind == "f":
        values = [0.0, -0.0, 1.0, 2.0, -np.inf] + ([np.nan] if seed % 4 == 0 else [])
        x = rng.choice(np.array(values, dtype), size=shape)
    else:
        x = rng.integers(0, 3, size=shape).astype(dtype)
    return x, out_hw


@pytest.mark.parametrize("seed", range(60))
def test_tiled_adaptive_max_matches_the_loop_reference_bit_for_bit(seed):
    x, out_hw = _tiled_case(seed)
    out, indices = poolgrad.adaptive_max_pool2d(x, out_hw, return_indices=True)
    for plane, plane_out, plane_indices in zip(x, out, indices):
        expected, expected_indices = _loop_max(plane, out_hw)
        np.testing.assert_array_equal(plane_indices, expected_indices)
        assert (_bits(plane_out) == _bits(expected)).all()


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_tiled_adaptive_max_matches_torch_bit_for_bit(torch, seed):
    x, out_hw = _tiled_case(seed)
    if x.dtype.kind != "f":
        x = x.astype(np.float32)  # torch has no integer adaptive max pooling on the CPU
    out, indices = torch.nn.functional.adaptive_max_pool2d(torch.from_numpy(x), out_hw, return_indices=True)
    mine, mine_indices = poolgrad.adaptive_max_pool2d(x, out_hw, return_indices=True)
    np.testing.assert_array_equal(mine_indices, indices.numpy())
    assert (_bits(mine) == _bits(out.numpy())).all()
