"""Every bad-input rule: the exception type and a message that names the parameter."""

import numpy as np
import pytest

import poolgrad
from poolgrad.geometry import geometry
from poolgrad.validation import MAX_ELEMENTS, as_flag, as_input, input_shape_of, pooling_parameters


# -- as_input -------------------------------------------------------------------------

def test_nested_lists_become_arrays_and_arrays_pass_through_uncopied():
    assert as_input([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    array = np.ones((2, 3, 4, 5), np.float32)
    assert as_input(array) is array


@pytest.mark.parametrize("value, error, message", [
    ([[1, 2], [3]], ValueError, "x has ragged rows"),
    ([[[1, 2]], [[3, 4], [5, 6]]], ValueError, "x has ragged rows"),
    ([[1, "a"]], TypeError, "x must hold numbers, got values of type str"),
    ([[None, 1]], TypeError, "x must hold numbers, got a value of type NoneType"),
    ([[object()]], TypeError, "x must hold numbers, got a value of type object"),
    ([[1 + 2j]], TypeError, "x must hold numbers, got values of type complex"),
    ([[True, False]], TypeError, "x holds booleans"),
    ([[2**70, 1]], ValueError, "x holds integers outside the 64-bit range"),
    ([], ValueError, r"x must be 2-D \(H, W\), 3-D \(C, H, W\) or 4-D \(N, C, H, W\), got 1-D"),
    ([1, 2, 3], ValueError, r"got 1-D with shape \(3,\)"),
    (np.ones((1, 1, 1, 2, 2)), ValueError, "got 5-D"),
    (5, ValueError, "got 0-D"),
    ([[]], ValueError, r"x is empty \(shape \(1, 0\)\)"),
    (np.ones((0, 3, 3)), ValueError, "x is empty"),
])
def test_as_input_refuses_with_a_named_rule(value, error, message):
    with pytest.raises(error, match=message):
        as_input(value)


def test_as_input_names_the_parameter_it_checks():
    with pytest.raises(ValueError, match="grad_output has ragged rows"):
        as_input([[1], [2, 3]], name="grad_output")


def test_numbers_mixed_with_a_bool_are_numbers():
    assert as_input([[1.5, True]]).tolist() == [[1.5, 1.0]]


# -- parameters -----------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, message", [
    ({"kernel_size": 2.5}, TypeError, "kernel_size must be an int or an \\(h, w\\) pair of ints, got 2.5"),
    ({"kernel_size": "3"}, TypeError, "kernel_size must be an int .* got '3'"),
    ({"kernel_size": True}, TypeError, "kernel_size must be an int"),
    ({"kernel_size": (2, 2.0)}, TypeError, "kernel_size must be an int or an \\(h, w\\) pair of ints, got 2.0"),
    ({"kernel_size": (2, 2, 2)}, ValueError, "kernel_size must be an int or an \\(h, w\\) pair, got 3 values"),
    ({"kernel_size": None}, TypeError, "kernel_size must be an int"),
    ({"kernel_size": 0}, ValueError, "kernel_size must be at least 1, got 0"),
    ({"kernel_size": (2, -1)}, ValueError, "kernel_size must be at least 1, got \\(2, -1\\)"),
    ({"kernel_size": 2, "stride": 0}, ValueError, "stride must be at least 1, got 0"),
    ({"kernel_size": 2, "stride": 1.5}, TypeError, "stride must be an int"),
    ({"kernel_size": 2, "dilation": 0}, ValueError, "dilation must be at least 1, got 0"),
    ({"kernel_size": 2, "padding": -1}, ValueError, "padding must be at least 0, got -1"),
    ({"kernel_size": 4, "padding": 3}, ValueError,
     "padding=3 is too large for kernel_size=4: padding must be at most kernel_size // 2 = 2"),
    ({"kernel_size": (4, 2), "padding": (1, 2)}, ValueError,
     r"padding=\(1, 2\) is too large for kernel_size=\(4, 2\): padding must be at most "
     r"kernel_size // 2 = \(2, 1\)"),
    ({"kernel_size": 1, "padding": 1}, ValueError, "padding=1 is too large for kernel_size=1"),
    ({"kernel_size": 10**9}, ValueError, "kernel_size=1000000000 is too large: a window may hold at most"),
    ({"kernel_size": (1, 10**6)}, ValueError, "is too large: a window may hold at most 65536 cells"),
    ({"kernel_size": 2, "ceil_mode": 1}, TypeError, "ceil_mode must be True or False, got 1"),
    ({"kernel_size": 2, "ceil_mode": "yes"}, TypeError, "ceil_mode must be True or False"),
])
def test_parameter_rules(kwargs, error, message):
    with pytest.raises(error, match=message):
        pooling_parameters(**kwargs)
    with pytest.raises(error, match=message):
        geometry((8, 8), **kwargs)
    with pytest.raises(error, match=message):
        poolgrad.max_pool2d(np.zeros((8, 8)), **kwargs)


def test_numpy_integers_and_arrays_are_accepted_as_parameters():
    params = pooling_parameters(np.int64(3), np.array([1, 2]), np.int32(1), (np.uint8(1), 1))
    assert params.kernel == (3, 3) and params.stride == (1, 2) and params.padding == (1, 1)
    assert all(type(v) is int for pair in params[:4] for v in pair)


def test_stride_none_means_the_kernel():
    assert pooling_parameters((3, 2)).stride == (3, 2)


def test_as_flag_accepts_numpy_bools():
    assert as_flag(np.bool_(False), "ceil_mode") is False


# -- input_shape ----------------------------------------------------------------------

@pytest.mark.parametrize("shape, error, message", [
    ((10**5, 10**5), ValueError, r"input_shape=\(100000, 100000\) is too large"),
    ((4,), ValueError, "input_shape must be 2-D"),
    ((1, 1, 1, 2, 2), ValueError, "input_shape must be 2-D"),
    ((0, 4), ValueError, "input_shape must have sizes of at least 1"),
    ((4, 4.0), TypeError, "input_shape must be a tuple of ints"),
    (16, TypeError, "input_shape must be a tuple of ints like"),
    ("44", TypeError, "input_shape must be a tuple of ints like"),
])
def test_input_shape_rules(shape, error, message):
    with pytest.raises(error, match=message):
        input_shape_of(shape)


def test_input_shape_limit_is_the_element_count():
    assert input_shape_of((MAX_ELEMENTS // 4, 2, 2)) == (MAX_ELEMENTS // 4, 2, 2)
    with pytest.raises(ValueError, match="too large"):
        input_shape_of((MAX_ELEMENTS // 4 + 1, 2, 2))
