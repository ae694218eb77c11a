"""PyTorch parity without PyTorch: answers recorded by scripts/make_golden.py.

Every case must match bit for bit: outputs (signed zeros and NaN signs included),
dtypes, indices and the gradients of the input.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import poolgrad

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "golden.npz"


def _load():
    with np.load(GOLDEN) as data:
        cases = json.loads(str(data["cases"]))
        arrays = {key: data[key] for key in data.files}
    return [(params, {name.split("/", 1)[1]: array for name, array in arrays.items()
                      if name.startswith(f"{number}/")})
            for number, params in enumerate(cases)]


CASES = _load()


def _describe(case):
    params, arrays = case
    return (f"{params['mode']}-{arrays['x'].dtype}-{'x'.join(map(str, arrays['x'].shape))}"
            f"-k{params['kernel_size']}-s{params['stride']}-p{params['padding']}")


def test_the_golden_file_is_varied():
    modes = {params["mode"] for params, _ in CASES}
    dtypes = {str(arrays["x"].dtype) for _, arrays in CASES}
    assert len(CASES) >= 300 and modes == {"max", "avg"}
    assert {"float16", "float32", "float64", "int32"} <= dtypes
    assert any(np.isnan(arrays["x"]).any() for _, arrays in CASES
               if arrays["x"].dtype.kind == "f")
    assert any(params["ceil_mode"] for params, _ in CASES)
    assert any(params["dilation"] != [1, 1] for params, _ in CASES)
    assert sum(params["divisor_override"] is not None for params, _ in CASES) >= 40


def _bits(array):
    return array.view(f"u{array.dtype.itemsize}")


@pytest.mark.parametrize("case", CASES, ids=[_describe(case) for case in CASES])
def test_matches_the_recorded_torch_answer(case):
    params, arrays = case
    x = arrays["x"]
    common = dict(kernel_size=tuple(params["kernel_size"]), stride=tuple(params["stride"]),
                  padding=tuple(params["padding"]), ceil_mode=params["ceil_mode"])
    if params["mode"] == "max":
        out, indices = poolgrad.max_pool2d(x, dilation=tuple(params["dilation"]),
                                           return_indices=True, **common)
        np.testing.assert_array_equal(indices, arrays["indices"])
        if "grad" in arrays:
            grad_input = poolgrad.max_pool2d_backward(arrays["grad"], indices, x.shape)
    else:
        avg = dict(common, count_include_pad=params["count_include_pad"],
                   divisor_override=params["divisor_override"])
        out = poolgrad.avg_pool2d(x, **avg)
        grad_input = poolgrad.avg_pool2d_backward(arrays["grad"], x.shape, **avg)
    assert out.dtype == arrays["out"].dtype
    np.testing.assert_array_equal(out, arrays["out"])
    if out.dtype.kind == "f" and params["mode"] == "max":
        np.testing.assert_array_equal(_bits(out), _bits(arrays["out"]))
    if "grad" in arrays:
        assert grad_input.dtype == arrays["grad_input"].dtype
        np.testing.assert_array_equal(grad_input, arrays["grad_input"])


def _load_family():
    with np.load(GOLDEN) as data:
        cases = json.loads(str(data["family_cases"]))
        arrays = {key: data[key] for key in data.files if key.startswith("family/")}
    return [(params, {name.split("/", 2)[2]: array for name, array in arrays.items()
                      if name.startswith(f"family/{number}/")})
            for number, params in enumerate(cases)]


FAMILY = _load_family()


def _same_bits(actual, expected):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(_bits(np.ascontiguousarray(actual)), _bits(expected))


def test_the_family_golden_cases_are_varied():
    kinds = {params["kind"] for params, _ in FAMILY}
    assert kinds == {"adaptive_avg", "adaptive_max", "lp", "unpool"}
    sizes = [params["output_size"] for params, _ in FAMILY if "output_size" in params]
    assert 1 in sizes and any(isinstance(s, list) and None in s for s in sizes)
    assert any(isinstance(s, list) and None not in s and s[0] > arrays["x"].shape[-2]
               for (params, arrays), s in zip(
                   [c for c in FAMILY if "output_size" in c[0]], sizes))
    assert any(np.isnan(arrays["x"]).any() for _, arrays in FAMILY)


@pytest.mark.parametrize("case", FAMILY, ids=[
    f"{p['kind']}-{a['x'].dtype}-{'x'.join(map(str, a['x'].shape))}-{n}"
    for n, (p, a) in enumerate(FAMILY)])
def test_the_family_matches_the_recorded_torch_answer(case):
    params, arrays = case
    x, kind = arrays["x"], params["kind"]
    if kind == "unpool":
        size = x.shape[-2:] if params["explicit_size"] else None
        out = poolgrad.max_unpool2d(arrays["pooled"], arrays["indices"], params["kernel_size"],
                                    params["stride"], params["padding"], size)
        _same_bits(out, arrays["out"])
        return
    output_size = params.get("output_size")
    if kind == "adaptive_avg":
        out = poolgrad.adaptive_avg_pool2d(x, output_size)
        grad_input = poolgrad.adaptive_avg_pool2d_backward(arrays["grad"], x.shape)
    elif kind == "adaptive_max":
        out, indices = poolgrad.adaptive_max_pool2d(x, output_size, return_indices=True)
        np.testing.assert_array_equal(indices, arrays["indices"])
        grad_input = poolgrad.adaptive_max_pool2d_backward(arrays["grad"], indices, x.shape)
    else:
        args = (params["norm_type"], params["kernel_size"], params["stride"], params["ceil_mode"])
        out = poolgrad.lp_pool2d(x, *args)
        grad_input = poolgrad.lp_pool2d_backward(arrays["grad"], x, *args)
        if params["norm_type"] in (2.0, 3.0):
            # The root goes through torch's vectorised pow (within an ulp), not NumPy's.
            tolerance = 4 * np.finfo(x.dtype).eps
            np.testing.assert_allclose(out, arrays["out"], rtol=tolerance, atol=tolerance)
            np.testing.assert_allclose(grad_input, arrays["grad_input"], rtol=8 * tolerance,
                                       atol=8 * tolerance)
            return
    _same_bits(out, arrays["out"])
    _same_bits(grad_input, arrays["grad_input"])


def _load_network():
    with np.load(GOLDEN) as data:
        cases = json.loads(str(data["network_cases"]))
        arrays = {key: data[key] for key in data.files if key.startswith(("network/", "lesson/"))}
    return [(params, {name.split("/", 2)[2]: array for name, array in arrays.items()
                      if name.startswith(f"network/{number}/")})
            for number, params in enumerate(cases)], {
        name.split("/", 1)[1]: array for name, array in arrays.items() if name.startswith("lesson/")}


NETWORK, LESSON = _load_network()


def test_the_network_golden_cases_are_varied():
    kinds = [params["kind"] for params, _ in NETWORK]
    assert set(kinds) == {"conv", "relu", "mse", "l1", "chain"} and kinds.count("conv") >= 30
    convs = [params for params, _ in NETWORK if params["kind"] == "conv"]
    assert {"same", "valid"} <= {p["padding"] for p in convs if isinstance(p["padding"], str)}
    assert {p["groups"] for p in convs} == {1, 2} and {p["bias"] for p in convs} == {True, False}
    assert any(p["stride"] != [1, 1] for p in convs) and any(p["dilation"] != [1, 1] for p in convs)
    assert {p["reduction"] for p in (params for params, _ in NETWORK) if "reduction" in p} == {
        "none", "mean", "sum"}
    assert {str(arrays["x"].dtype) for _, arrays in NETWORK} == {"float32", "float64"}


def _close(actual, expected, params, exact=False):
    """Integer values to the last bit; float64 to rtol 1e-12; float32 with
    torch.testing.assert_close's default tolerances."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if exact or params["integers"]:
        np.testing.assert_array_equal(actual, expected)
    elif expected.dtype == np.float64:
        np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1.3e-6, atol=1e-5)


@pytest.mark.parametrize("case", NETWORK, ids=[
    f"{p['kind']}-{a['x'].dtype}-{'x'.join(map(str, a['x'].shape))}-{n}"
    for n, (p, a) in enumerate(NETWORK)])
def test_the_network_matches_the_recorded_torch_answer(case):
    params, arrays = case
    x, kind = arrays["x"], params["kind"]
    if kind == "conv":
        conv = dict(stride=params["stride"], padding=params["padding"],
                    dilation=params["dilation"], groups=params["groups"])
        bias = arrays["bias"] if params["bias"] else None
        _close(poolgrad.conv2d(x, arrays["weight"], bias, **conv), arrays["out"], params)
        grad_input, grad_weight, grad_bias = poolgrad.conv2d_backward(
            arrays["grad"], x, arrays["weight"], **conv, bias=params["bias"])
        _close(grad_input, arrays["grad_input"], params)
        _close(grad_weight, arrays["grad_weight"], params)
        assert (grad_bias is None) == ("grad_bias" not in arrays)
        if grad_bias is not None:
            _close(grad_bias, arrays["grad_bias"], params)
    elif kind == "relu":
        _same_bits(poolgrad.relu(x), arrays["out"])
        _same_bits(poolgrad.relu_backward(arrays["grad"], x), arrays["grad_input"])
    elif kind == "chain":
        t = poolgrad.chain_trace(x[0], arrays["weight"], target=arrays["target"][0],
                                 bias=arrays["bias"])
        _close(np.array(t["loss"]), arrays["out"], params)
        _close(np.array(t["grad_weight"]), arrays["grad_weight"], params)
        _close(np.array(t["grad_bias"]), arrays["grad_bias"], params)
        _close(np.array(t["grad_input"]), arrays["grad_input"][0], params)
    else:
        forward = getattr(poolgrad, f"{kind}_loss")
        backward = getattr(poolgrad, f"{kind}_loss_backward")
        reduction = params["reduction"]
        _close(forward(x, arrays["target"], reduction), arrays["out"], params,
               exact=reduction == "none")
        # One product per cell, in torch's order: the gradient is exact.
        _same_bits(backward(arrays["grad"], x, arrays["target"], reduction), arrays["grad_input"])


def test_the_lesson_s_numbers():
    assert LESSON["x"].tolist() == [[[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1],
                                     [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]]]
    y = poolgrad.conv2d(LESSON["x"], LESSON["weight"])
    assert y.tolist() == [[[-5, -4, 0], [-10, -2, 2], [0, -2, -4]]]
    _same_bits(y, LESSON["y"])
    grad_input, grad_weight, _ = poolgrad.conv2d_backward(LESSON["ramp"], LESSON["x"],
                                                          LESSON["weight"])
    _same_bits(grad_weight, LESSON["grad_weight"])
    _same_bits(grad_input, LESSON["grad_input"])


def test_ci_installs_the_torch_that_recorded_the_golden_file():
    # The byte-for-byte check below skips under another torch; CI's pin keeps it running there.
    with np.load(GOLDEN) as data:
        recorded_with = str(data["torch_version"]).split("+")[0]
    ci = (GOLDEN.parent.parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert f"torch=={recorded_with}" in ci, f".ci/run does not install torch {recorded_with}, which recorded golden.npz"


@pytest.mark.torch
def test_the_golden_file_is_what_make_golden_writes(torch, tmp_path):
    # Regenerating with the same torch gives the committed file byte for byte.
    from scripts import make_golden  # the repository is on the import path (tests/conftest.py)

    with np.load(GOLDEN) as data:
        recorded_with = str(data["torch_version"])
    if recorded_with != torch.__version__:
        pytest.skip(f"golden.npz was recorded with torch {recorded_with}")
    make_golden.main(tmp_path / "golden.npz")
    assert (tmp_path / "golden.npz").read_bytes() == GOLDEN.read_bytes()
