"""max_unpool2d: PyTorch's size rules and values; the torch-free twin is test_golden's
family cases."""

import numpy as np
import pytest

import poolgrad
from poolgrad.unpool import unpool_output_size


def test_unpooling_puts_the_maxima_back_and_zeros_elsewhere():
    fixture = [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]]
    out, indices = poolgrad.max_pool2d(fixture, 2, return_indices=True)
    unpooled = poolgrad.max_unpool2d(out, indices, 2)
    assert unpooled.dtype == out.dtype
    assert unpooled.tolist() == [[0, 0, 0, 0], [0, 4, 8, 0], [0, 0, 0, -2], [0, 9, 0, 0]]


def test_a_shared_cell_is_written_once_while_the_gradient_adds():
    x = np.array([[1.0, 5.0, 2.0]])
    out, indices = poolgrad.max_pool2d(x, (1, 2), stride=1, return_indices=True)
    assert indices.tolist() == [[1, 1]]
    assert poolgrad.max_unpool2d(out, indices, (1, 2), stride=1).tolist() == [[0, 5, 0]]
    assert poolgrad.max_pool2d_backward(out, indices, x.shape).tolist() == [[0, 10, 0]]
    # Different values at one index: the last in x's row-major order stays.
    written = poolgrad.max_unpool2d(np.array([[7.0, 9.0]]), np.array([[1, 1]]), (1, 2), stride=1)
    assert written.tolist() == [[0, 9, 0]]


def test_default_size_and_bounds():
    assert unpool_output_size((3, 4), 2) == (6, 8)
    assert unpool_output_size((3, 4), 3, stride=2, padding=1) == (5, 7)
    assert unpool_output_size((2, 2), 2, output_size=(1, 1, 5, 3)) == (5, 3)
    for bad in ((6, 4), (2, 4), (4, 6)):
        with pytest.raises(ValueError, match="does not fit: its (height|width) must be strictly between"):
            unpool_output_size((2, 2), 2, output_size=bad)
    with pytest.raises(ValueError, match=r"output_size must hold 2 sides \(H, W\) or 4"):
        unpool_output_size((2, 2), 2, output_size=(4, 4, 4))


def test_an_index_the_output_cannot_hold_names_output_size():
    out, indices = poolgrad.max_pool2d(np.arange(25.0).reshape(5, 5), 2, return_indices=True)
    with pytest.raises(ValueError, match="indices holds 18, outside the 4 x 4 output.*output_size"):
        poolgrad.max_unpool2d(out, indices, 2)
    with pytest.raises(ValueError, match="indices has shape"):
        poolgrad.max_unpool2d(out, indices[:1], 2)
    with pytest.raises(TypeError, match="indices must be integers"):
        poolgrad.max_unpool2d(out, indices.astype(float), 2)


@pytest.mark.parametrize("seed", range(30))
def test_matches_torch(torch, seed):
    rng = np.random.default_rng(seed)
    height, width = (int(v) for v in rng.integers(2, 11, 2))
    kernel, stride = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    padding = int(rng.integers(0, kernel // 2 + 1))
    x = np.round(rng.standard_normal((2, 3, height, width))).astype(np.float32)
    functional = torch.nn.functional
    out, indices = functional.max_pool2d(torch.from_numpy(x), kernel, stride, padding,
                                         return_indices=True)
    for size in (None, (height, width), (2, 3, height, width)):
        try:
            expected = functional.max_unpool2d(out, indices, kernel, stride, padding, size).numpy()
        except (RuntimeError, ValueError):
            with pytest.raises(ValueError):
                poolgrad.max_unpool2d(out.numpy(), indices.numpy(), kernel, stride, padding, size)
            continue
        if expected.size == 0:
            continue  # torch returns an empty plane; poolgrad refuses a size below 1
        mine = poolgrad.max_unpool2d(out.numpy(), indices.numpy(), kernel, stride, padding, size)
        np.testing.assert_array_equal(mine.view(np.uint32), expected.view(np.uint32))


def test_the_layer_forwards_indices_and_size():
    pool, unpool = poolgrad.MaxPool2d(2), poolgrad.MaxUnpool2d(2)
    x = np.arange(25.0).reshape(5, 5)
    out = pool.forward(x)
    assert unpool.forward(out, pool.indices, output_size=(5, 5))[4, 3] == 0
    assert unpool.forward(out, pool.indices, output_size=(5, 5))[3, 3] == 18


def test_size_entries_must_be_ints_and_an_empty_batch_unpools():
    with pytest.raises(TypeError, match="output_size must hold ints, got 4.5"):
        poolgrad.max_unpool2d(np.ones((2, 2)), np.zeros((2, 2), int), 2, output_size=(4.5, 4))
    out, indices = poolgrad.max_pool2d(np.zeros((0, 3, 5, 5)), 2, return_indices=True)
    assert poolgrad.max_unpool2d(out, indices, 2).shape == (0, 3, 4, 4)
