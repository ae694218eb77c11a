"""The lesson's exercise examples, every one."""

import numpy as np
import pytest

from poolgrad import exercises


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
