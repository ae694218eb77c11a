"""mse_loss and l1_loss with their backwards: torch's values for every reduction, 0 where
input == target for L1, and the shapes torch would only warn about refused."""

import numpy as np
import pytest

import poolgrad

REDUCTIONS = ["none", "mean", "sum"]
LOSSES = {"mse": (poolgrad.mse_loss, poolgrad.mse_loss_backward),
          "l1": (poolgrad.l1_loss, poolgrad.l1_loss_backward)}


def test_the_small_examples():
    assert poolgrad.mse_loss([[1, 2]], [[1, 4]]) == 2.0
    assert poolgrad.mse_loss([[1, 2]], [[1, 4]], reduction="sum") == 4.0
    assert poolgrad.l1_loss([[1, 2]], [[1, 5]], reduction="none").tolist() == [[0, 3]]
    np.testing.assert_array_equal(poolgrad.mse_loss_backward(1.0, [[1, 2]], [[1, 4]]), [[0, -2]])


def test_l1_backward_is_zero_where_input_equals_target():
    grad = poolgrad.l1_loss_backward(1.0, [[1, 2, 3, 2]], [[1, 3, 1, 2]])
    np.testing.assert_array_equal(grad, [[0, -0.25, 0.25, 0]])
    assert poolgrad.l1_loss_backward(1.0, [[np.nan]], [[0.0]]).tolist() == [[0.0]]


@pytest.mark.parametrize("name", LOSSES)
def test_refusals(name):
    forward, backward = LOSSES[name]
    with pytest.raises(ValueError, match=r"target has shape \(2, 1\) but input has shape \(1, 2\)"):
        forward([[1, 2]], [[1], [2]])
    with pytest.raises(ValueError, match="reduction must be one of 'none', 'mean', 'sum', got 'avg'"):
        forward([[1, 2]], [[1, 2]], reduction="avg")
    with pytest.raises(ValueError, match="grad_output must be one number"):
        backward([1.0, 2.0], [[1, 2]], [[1, 2]])
    with pytest.raises(ValueError, match=r"grad_output has shape \(1, 1\) but the loss"):
        backward([[1.0]], [[1, 2]], [[1, 2]], reduction="none")


@pytest.mark.torch
@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(8))
def test_matches_torch(torch, name, reduction, dtype, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(v) for v in rng.integers(1, 5, int(rng.integers(2, 5))))
    integers = seed % 2 == 0
    draw = (lambda: rng.integers(-3, 4, shape)) if integers else (lambda: rng.standard_normal(shape))
    x, target = draw().astype(dtype), draw().astype(dtype)
    x.flat[0] = target.flat[0]  # a tie: the L1 gradient is 0 there
    forward, backward = LOSSES[name]
    function = getattr(torch.nn.functional, f"{name}_loss")
    tensor = torch.tensor(x, requires_grad=True)
    loss = function(tensor, torch.tensor(target), reduction=reduction)
    grad = (rng.integers(-2, 3, shape) if reduction == "none" else np.array(1.5)).astype(dtype)
    loss.backward(torch.tensor(grad))
    ours = forward(x, target, reduction)
    grad_input = backward(grad, x, target, reduction)
    assert ours.dtype == dtype and grad_input.dtype == dtype
    if integers or reduction == "none":
        np.testing.assert_array_equal(ours, loss.detach().numpy())
    elif dtype == np.float64:
        np.testing.assert_allclose(ours, loss.detach().numpy(), rtol=1e-12)
    else:
        torch.testing.assert_close(torch.tensor(ours), loss.detach())
    # The gradient is one product per cell in torch's order: equal to the last bit.
    np.testing.assert_array_equal(grad_input, tensor.grad.numpy())
    assert grad_input.flat[0] == (0 if name == "l1" else grad_input.flat[0])
