"""relu and relu_backward: torch's values at zeros (both signs), ties and NaN."""

import numpy as np
import pytest

import poolgrad

VALUES = np.array([[-2.0, -0.0, 0.0, 0.5], [np.nan, 3.0, -np.inf, np.inf]])


def test_relu_keeps_shape_dtype_negative_zero_and_nan():
    out = poolgrad.relu(VALUES)
    np.testing.assert_array_equal(out, [[0, -0.0, 0, 0.5], [np.nan, 3, 0, np.inf]])
    assert np.signbit(out[0, 1]) and not np.signbit(out[0, 0])
    assert poolgrad.relu(np.array([[-3, 4]], np.int32)).dtype == np.int32
    assert poolgrad.relu(np.ones((2, 2, 2, 2), np.float32)).dtype == np.float32


def test_relu_backward_is_zero_at_zero_and_passes_nan_inputs():
    grad = poolgrad.relu_backward(np.full(VALUES.shape, 2.0), VALUES)
    np.testing.assert_array_equal(grad, [[0, 0, 0, 2], [2, 2, 0, 2]])
    assert poolgrad.relu_backward([[1, 1]], [[1, -1]]).dtype == np.float64
    with pytest.raises(ValueError, match=r"grad_output has shape \(1, 3\) but input has shape \(1, 2\)"):
        poolgrad.relu_backward([[1, 1, 1]], [[1, -1]])


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_matches_torch_bit_for_bit(torch, dtype):
    rng = np.random.default_rng(5)
    x = np.concatenate([VALUES.ravel(), rng.integers(-2, 3, 28), rng.standard_normal(28)])
    x = x.astype(dtype).reshape(2, 4, 8)
    grad = rng.standard_normal(x.shape).astype(dtype)
    tensor = torch.tensor(x, requires_grad=True)
    out = torch.relu(tensor)
    out.backward(torch.tensor(grad))
    ours = poolgrad.relu(x)
    np.testing.assert_array_equal(ours.view(f"u{ours.itemsize}"),
                                  out.detach().numpy().view(f"u{ours.itemsize}"))
    np.testing.assert_array_equal(poolgrad.relu_backward(grad, x), tensor.grad.numpy())
