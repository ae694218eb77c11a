"""The layers give exactly what the functions give, and remember their last forward."""

import numpy as np
import pytest

import poolgrad


def test_max_layer_equals_the_functions_and_keeps_indices():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 9, 8))
    layer = poolgrad.MaxPool2d(3, stride=2, padding=1, dilation=(1, 2), ceil_mode=True)
    out = layer.forward(x)
    expected, indices = poolgrad.max_pool2d(x, 3, 2, 1, (1, 2), True, return_indices=True)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(layer.indices, indices)
    grad = rng.standard_normal(out.shape)
    np.testing.assert_array_equal(layer.backward(grad),
                                  poolgrad.max_pool2d_backward(grad, indices, x.shape))


def test_avg_layer_equals_the_functions():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 7, 7))
    layer = poolgrad.AvgPool2d((3, 2), stride=(2, 1), padding=1, ceil_mode=True,
                               count_include_pad=False)
    out = layer.forward(x.tolist())
    np.testing.assert_array_equal(out, poolgrad.avg_pool2d(x, (3, 2), (2, 1), 1, True, False))
    grad = rng.standard_normal(out.shape)
    np.testing.assert_array_equal(
        layer.backward(grad),
        poolgrad.avg_pool2d_backward(grad, x.shape, (3, 2), (2, 1), 1, True, False))


def test_layers_check_their_parameters_when_built():
    with pytest.raises(ValueError, match="padding=2 is too large for kernel_size=2"):
        poolgrad.MaxPool2d(2, padding=2)
    with pytest.raises(TypeError, match="count_include_pad must be True or False"):
        poolgrad.AvgPool2d(2, count_include_pad="no")
    with pytest.raises(ValueError, match="stride must be at least 1"):
        poolgrad.AvgPool2d(2, stride=0)


def test_backward_before_forward_is_an_error():
    with pytest.raises(RuntimeError, match="needs a forward call first"):
        poolgrad.MaxPool2d(2).backward([[1.0]])
    with pytest.raises(RuntimeError, match="needs a forward call first"):
        poolgrad.AvgPool2d(2).backward([[1.0]])


def test_backward_uses_the_last_forward():
    layer = poolgrad.MaxPool2d(2)
    layer.forward(np.zeros((4, 4)))
    layer.forward([[1, 2], [3, 4]])
    assert layer.backward([[5.0]]).tolist() == [[0.0, 0.0], [0.0, 5.0]]
    assert "MaxPool2d(kernel_size=(2, 2)" in repr(layer)
    assert "count_include_pad=True" in repr(poolgrad.AvgPool2d(2))


def test_a_layer_is_called_like_a_torch_module():
    x = [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]]
    layer = poolgrad.MaxPool2d(2, stride=1)
    np.testing.assert_array_equal(layer(x), poolgrad.max_pool2d(x, 2, 1))
    assert layer(input=x).tolist() == [[4, 8, 8], [4, 8, 8], [9, 9, -2]]
    assert layer.backward(np.ones((3, 3)))[1, 2] == 4.0  # the last call's indices
    assert poolgrad.AvgPool2d(2)(input=x).tolist() == [[2.5, 6.5], [1.0, -4.0]]


def test_max_layer_returns_indices_when_asked_as_torch_does():
    layer = poolgrad.MaxPool2d(2, return_indices=True)
    out, indices = layer([[1, 2, 5, 6], [3, 4, 8, 7]])
    assert out.tolist() == [[4, 8]] and indices.tolist() == [[5, 6]]
    assert "return_indices=True" in repr(layer)
    # torch.nn.MaxPool2d's fifth argument is return_indices, functional max_pool2d's is
    # ceil_mode: poolgrad takes both by keyword only rather than guess.
    with pytest.raises(TypeError, match="positional"):
        poolgrad.MaxPool2d(2, 2, 0, 1, True)
    with pytest.raises(TypeError, match="return_indices must be True or False"):
        poolgrad.MaxPool2d(2, return_indices=1)


@pytest.mark.parametrize("layer", [poolgrad.MaxPool2d(2), poolgrad.AvgPool2d(2)],
                         ids=["max", "avg"])
def test_backward_of_the_wrong_shape_names_what_the_user_passed(layer):
    layer(np.zeros((1, 4, 4)))
    with pytest.raises(ValueError) as raised:
        layer.backward(np.ones((2, 3)))
    message = str(raised.value)
    name = type(layer).__name__
    assert message == (f"grad_output has shape (2, 3) but {name}'s last forward output has "
                       "shape (1, 2, 2): they must match")
    assert "indices" not in message and "input_shape" not in message


# The network around the pooling layer: Conv2d, ReLU, MSELoss, L1Loss.

def test_conv2d_draws_torch_s_default_distribution_from_rng():
    layer = poolgrad.Conv2d(4, 6, (3, 2), groups=2, rng=7)
    bound = 1 / np.sqrt(2 * 3 * 2)
    assert layer.weight.shape == (6, 2, 3, 2) and layer.bias.shape == (6,)
    assert np.abs(layer.weight).max() <= bound and np.abs(layer.bias).max() <= bound
    assert np.abs(layer.weight).max() > 0.8 * bound  # spread over the whole range
    np.testing.assert_array_equal(layer.weight, poolgrad.Conv2d(4, 6, (3, 2), groups=2, rng=7).weight)
    assert poolgrad.Conv2d(1, 1, 2, bias=False).bias is None


def test_conv2d_layer_is_the_functions():
    rng = np.random.default_rng(8)
    layer = poolgrad.Conv2d(2, 3, 3, stride=2, padding=1, dilation=1, rng=rng)
    x = rng.standard_normal((2, 2, 7, 6))
    out = layer(x)
    np.testing.assert_array_equal(out, poolgrad.conv2d(x, layer.weight, layer.bias, 2, 1))
    grad = rng.standard_normal(out.shape)
    grad_input = layer.backward(grad)
    expected = poolgrad.conv2d_backward(grad, x, layer.weight, 2, 1)
    for actual, wanted in zip((grad_input, layer.grad_weight, layer.grad_bias), expected):
        np.testing.assert_array_equal(actual, wanted)
    with pytest.raises(ValueError, match=r"grad_output has shape \(1, 3, 4, 3\) but Conv2d's last"):
        layer.backward(np.ones((1, 3, 4, 3)))
    assert "Conv2d(2, 3, kernel_size=(3, 3), stride=(2, 2), padding=1" in repr(layer)


@pytest.mark.parametrize("call, message", [
    (lambda: poolgrad.Conv2d(0, 1, 3), "in_channels must be an int of at least 1, got 0"),
    (lambda: poolgrad.Conv2d(3, 2, 3, groups=2), "in_channels=3 must be divisible by groups=2"),
    (lambda: poolgrad.Conv2d(1, 1, 0), "kernel_size must be at least 1"),
    (lambda: poolgrad.Conv2d(1, 1, 3, stride=2, padding="same"), "padding='same' is not supported"),
    (lambda: poolgrad.MSELoss("avg"), "reduction must be one of 'none', 'mean', 'sum'"),
])
def test_network_layers_check_their_parameters_when_built(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_backward_before_forward_is_refused():
    for layer in (poolgrad.Conv2d(1, 1, 2), poolgrad.ReLU(), poolgrad.MSELoss(), poolgrad.L1Loss()):
        with pytest.raises(RuntimeError, match="needs a forward call first"):
            layer.backward(1.0) if isinstance(layer, (poolgrad.MSELoss, poolgrad.L1Loss)) \
                else layer.backward([[1.0]])


def test_relu_and_the_loss_layers_are_the_functions():
    relu = poolgrad.ReLU()
    x = np.array([[-1.0, 0.0, 2.0]])
    np.testing.assert_array_equal(relu(x), poolgrad.relu(x))
    np.testing.assert_array_equal(relu.backward([[1.0, 1.0, 1.0]]), [[0, 0, 1]])
    for layer, function, backward in ((poolgrad.MSELoss("sum"), poolgrad.mse_loss, poolgrad.mse_loss_backward),
                                      (poolgrad.L1Loss(), poolgrad.l1_loss, poolgrad.l1_loss_backward)):
        target = np.array([[1.0, 0.0, 2.0]])
        assert layer(x, target) == function(x, target, layer.reduction)
        np.testing.assert_array_equal(layer.backward(), backward(1.0, x, target, layer.reduction))
        np.testing.assert_array_equal(layer.backward(2.0), backward(2.0, x, target, layer.reduction))


@pytest.mark.torch
def test_the_capstone_with_layers_matches_torch_nn(torch):
    rng = np.random.default_rng(9)
    conv, pool, crit = poolgrad.Conv2d(2, 2, 3, rng=rng), poolgrad.MaxPool2d(2), poolgrad.MSELoss()
    x, target = rng.standard_normal((1, 2, 6, 6)), rng.standard_normal((1, 2, 2, 2))
    loss = crit(pool(conv(x)), target)
    conv.backward(pool.backward(crit.backward()))
    module = torch.nn.Conv2d(2, 2, 3).double()
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy(conv.weight))
        module.bias.copy_(torch.from_numpy(conv.bias))
    tensor = torch.tensor(x, requires_grad=True)
    expected = torch.nn.MSELoss()(torch.nn.MaxPool2d(2)(module(tensor)), torch.tensor(target))
    expected.backward()
    np.testing.assert_allclose(loss, expected.item(), rtol=1e-12)
    np.testing.assert_allclose(conv.grad_weight, module.weight.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(conv.grad_bias, module.bias.grad.numpy(), rtol=1e-12)
