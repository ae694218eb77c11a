"""Generate tests/data/golden.npz: PyTorch's answers on a few hundred pooling cases.

The core tests compare poolgrad with these answers without needing torch. Run with
torch 2.13 (CPU) installed:

    python scripts/make_golden.py

Cases: random small 2-D/3-D/4-D inputs with random valid parameters (kernel, stride,
padding, dilation, ceil_mode, count_include_pad, non-square pairs), values drawn to
produce ties (small integers), NaN and -inf, in float32, float64, float16 and int32
(max only), plus hand-picked edge cases and average poolings with a divisor_override.
Each case stores its input, PyTorch's output (and indices for max), an upstream gradient
and PyTorch's gradient of the input.

The rest of the family (adaptive average and max pooling, LP pooling, max_unpool2d) is
stored beside them under ``family/<n>/<name>``, described by ``family_cases``, drawn from
its own seed, so the keys above keep their bytes when the family grows.

The network around the pooling layer (conv2d, relu, the MSE and L1 losses, and the
capstone chain conv -> max-pool -> MSE through autograd) is stored under
``network/<n>/<name>``, described by ``network_cases``, from a seed of its own; the
lesson's numbers (its 5 x 5 input, the vertical-edge filter, the upstream ramp 1..9 and
PyTorch's dL/dW and dL/dX) under ``lesson/<name>``.

The file is the same, byte for byte, on every run with the same torch: the draws come
from fixed seeds and the archive's entries carry a fixed timestamp.
"""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from pathlib import Path

import numpy as np
import torch

# torch notes that an even 'same' kernel pads a copy of the input: that case is wanted here.
warnings.filterwarnings("ignore", "Using padding='same' with even kernel")

OUTPUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "golden.npz"
RANDOM_CASES = 320
DIVISOR_CASES = 40
#: Every zip entry's timestamp (zip's epoch), so that the archive depends on its data only.
ENTRY_TIME = (1980, 1, 1, 0, 0, 0)
FIXTURE = [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]]


def torch_output_side(size, kernel, stride, pad, dilation, ceil_mode):
    numerator = size + 2 * pad - dilation * (kernel - 1) - 1
    count = (-(-numerator // stride) if ceil_mode else numerator // stride) + 1
    if ceil_mode and (count - 1) * stride >= size + pad:
        count -= 1
    return count


def covers_input(size, count, kernel, stride, pad, dilation):
    """Every window samples at least one input line (poolgrad refuses otherwise)."""
    for o in range(count):
        lines = [o * stride - pad + a * dilation for a in range(kernel)]
        if not any(0 <= line < size for line in lines):
            return False
    return True


def valid(shape, params):
    for axis in (0, 1):
        size = shape[-2 + axis]
        k, s = params["kernel_size"][axis], params["stride"][axis]
        p, d = params["padding"][axis], params["dilation"][axis]
        count = torch_output_side(size, k, s, p, d, params["ceil_mode"])
        if count < 1 or not covers_input(size, count, k, s, p, d):
            return False
    return True


def random_case(rng):
    mode = "max" if rng.random() < 0.6 else "avg"
    ndim = int(rng.choice([2, 3, 4]))
    height, width = (int(v) for v in rng.integers(1, 11, 2))
    leading = tuple(int(v) for v in rng.integers(1, 4, ndim - 2))
    kernel = [int(v) for v in rng.integers(1, 5, 2)]
    if rng.random() < 0.5:
        kernel = [kernel[0], kernel[0]]
    params = {
        "mode": mode,
        "kernel_size": kernel,
        "stride": [int(v) for v in rng.integers(1, 5, 2)],
        "padding": [int(rng.integers(0, k // 2 + 1)) for k in kernel],
        "dilation": [1, 1] if mode == "avg" else [int(v) for v in rng.integers(1, 4, 2)],
        "ceil_mode": bool(rng.random() < 0.4),
        "count_include_pad": bool(rng.random() < 0.6),
        "divisor_override": None,
    }
    dtypes = ["float32", "float64", "float16"] + (["int32"] if mode == "max" else [])
    dtype = str(rng.choice(dtypes))
    shape = leading + (height, width)
    style = rng.integers(0, 3)
    if style == 0:
        x = rng.integers(-3, 4, shape).astype(np.float64)  # many ties
    elif style == 1:
        x = rng.standard_normal(shape) * 10
    else:
        x = rng.integers(-3, 4, shape).astype(np.float64)
        if dtype != "int32":
            x[rng.random(shape) < 0.15] = np.nan
            x[rng.random(shape) < 0.15] = -np.inf
    return params, x.astype(dtype)


def edge_cases():
    nan, inf = np.nan, np.inf
    base = {"stride": None, "padding": [0, 0], "dilation": [1, 1], "ceil_mode": False,
            "count_include_pad": True, "divisor_override": None}

    def case(mode, x, kernel, dtype="float32", **changes):
        params = dict(base, mode=mode, kernel_size=list(kernel), **changes)
        params["stride"] = params["stride"] or list(kernel)
        return params, np.asarray(x, dtype=dtype)

    return [
        case("max", FIXTURE, (2, 2)),
        case("max", FIXTURE, (3, 3), stride=[1, 1]),
        case("max", FIXTURE, (2, 2), dtype="int32", stride=[1, 1]),
        case("avg", [[12, 10, 9, 6], [11, 8, 13, 5], [2, 14, 15, 0], [4, 3, 7, 1]], (2, 2)),
        case("max", np.full((3, 3), -inf), (3, 3), stride=[1, 1], padding=[1, 1]),
        case("max", [[1.0, nan, 3.0], [nan, 9.0, nan], [0.0, 0.0, 0.0]], (3, 3)),
        case("max", [[nan, nan], [nan, nan]], (2, 2), stride=[1, 1], padding=[1, 1]),
        case("max", np.full((4, 4), 5.0), (2, 2), stride=[1, 1]),
        case("max", np.arange(25.0).reshape(5, 5), (3, 3), stride=[2, 2], padding=[1, 1],
             dilation=[2, 2]),
        case("max", np.arange(25.0).reshape(5, 5), (2, 2), stride=[2, 2], padding=[1, 1],
             ceil_mode=True),
        case("avg", np.arange(25.0).reshape(5, 5), (2, 2), stride=[2, 2], padding=[1, 1],
             ceil_mode=True),
        case("avg", np.arange(25.0).reshape(5, 5), (3, 3), stride=[2, 2], padding=[1, 1],
             ceil_mode=True, count_include_pad=False),
        case("avg", np.arange(1.0, 5.0).reshape(1, 4), (1, 2), stride=[1, 3],
             ceil_mode=True),
        case("max", np.arange(35.0).reshape(5, 7), (3, 2), stride=[1, 2], padding=[1, 0],
             dilation=[1, 3]),
        case("avg", np.arange(35.0).reshape(5, 7), (4, 2), stride=[3, 1], padding=[2, 1],
             count_include_pad=False),
        case("max", np.random.default_rng(5).integers(-2, 3, (2, 3, 6, 6)), (3, 3),
             dtype="float64", stride=[1, 1], padding=[1, 1]),
        case("avg", np.random.default_rng(6).standard_normal((2, 3, 7, 6)), (3, 3),
             dtype="float64", stride=[1, 1], padding=[1, 1]),
        # The value at the chosen index, bit for bit: signed zeros, NaNs of both signs.
        case("max", [[-0.0, 0.0, 0.0, -0.0], [0.0, -0.0, -0.0, -0.0]], (1, 2),
             stride=[1, 1]),
        case("max", [[-0.0, 0.0, 0.0, -0.0], [0.0, -0.0, -0.0, -0.0]], (2, 2),
             dtype="float64", stride=[1, 1], padding=[1, 1]),
        case("max", np.array([[0x7FF8000000000001, 0xFFF8000000000002, 0x3FF0000000000000],
                              [0xFFF8000000000003, 0x7FF8000000000004, 0x0]],
                             np.uint64).view(np.float64), (2, 2), dtype="float64",
             stride=[1, 1]),
        # Parameters far larger than the input cost nothing.
        case("max", np.arange(16.0).reshape(4, 4), (2, 2), stride=[10**9, 10**9]),
        case("avg", np.arange(16.0).reshape(4, 4), (2, 2), stride=[10**9, 10**9]),
        case("max", np.arange(16.0).reshape(4, 4), (2, 2), stride=[10**9, 10**9],
             dilation=[10**8, 10**8], ceil_mode=True),
        case("avg", np.arange(20.0).reshape(4, 5), (3, 3), stride=[10**9, 2], padding=[1, 1],
             ceil_mode=True, count_include_pad=False),
        # divisor_override replaces every window's divisor, padding and ceil mode or not.
        case("avg", [[12, 10, 9, 6], [11, 8, 13, 5], [2, 14, 15, 0], [4, 3, 7, 1]], (2, 2),
             divisor_override=3),
        case("avg", np.arange(25.0).reshape(5, 5), (3, 3), stride=[2, 2], padding=[1, 1],
             ceil_mode=True, count_include_pad=False, divisor_override=2),
        case("avg", np.arange(12.0).reshape(3, 4), (2, 2), stride=[1, 1], divisor_override=-5),
    ]


def divisor_case(rng):
    """A random average pooling whose divisor is overridden."""
    while True:
        params, x = random_case(rng)
        if params["mode"] == "avg" and valid(x.shape, params):
            params["divisor_override"] = int(rng.choice([-3, -1, 1, 2, 3, 5, 7, 1000]))
            return params, x


def run_torch(params, x):
    planes = torch.from_numpy(x.reshape((-1,) + x.shape[-2:]))
    k, s, p = params["kernel_size"], params["stride"], params["padding"]
    rng = np.random.default_rng(x.size)
    arrays = {"x": x}
    if params["mode"] == "max":
        out, indices = torch.ops.aten.max_pool2d_with_indices(
            planes, k, s, p, params["dilation"], params["ceil_mode"])
        arrays["indices"] = indices.numpy().reshape(x.shape[:-2] + tuple(out.shape[-2:]))
        if x.dtype.kind == "f":
            grad = rng.integers(-8, 9, out.shape).astype(x.dtype) / 4
            grad_input = torch.ops.aten.max_pool2d_with_indices_backward(
                torch.from_numpy(grad), planes, k, s, p, params["dilation"],
                params["ceil_mode"], indices)
    else:
        args = (k, s, p, params["ceil_mode"], params["count_include_pad"],
                params["divisor_override"])
        out = torch.ops.aten.avg_pool2d(planes, *args)
        grad = rng.standard_normal(out.shape).astype(x.dtype)
        grad_input = torch.ops.aten.avg_pool2d_backward(torch.from_numpy(grad), planes, *args)
    out_shape = x.shape[:-2] + tuple(out.shape[-2:])
    arrays["out"] = out.numpy().reshape(out_shape)
    if x.dtype.kind == "f":
        arrays["grad"] = grad.reshape(out_shape)
        arrays["grad_input"] = grad_input.numpy().reshape(x.shape)
    return arrays


FAMILY_CASES = 160


def family_case(rng):
    """One random case of the family: sizes, output sizes with None and larger than the
    input, ties, NaN, -inf and signed zeros, float32/float64 (and float16 for adaptive)."""
    kind = str(rng.choice(["adaptive_avg", "adaptive_max", "lp", "unpool"]))
    ndim = int(rng.choice([3, 4]))
    height, width = (int(v) for v in rng.integers(1, 12, 2))
    leading = tuple(int(v) for v in rng.integers(1, 3, ndim - 2))
    dtypes = ["float32", "float64"] + (["float16"] if kind.startswith("adaptive") else [])
    dtype = str(rng.choice(dtypes))
    shape = leading + (height, width)
    style = int(rng.integers(0, 4))
    x = (rng.integers(-3, 4, shape) if style in (0, 3) else rng.standard_normal(shape) * 4)
    x = x.astype(np.float64)
    if style == 3 and kind != "lp":
        x[rng.random(shape) < 0.15] = np.nan
        x[rng.random(shape) < 0.1] = -np.inf
        x[rng.random(shape) < 0.1] = -0.0
    params = {"kind": kind}
    if kind.startswith("adaptive"):
        sides = [int(v) for v in rng.integers(1, 14, 2)]
        choice = int(rng.integers(0, 4))
        params["output_size"] = ([sides[0], None] if choice == 0 else [None, sides[1]]
                                 if choice == 1 else 1 if choice == 2 else sides)
    else:
        kernel = [int(v) for v in rng.integers(1, 4, 2)]
        params.update(kernel_size=kernel, stride=[int(v) for v in rng.integers(1, 4, 2)])
        if kind == "lp":
            params["norm_type"] = float(rng.choice([1.0, 2.0, 3.0, np.inf]))
            params["ceil_mode"] = bool(rng.random() < 0.5)
        else:
            params["padding"] = [int(rng.integers(0, k // 2 + 1)) for k in kernel]
            params["explicit_size"] = bool(rng.random() < 0.5)
    return params, x.astype(dtype)


def family_valid(shape, params):
    if params["kind"].startswith("adaptive"):
        return True
    k, s = params["kernel_size"], params["stride"]
    p = params.get("padding", [0, 0])
    return all(torch_output_side(shape[-2 + a], k[a], s[a], p[a], 1,
                                 params.get("ceil_mode", False)) >= 1 for a in (0, 1))


def run_family_torch(params, x):
    """PyTorch's answers for one family case, through torch.nn.functional."""
    functional = torch.nn.functional
    rng = np.random.default_rng(x.size + 1)
    arrays = {"x": x}
    tensor = torch.from_numpy(x).requires_grad_(True)
    kind = params["kind"]
    if kind == "unpool":
        k, s, p = params["kernel_size"], params["stride"], params["padding"]
        pooled, indices = functional.max_pool2d(tensor.detach(), k, s, p, return_indices=True)
        size = list(x.shape[-2:]) if params["explicit_size"] else None
        out = functional.max_unpool2d(pooled, indices, k, s, p, size)
        arrays.update(pooled=pooled.numpy(), indices=indices.numpy(), out=out.numpy())
        return arrays
    if kind == "adaptive_avg":
        out = functional.adaptive_avg_pool2d(tensor, params["output_size"])
    elif kind == "adaptive_max":
        out, indices = functional.adaptive_max_pool2d(tensor, params["output_size"],
                                                      return_indices=True)
        arrays["indices"] = indices.numpy()
    else:
        out = functional.lp_pool2d(tensor, params["norm_type"], params["kernel_size"],
                                   params["stride"], params["ceil_mode"])
    grad = (rng.integers(-8, 9, out.shape) / 4).astype(x.dtype)
    out.backward(torch.from_numpy(grad))
    arrays.update(out=out.detach().numpy(), grad=grad, grad_input=tensor.grad.numpy())
    return arrays


NETWORK_CASES = 120
LESSON_X = [[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]]
EDGE = [[1, 0, -1], [1, 0, -1], [1, 0, -1]]


def network_case(rng):
    """One random case of the network: a convolution (groups, stride, padding with
    'same' and 'valid', dilation, bias, 1-3 channels), relu, a loss with each reduction,
    or the capstone chain; float32 or float64, integer values or not."""
    kind = str(rng.choice(["conv", "conv", "conv", "relu", "mse", "l1", "chain"]))
    dtype = str(rng.choice(["float32", "float64"]))
    integers = bool(rng.random() < 0.4)
    params = {"kind": kind, "integers": integers}
    if kind == "conv":
        groups = int(rng.choice([1, 1, 2]))
        per_group = int(rng.integers(1, 4)) if groups == 1 else int(rng.integers(1, 3))
        kernel = [int(v) for v in rng.integers(1, 5, 2)]
        stride = [int(v) for v in rng.integers(1, 3, 2)]
        dilation = [int(v) for v in rng.integers(1, 3, 2)]
        style = int(rng.integers(0, 3))
        padding = ("same" if stride == [1, 1] else "valid") if style == 0 else (
            "valid" if style == 1 else [int(v) for v in rng.integers(0, 3, 2)])
        spans = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
        sides = [int(rng.integers(span, span + 6)) for span in spans]
        params.update(groups=groups, stride=stride, padding=padding, dilation=dilation,
                      bias=bool(rng.random() < 0.6),
                      shape=[int(rng.integers(1, 3)), groups * per_group, *sides],
                      weight_shape=[groups * int(rng.integers(1, 3)), per_group, *kernel])
    elif kind == "chain":
        params.update(shape=[1, int(rng.integers(1, 4)), 6, 6], weight_shape=[2, 0, 3, 3])
        params["weight_shape"][1] = params["shape"][1]
        dtype = "float64"
    else:
        params["shape"] = [int(v) for v in rng.integers(1, 5, int(rng.integers(2, 5)))]
        params["reduction"] = str(rng.choice(["none", "mean", "sum"]))
    return params, dtype


def run_network_torch(params, dtype, rng):
    """PyTorch's answers for one network case, through autograd."""
    functional = torch.nn.functional
    draw = ((lambda shape: rng.integers(-4, 5, shape)) if params["integers"]
            else rng.standard_normal)
    x = draw(params["shape"]).astype(dtype)
    arrays = {"x": x}
    tensor = torch.tensor(x, requires_grad=True)
    kind = params["kind"]
    if kind in ("conv", "chain"):
        w = draw(params["weight_shape"]).astype(dtype)
        b = draw(params["weight_shape"][0]).astype(dtype)
        weights = torch.tensor(w, requires_grad=True)
        biases = torch.tensor(b, requires_grad=True)
        arrays.update(weight=w, bias=b)
    if kind == "conv":
        out = functional.conv2d(tensor, weights, biases if params["bias"] else None,
                                params["stride"], params["padding"], params["dilation"],
                                params["groups"])
    elif kind == "relu":
        out = torch.relu(tensor)
    elif kind == "chain":
        target = draw((params["shape"][0], 2, 2, 2)).astype(dtype)
        arrays["target"] = target
        out = functional.mse_loss(functional.max_pool2d(functional.conv2d(tensor, weights, biases), 2),
                                  torch.tensor(target))
    else:
        target = draw(params["shape"]).astype(dtype)
        target.flat[0] = x.flat[0]  # a tie: L1's gradient is 0 there
        arrays["target"] = target
        out = getattr(functional, f"{kind}_loss")(tensor, torch.tensor(target),
                                                  reduction=params["reduction"])
    grad = (rng.integers(-3, 4, tuple(out.shape)) if params["integers"]
            else rng.standard_normal(tuple(out.shape))).astype(dtype)
    if kind == "chain":
        grad = np.ones((), dtype)
    out.backward(torch.from_numpy(grad))
    arrays.update(out=out.detach().numpy(), grad=grad, grad_input=tensor.grad.numpy())
    if kind in ("conv", "chain"):
        arrays["grad_weight"] = weights.grad.numpy()
        if params.get("bias", True):
            arrays["grad_bias"] = biases.grad.numpy()
    return arrays


def lesson_arrays():
    """The lesson's convolution and its gradients for the upstream ramp 1..9."""
    x = torch.tensor([[LESSON_X]], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([[EDGE]], dtype=torch.float64, requires_grad=True)
    ramp = torch.arange(1.0, 10.0, dtype=torch.float64).reshape(1, 1, 3, 3)
    y = torch.nn.functional.conv2d(x, w)
    y.backward(ramp)
    return {"lesson/x": x.detach().numpy()[0], "lesson/weight": w.detach().numpy(),
            "lesson/y": y.detach().numpy()[0], "lesson/ramp": ramp.numpy()[0],
            "lesson/grad_weight": w.grad.numpy(), "lesson/grad_input": x.grad.numpy()[0]}


def save(path, arrays):
    """np.savez_compressed's format, with fixed entry timestamps (savez stamps the time)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=ENTRY_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, buffer.getvalue())


def main(output=OUTPUT):
    torch.set_num_threads(1)
    rng = np.random.default_rng(2024)
    cases = edge_cases()
    while len(cases) < RANDOM_CASES + len(edge_cases()):
        params, x = random_case(rng)
        if valid(x.shape, params):
            cases.append((params, x))
    divisor_rng = np.random.default_rng(2026)
    cases += [divisor_case(divisor_rng) for _ in range(DIVISOR_CASES)]
    stored, descriptions = {}, []
    for number, (params, x) in enumerate(cases):
        for name, array in run_torch(params, x).items():
            stored[f"{number}/{name}"] = array
        descriptions.append(params)
    stored["cases"] = np.array(json.dumps(descriptions))
    family_rng = np.random.default_rng(2413)
    family = []
    while len(family) < FAMILY_CASES:
        params, x = family_case(family_rng)
        if not family_valid(x.shape, params):
            continue
        try:
            arrays = run_family_torch(params, x)
        except RuntimeError:
            continue  # an index the default unpooling size cannot hold: torch refuses too
        for name, array in arrays.items():
            stored[f"family/{len(family)}/{name}"] = array
        family.append((params, x))
    stored["family_cases"] = np.array(json.dumps([params for params, _ in family]))
    network_rng = np.random.default_rng(2828)
    network = []
    for number in range(NETWORK_CASES):
        params, dtype = network_case(network_rng)
        for name, array in run_network_torch(params, dtype, network_rng).items():
            stored[f"network/{number}/{name}"] = array
        network.append(params)
    stored["network_cases"] = np.array(json.dumps(network))
    stored.update(lesson_arrays())
    stored["torch_version"] = np.array(torch.__version__)
    output.parent.mkdir(parents=True, exist_ok=True)
    save(output, stored)
    print(f"{len(cases)} cases, {len(family)} of the family and {len(network)} of the network, "
          f"{output.stat().st_size} bytes in {output.name}")


if __name__ == "__main__":
    main()
