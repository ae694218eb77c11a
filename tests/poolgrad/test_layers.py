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
