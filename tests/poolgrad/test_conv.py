"""conv2d and conv2d_backward: the loop reference, PyTorch (float64 to rtol 1e-12, float32
with assert_close's defaults, integer values to the last bit), the lesson's numbers, and
every refusal. The torch-free twin of the PyTorch cases is in test_golden.py."""

import numpy as np
import pytest

import poolgrad
import reference
from poolgrad.validation import conv_parameters

LESSON_X = [[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]]
EDGE = [[1, 0, -1], [1, 0, -1], [1, 0, -1]]


def random_case(rng):
    """One convolution: sizes, 1-3 channels per group, groups, stride, padding (ints,
    pairs, 'same', 'valid'), dilation, bias; unbatched or batched."""
    groups = int(rng.choice([1, 1, 2, 3]))
    per_group = int(rng.integers(1, 4)) if groups == 1 else int(rng.integers(1, 3))
    filters = groups * int(rng.integers(1, 3))
    kernel = tuple(int(v) for v in rng.integers(1, 5, 2))
    stride = tuple(int(v) for v in rng.integers(1, 4, 2))
    dilation = tuple(int(v) for v in rng.integers(1, 3, 2))
    style = int(rng.integers(0, 4))
    padding = ("same" if stride == (1, 1) else 1) if style == 0 else "valid" if style == 1 else (
        int(rng.integers(0, 3)) if style == 2 else tuple(int(v) for v in rng.integers(0, 4, 2)))
    pads = conv_parameters(kernel, stride, padding, dilation).padding
    spans = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
    height = int(rng.integers(max(1, spans[0] - pads[0] - pads[1]), 10))
    width = int(rng.integers(max(1, spans[1] - pads[2] - pads[3]), 10))
    batch = int(rng.choice([0, 1, 2]))  # 0: one unbatched (C, H, W) sample
    shape = (groups * per_group, height, width) if batch == 0 else (
        batch, groups * per_group, height, width)
    return dict(shape=shape, weight_shape=(filters, per_group) + kernel, stride=stride,
                padding=padding, dilation=dilation, groups=groups,
                bias=bool(rng.random() < 0.6))


CASES = [random_case(np.random.default_rng(seed)) for seed in range(150)]


def test_the_generated_cases_cover_the_rules():
    assert {case["padding"] for case in CASES if isinstance(case["padding"], str)} == {
        "same", "valid"}
    assert any(case["padding"] == "same" and case["weight_shape"][2] % 2 == 0 for case in CASES)
    assert {case["groups"] for case in CASES} == {1, 2, 3}
    assert {case["shape"][-3] for case in CASES if case["groups"] == 1} == {1, 2, 3}
    assert any(case["stride"] != (1, 1) for case in CASES)
    assert any(case["dilation"] != (1, 1) for case in CASES)
    assert {case["bias"] for case in CASES} == {True, False}
    assert {len(case["shape"]) for case in CASES} == {3, 4}


def _arrays(case, rng, dtype=np.float64, integers=False):
    draw = (lambda shape: rng.integers(-4, 5, shape)) if integers else rng.standard_normal
    x = draw(case["shape"]).astype(dtype)
    w = draw(case["weight_shape"]).astype(dtype)
    b = draw(case["weight_shape"][0]).astype(dtype) if case["bias"] else None
    return x, w, b


def _params(case):
    return dict(stride=case["stride"], padding=case["padding"], dilation=case["dilation"],
                groups=case["groups"])


def _torch_pass(torch, x, w, b, case, grad):
    tensors = [torch.tensor(a, requires_grad=True) for a in (x, w)] + (
        [torch.tensor(b, requires_grad=True)] if b is not None else [None])
    out = torch.nn.functional.conv2d(*tensors, **_params(case))
    out.backward(torch.tensor(grad))
    return out.detach().numpy(), [t.grad.numpy() if t is not None else None for t in tensors]


@pytest.mark.parametrize("number", range(len(CASES)))
def test_matches_the_loop_reference(number):
    case = CASES[number]
    rng = np.random.default_rng(number)
    x, w, b = _arrays(case, rng)
    out = poolgrad.conv2d(x, w, b, **_params(case))
    batched = x if x.ndim == 4 else x[None]
    pads = conv_parameters(w.shape[2:], case["stride"], case["padding"], case["dilation"]).padding
    loop_args = dict(stride=case["stride"], padding=pads, dilation=case["dilation"],
                     groups=case["groups"])
    expected = reference.conv2d(batched, w, b, **loop_args)
    np.testing.assert_allclose(out, expected if x.ndim == 4 else expected[0], rtol=1e-12,
                               atol=1e-12)
    grad = rng.standard_normal(out.shape)
    grads = poolgrad.conv2d_backward(grad, x, w, **_params(case), bias=b is not None)
    loop = reference.conv2d_backward(grad if x.ndim == 4 else grad[None], batched, w, **loop_args)
    np.testing.assert_allclose(grads[0], loop[0] if x.ndim == 4 else loop[0][0], rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(grads[1], loop[1], rtol=1e-12, atol=1e-12)
    if b is None:
        assert grads[2] is None
    else:
        np.testing.assert_allclose(grads[2], loop[2], rtol=1e-12, atol=1e-12)


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
@pytest.mark.parametrize("number", range(len(CASES)))
def test_matches_torch_in_float64_float32_and_on_integer_values(torch, number):
    case = CASES[number]
    rng = np.random.default_rng(1000 + number)
    for dtype, integers in ((np.float64, False), (np.float32, False), (np.float64, True),
                            (np.float32, True)):
        x, w, b = _arrays(case, rng, dtype, integers)
        out = poolgrad.conv2d(x, w, b, **_params(case))
        grad = (rng.integers(-3, 4, out.shape) if integers
                else rng.standard_normal(out.shape)).astype(dtype)
        expected, torch_grads = _torch_pass(torch, x, w, b, case, grad)
        ours = poolgrad.conv2d_backward(grad, x, w, **_params(case), bias=b is not None)
        assert out.dtype == dtype and all(g is None or g.dtype == dtype for g in ours)
        for actual, wanted in zip((out, *ours), (expected, *torch_grads)):
            if wanted is None:
                assert actual is None
            elif integers:
                np.testing.assert_array_equal(actual, wanted)
            elif dtype == np.float64:
                np.testing.assert_allclose(actual, wanted, rtol=1e-12, atol=1e-12)
            else:
                torch.testing.assert_close(torch.from_numpy(np.ascontiguousarray(actual)),
                                           torch.from_numpy(np.ascontiguousarray(wanted)))


def test_the_lesson_s_vertical_edge():
    y = poolgrad.conv2d([LESSON_X], [[EDGE]])
    assert y.tolist() == [[[-5, -4, 0], [-10, -2, 2], [0, -2, -4]]]
    assert y.dtype == np.float64  # integer inputs give float64 (torch refuses them)


@pytest.mark.torch
def test_the_lesson_s_gradients_are_torch_s(torch):
    x = torch.tensor([LESSON_X], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([[EDGE]], dtype=torch.float64, requires_grad=True)
    torch.nn.functional.conv2d(x, w).backward(
        torch.arange(1.0, 10.0, dtype=torch.float64).reshape(1, 3, 3))
    grad_input, grad_weight, _ = poolgrad.conv2d_backward(
        np.arange(1.0, 10.0).reshape(1, 3, 3), [LESSON_X], [[EDGE]])
    np.testing.assert_array_equal(grad_weight, w.grad.numpy())
    np.testing.assert_array_equal(grad_input, x.grad.numpy())


def test_grad_input_is_the_full_correlation_with_the_filter_turned():
    # The lesson's identity, written with conv2d itself: pad the gradient by k - 1 and
    # correlate it with the filter turned 180 degrees.
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((1, 6, 7)), rng.standard_normal((1, 1, 3, 2))
    grad = rng.standard_normal(poolgrad.conv2d(x, w).shape)
    grad_input, grad_weight, _ = poolgrad.conv2d_backward(grad, x, w)
    full = poolgrad.conv2d(grad, w[:, :, ::-1, ::-1], padding=(2, 1))
    np.testing.assert_allclose(grad_input, full, rtol=1e-12, atol=1e-12)
    # ...and grad_weight the correlation of the input with the gradient.
    np.testing.assert_allclose(grad_weight[0], poolgrad.conv2d(x, grad[None]), rtol=1e-12)


def test_stride_two_is_the_dilated_gradient():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((1, 7, 7)), rng.standard_normal((1, 1, 3, 3))
    grad = rng.standard_normal(poolgrad.conv2d(x, w, stride=2).shape)
    dilated = np.zeros((1, 5, 5))
    dilated[:, ::2, ::2] = grad
    np.testing.assert_allclose(poolgrad.conv2d_backward(grad, x, w, stride=2)[0],
                               poolgrad.conv2d_backward(dilated, x, w)[0], rtol=1e-12)


def test_same_padding_with_an_even_kernel_pads_bottom_and_right():
    x = np.arange(16.0).reshape(1, 4, 4)
    out = poolgrad.conv2d(x, np.ones((1, 1, 2, 2)), padding="same")
    np.testing.assert_array_equal(out, poolgrad.conv2d(np.pad(x, ((0, 0), (0, 1), (0, 1))),
                                                       np.ones((1, 1, 2, 2))))


def test_dtypes():
    x = np.ones((1, 3, 3), np.float32)
    assert poolgrad.conv2d(x, np.ones((1, 1, 2, 2), np.float32)).dtype == np.float32
    assert poolgrad.conv2d(x.astype(np.float16), np.ones((1, 1, 2, 2), np.float16)).dtype == np.float16
    assert poolgrad.conv2d(np.ones((1, 3, 3), int), np.ones((1, 1, 2, 2), int)).dtype == np.float64
    assert poolgrad.conv2d(np.zeros((0, 1, 3, 3)), np.ones((2, 1, 2, 2))).shape == (0, 2, 2, 2)


@pytest.mark.parametrize("call, error, message", [
    (lambda: poolgrad.conv2d(np.ones((3, 3)), np.ones((1, 1, 2, 2))), ValueError,
     r"input must be 3-D \(C, H, W\) or 4-D"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((2, 2))), ValueError,
     r"weight must be 4-D \(out_channels, in_channels / groups, kh, kw\)"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 4, 2))), ValueError,
     r"the filter \(4 x 2, dilation 1, reaching 4 x 2 cells\) is larger than the padded input \(3 x 3\)"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 2, 2)), dilation=3), ValueError,
     "reaching 4 x 4 cells"),
    (lambda: poolgrad.conv2d(np.ones((2, 3, 3)), np.ones((1, 1, 2, 2))), ValueError,
     r"input has 2 channels but weight expects 1"),
    (lambda: poolgrad.conv2d(np.ones((2, 3, 3)), np.ones((3, 1, 2, 2)), groups=2), ValueError,
     "weight has 3 filters .* groups=2 does not divide"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 2, 2)), stride=2,
                             padding="same"), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 2, 2)), padding="full"),
     ValueError, "padding must be an int, an \\(h, w\\) pair, 'valid' or 'same'"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 2, 2)), padding=-1),
     ValueError, "padding must be at least 0, got -1"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 2, 2)), stride=0),
     ValueError, "stride must be at least 1, got 0"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 2, 2)), dilation=(1, 0)),
     ValueError, r"dilation must be at least 1, got \(1, 0\)"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 2, 2)), groups=0),
     ValueError, "groups must be at least 1, got 0"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 2, 2)), groups=1.5),
     TypeError, "groups must be an int"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((2, 1, 2, 2)), bias=[1.0]),
     ValueError, r"bias must hold one number per filter \(2\)"),
    (lambda: poolgrad.conv2d(np.ones((1, 3, 3)), np.ones((1, 1, 2, 2)), padding=10**5),
     ValueError, "the padded input would hold .* numbers: at most"),
    (lambda: poolgrad.conv2d_backward(np.ones((1, 3, 3)), np.ones((1, 3, 3)),
                                      np.ones((1, 1, 2, 2))), ValueError,
     r"grad_output has shape \(1, 3, 3\) but the convolution's output has shape \(1, 2, 2\)"),
    (lambda: poolgrad.conv2d_backward(np.ones((1, 2, 2)), np.ones((1, 3, 3)),
                                      np.ones((1, 1, 2, 2)), bias=1), TypeError,
     "bias must be True or False"),
])
def test_every_rule_has_its_message(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("kwargs, named", [
    ({"stride": 10**400}, r"stride=1000000000\.\.\. \(401 digits\) is too large: convolution parameters"),
    ({"padding": 10**30}, "padding=1000000000000000000000000000000 is too large: convolution parameters"),
    ({"dilation": (1, 2**63)}, "dilation=9223372036854775808 is too large: convolution parameters"),
])
def test_a_parameter_beyond_64_bits_is_named_as_the_convolutions(kwargs, named):
    # Once said "pooling parameters are 64-bit integers", of a convolution's own parameter.
    x, weight = np.ones((1, 4, 4)), np.ones((1, 1, 2, 2))
    with pytest.raises(ValueError, match=named):
        poolgrad.conv2d(x, weight, **kwargs)
    with pytest.raises(ValueError, match=named):
        poolgrad.conv2d_backward(np.ones((1, 3, 3)), x, weight, **kwargs)
    with pytest.raises(ValueError, match=named):
        poolgrad.chain_trace(np.ones((4, 4)), np.ones((2, 2)), grad_output=1, pool=None, **kwargs)


@pytest.mark.torch
def test_torch_refuses_what_poolgrad_refuses(torch):
    functional = torch.nn.functional
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided"):
        functional.conv2d(torch.ones(1, 3, 3), torch.ones(1, 1, 2, 2), stride=2, padding="same")
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        functional.conv2d(torch.ones(1, 3, 3), torch.ones(1, 1, 4, 2))
