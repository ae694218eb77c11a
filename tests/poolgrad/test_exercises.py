"""The lesson's exercise examples, every one."""

from pathlib import Path

import numpy as np
import pytest

from poolgrad import exercises

# The lesson's conv example as the math issue recorded it (tests/data/golden.npz, "lesson/").
GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden.npz"


def test_backward_2x2_stride_2():
    assert exercises.max_pool2d_backward(
        [[1, 3, 2, 4], [5, 2, 8, 6], [3, 7, 1, 5], [2, 4, 9, 0]],
        [[1.5, 2.5], [3.5, 4.5]], 2, 2,
    ) == [[0, 0, 0, 0], [1.5, 0, 2.5, 0], [0, 3.5, 0, 0], [0, 0, 4.5, 0]]


def test_backward_single_window():
    assert exercises.max_pool2d_backward([[10, 20], [15, 5]], [[1]], 2, 2) == [[0, 1], [0, 0]]


def test_backward_overlapping_windows_add_up():
    assert exercises.max_pool2d_backward([[1, 5, 2], [3, 4, 1]], [[1, 2]], 2, 1) == [
        [0, 3, 0], [0, 0, 0]]


def test_backward_returns_plain_lists_rounded_to_4_decimals():
    result = exercises.max_pool2d_backward([[1, 2], [3, 4]], [[1 / 3]], 2, 2)
    assert result == [[0.0, 0.0], [0.0, 0.3333]]
    assert type(result) is list and type(result[1][1]) is float
    assert exercises.max_pool2d_backward([[1, 2], [3, 4]], [[-1e-9]])[1][1] == 0.0
    assert str(exercises.max_pool2d_backward([[1, 2], [3, 4]], [[-1e-9]])[1][1]) == "0.0"


def test_forward_examples():
    assert exercises.max_pool2d([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12],
                                 [13, 14, 15, 16]]).tolist() == [[6, 8], [14, 16]]
    result = exercises.max_pool2d(np.arange(30).reshape(5, 6) * 0.5, pool_size=3)
    assert result.tolist() == [[7.0, 8.5]]
    assert isinstance(result, np.ndarray)


def test_negative_inputs_work():
    assert exercises.max_pool2d([[-1, -2], [-3, -4]]).tolist() == [[-1]]
    assert exercises.max_pool2d([[-1, -2]], pool_size=(1, 2)).tolist() == [[-1]]


def test_a_gradient_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match="indices has shape"):
        exercises.max_pool2d_backward([[1, 2], [3, 4]], [[1, 2]])


def test_conv2d_backward_gives_the_lesson_s_recorded_gradients():
    with np.load(GOLDEN) as golden:
        x, weight, ramp = golden["lesson/x"][0], golden["lesson/weight"][0, 0], golden["lesson/ramp"][0]
        grad_w, grad_x = exercises.conv2d_backward(x, weight, ramp)
        np.testing.assert_array_equal(grad_w, golden["lesson/grad_weight"][0, 0])
        np.testing.assert_array_equal(grad_x, golden["lesson/grad_input"][0])
    assert grad_w.tolist() == [[171, 232, 184], [125, 156, 166], [98, 127, 147]]
    assert grad_x[:, 0].tolist() == [1, 5, 12, 11, 7]


def test_conv2d_backward_edge_cases():
    # A 1 x 1 filter: dL/dW is the sum of x * dL/dY, dL/dX is w * dL/dY.
    grad_w, grad_x = exercises.conv2d_backward([[1, 2], [3, 4]], [[-2]], [[1, 0], [2, -1]])
    assert grad_w.tolist() == [[1 + 6 - 4]] and grad_x.tolist() == [[-2, 0], [-4, 2]]
    # A filter as big as the input: one output.
    grad_w, grad_x = exercises.conv2d_backward([[1, -2, 3]], [[4, 5, -6]], [[0.5]])
    assert grad_w.tolist() == [[0.5, -1, 1.5]] and grad_x.tolist() == [[2, 2.5, -3]]
    # Non-square: a 2 x 3 input, a 1 x 2 filter, so dL/dY is 2 x 2; turned 180°, [a, b] is [b, a].
    grad_w, grad_x = exercises.conv2d_backward([[1, 2, 3], [4, 5, 6]], [[1, 10]], [[1, 0], [0, 2]])
    assert grad_w.tolist() == [[1 + 10, 2 + 12]]
    assert grad_x.tolist() == [[1, 10, 0], [0, 2, 20]]
    assert grad_w.dtype == grad_x.dtype == np.float64


def test_conv2d_backward_refuses_what_is_not_one_channel():
    with pytest.raises(ValueError, match=r"x and w must be 2-D \(one channel, one filter\); got x of shape \(1, 2, 2\)"):
        exercises.conv2d_backward([[[1, 2], [3, 4]]], [[1]], [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="grad_output"):
        exercises.conv2d_backward([[1, 2], [3, 4]], [[1]], [[1, 2]])


def test_mse_loss_backward_is_two_over_n_times_the_difference():
    assert exercises.mse_loss_backward([[4, 2], [3.5, 3]], [[2, 1], [0, 3]]).tolist() == [[1, 0.5], [1.75, 0]]
    # n counts every cell: 6 here, not the 2 rows.
    assert exercises.mse_loss_backward([[3, 0, 0], [0, 0, -3]], np.zeros((2, 3))).tolist() == [[1, 0, 0], [0, 0, -1]]
    assert exercises.mse_loss_backward([[5]], [[2]]).tolist() == [[6]]
    with pytest.raises(ValueError, match="target has shape"):
        exercises.mse_loss_backward([[1, 2]], [[1], [2]])
