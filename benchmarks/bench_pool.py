"""Benchmark: poolgrad against PyTorch CPU (one thread) and against a naive loop.

Run ``python benchmarks/bench_pool.py``. Every figure is forward plus backward in
float32: max pooling returns the indices and routes a gradient back with them, average
pooling spreads a gradient back. The contenders run interleaved in one process (this
machine's cores are shared, so ratios taken side by side are what count) and each
figure is the median of several repeats.

Cases A-C are batches; G-I are the rest of the family (G: the ResNet head, adaptive
average pooling of 8x512x7x7 to 1 x 1; H: adaptive max pooling of 8x64x56x56 to 7 x 7
with indices; I: LP pooling, p = 2, k = 2, s = 2, on 8x128x56x56), each against
torch.nn.functional's call and its autograd backward (aten's own backward for H); D is
one 16 x 16 plane, the size of the lesson widget, where
the cost is per-call overhead: ``trace()`` (one UI interaction) and max pooling forward
plus backward against torch's own call. The naive loop (a Python loop over every output
and window cell, as a learner would write it) is far too slow for whole batches: it runs
on one plane and the time is scaled to the batch. The "floor" column is the time just
to stream the bytes once (read the inputs, write the outputs) at the memory bandwidth
np.copyto reaches; no implementation can beat it.

J and K are the network around the pooling layer: J is conv2d of 8x32x32x32 with 64
filters of 3 x 3, padding 1, with bias (forward, then conv2d_backward's three
gradients) against torch's conv2d and autograd; NumPy's BLAS runs with its own thread
count, and again limited to one thread like torch (with threadpoolctl, the optional
``bench`` extra, which also names the BLAS kernel). K is the lesson's capstone chain on
one 6 x 6 plane (conv 3 x 3 -> max pool 2 x 2 -> MSE, the whole backward pass):
``chain_trace()``, what one interaction of the chain view costs, against the same steps
in torch autograd. ``--network`` runs only J and K.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))

import poolgrad  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

try:
    import threadpoolctl
except ImportError:
    threadpoolctl = None

CASES = {
    "A": dict(shape=(8, 64, 112, 112), k=3, s=2, p=1),
    "B": dict(shape=(8, 128, 56, 56), k=2, s=2, p=0),
    "C": dict(shape=(4, 32, 64, 64), k=3, s=1, p=0),
}
GOALS = {"max": 0.6, "avg": 0.8}
FAMILY = {
    # G takes about a millisecond: more repeats, or the machine's noise is the figure.
    "G": dict(shape=(8, 512, 7, 7), what="adaptive avg -> 1 x 1", repeats=101),
    "H": dict(shape=(8, 64, 56, 56), what="adaptive max -> 7 x 7"),
    "I": dict(shape=(8, 128, 56, 56), what="LP p=2, k=2, s=2"),
}
FAMILY_GOAL, FAMILY_STRETCH = 1.0, 0.6
CONV_CASE = dict(shape=(8, 32, 32, 32), filters=64, kernel=3, padding=1)
CONV_GOAL, CONV_STRETCH = 2.0, 1.2
CHAIN_GOAL_SECONDS = 1e-3
REPEATS = 9


def median_seconds(functions, repeats=REPEATS):
    """Run the functions round-robin ``repeats`` times; the median time of each."""
    times = [[] for _ in functions]
    for _ in range(repeats):
        for spent, function in zip(times, functions):
            start = time.perf_counter()
            function()
            spent.append(time.perf_counter() - start)
    return [statistics.median(spent) for spent in times]


def poolgrad_max(x, k, s, p, grad):
    def run():
        _, indices = poolgrad.max_pool2d(x, k, s, p, return_indices=True)
        poolgrad.max_pool2d_backward(grad, indices, x.shape)
    return run


def poolgrad_avg(x, k, s, p, grad):
    def run():
        poolgrad.avg_pool2d(x, k, s, p)
        poolgrad.avg_pool2d_backward(grad, x.shape, k, s, p)
    return run


def torch_max(x, k, s, p, grad):
    tx, tg = torch.from_numpy(x), torch.from_numpy(grad)
    args = ([k, k], [s, s], [p, p], [1, 1], False)

    def run():
        _, indices = torch.ops.aten.max_pool2d_with_indices(tx, *args)
        torch.ops.aten.max_pool2d_with_indices_backward(tg, tx, *args, indices)
    return run


def torch_avg(x, k, s, p, grad):
    tx, tg = torch.from_numpy(x), torch.from_numpy(grad)
    args = ([k, k], [s, s], [p, p], False, True)

    def run():
        torch.ops.aten.avg_pool2d(tx, *args)
        torch.ops.aten.avg_pool2d_backward(tg, tx, *args, None)
    return run


def loop_max(plane, k, s, p):
    """The naive version: every output, every window cell, in Python."""
    height, width = plane.shape
    out_h, out_w = (height + 2 * p - k) // s + 1, (width + 2 * p - k) // s + 1
    out = np.empty((out_h, out_w), plane.dtype)
    indices = np.empty((out_h, out_w), np.int64)
    grad_input = np.zeros_like(plane)
    for i in range(out_h):
        for j in range(out_w):
            best, where = -np.inf, -1
            for a in range(k):
                for b in range(k):
                    r, c = i * s - p + a, j * s - p + b
                    if 0 <= r < height and 0 <= c < width and (
                            plane[r, c] > best or where < 0):
                        best, where = plane[r, c], r * width + c
            out[i, j], indices[i, j] = best, where
    for i in range(out_h):
        for j in range(out_w):
            grad_input.flat[indices[i, j]] += 1.0
    return out


def loop_avg(plane, k, s, p):
    height, width = plane.shape
    out_h, out_w = (height + 2 * p - k) // s + 1, (width + 2 * p - k) // s + 1
    out = np.empty((out_h, out_w), plane.dtype)
    grad_input = np.zeros_like(plane)
    for i in range(out_h):
        for j in range(out_w):
            cells = [(r, c) for r in range(i * s - p, i * s - p + k)
                     for c in range(j * s - p, j * s - p + k)
                     if 0 <= r < height and 0 <= c < width]
            out[i, j] = sum(plane[r, c] for r, c in cells) / (k * k)
            for r, c in cells:
                grad_input[r, c] += 1.0 / (k * k)
    return out


def bandwidth_bytes_per_second():
    """Bytes moved per second by one big np.copyto (counting the read and the write)."""
    source = np.ones(1 << 24, np.float32)
    target = np.empty_like(source)
    (seconds,) = median_seconds([lambda: np.copyto(target, source)], repeats=7)
    return 2 * source.nbytes / seconds


def floor_seconds(mode, x, grad, bandwidth):
    """Read the input and the gradient, write the outputs (and the indices), once."""
    moved = 2 * x.nbytes + 2 * grad.nbytes  # input in, grad_input out; output out, grad in
    if mode == "max":
        moved += 2 * grad.size * 8  # indices written, then read back
    return moved / bandwidth


def batch_rows(bandwidth):
    rows = []
    rng = np.random.default_rng(0)
    for name, case in CASES.items():
        x = rng.standard_normal(case["shape"]).astype(np.float32)
        k, s, p = case["k"], case["s"], case["p"]
        for mode, ours, theirs, loop in (("max", poolgrad_max, torch_max, loop_max),
                                         ("avg", poolgrad_avg, torch_avg, loop_avg)):
            out = poolgrad.avg_pool2d(x, k, s, p)
            grad = rng.standard_normal(out.shape).astype(np.float32)
            contenders = [ours(x, k, s, p, grad)]
            if torch is not None:
                contenders.append(theirs(x, k, s, p, grad))
            seconds = median_seconds(contenders)
            plane = x[0, 0]
            (loop_plane,) = median_seconds([lambda: loop(plane, k, s, p)], repeats=3)
            planes = x.shape[0] * x.shape[1]
            rows.append(dict(case=name, mode=mode, poolgrad=seconds[0],
                             torch=seconds[1] if torch is not None else None,
                             loop=loop_plane * planes,
                             floor=floor_seconds(mode, x, grad, bandwidth)))
    return rows


def family_contenders(name, x, grad):
    """poolgrad's forward + backward for a family case, and torch's."""
    if name == "G":
        def ours():
            poolgrad.adaptive_avg_pool2d(x, 1)
            poolgrad.adaptive_avg_pool2d_backward(grad, x.shape)
    elif name == "H":
        def ours():
            _, indices = poolgrad.adaptive_max_pool2d(x, 7, return_indices=True)
            poolgrad.adaptive_max_pool2d_backward(grad, indices, x.shape)
    else:
        def ours():
            poolgrad.lp_pool2d(x, 2, 2, 2)
            poolgrad.lp_pool2d_backward(grad, x, 2, 2, 2)
    if torch is None:
        return [ours]
    tx, tg = torch.from_numpy(x), torch.from_numpy(grad)
    if name == "H":
        def theirs():
            _, indices = torch.ops.aten.adaptive_max_pool2d(tx, [7, 7])
            torch.ops.aten.adaptive_max_pool2d_backward(tg, tx, indices)
    else:
        leaf = tx.clone().requires_grad_(True)
        functional = torch.nn.functional

        def theirs():
            leaf.grad = None
            out = (functional.adaptive_avg_pool2d(leaf, 1) if name == "G"
                   else functional.lp_pool2d(leaf, 2, 2, 2))
            out.backward(tg)
    return [ours, theirs]


def family_rows():
    rows = []
    rng = np.random.default_rng(2)
    for name, case in FAMILY.items():
        x = rng.standard_normal(case["shape"]).astype(np.float32)
        out_hw = {"G": (1, 1), "H": (7, 7), "I": (28, 28)}[name]
        grad = rng.standard_normal(case["shape"][:2] + out_hw).astype(np.float32)
        seconds = median_seconds(family_contenders(name, x, grad),
                                 case.get("repeats", REPEATS))
        rows.append(dict(case=name, what=case["what"], poolgrad=seconds[0],
                         torch=seconds[1] if torch is not None else None))
    return rows


def widget_row():
    rng = np.random.default_rng(1)
    plane = rng.integers(-9, 10, (16, 16)).astype(np.float32)
    grad = np.ones((14, 14), np.float32)
    contenders = [poolgrad_max(plane, 3, 1, 0, grad),
                  lambda: poolgrad.trace(plane, 3, 1, grad_output=grad)]
    if torch is not None:
        contenders.append(torch_max(plane[None], 3, 1, 0, grad[None]))
    seconds = median_seconds(contenders, repeats=301)
    return dict(poolgrad=seconds[0], trace=seconds[1],
                torch=seconds[2] if torch is not None else None)


def blas_description():
    """Which BLAS NumPy runs (library, kernel, threads), as threadpoolctl reports it."""
    if threadpoolctl is None:
        return "BLAS: unknown (pip install threadpoolctl, or poolgrad's [bench] extra, to see it)"
    pools = [pool for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"]
    return "; ".join(f"BLAS: {pool['internal_api']} {pool['version']}, kernel "
                     f"{pool.get('architecture')}, {pool['num_threads']} threads"
                     for pool in pools) or "BLAS: none found"


def conv_row():
    """J: conv2d forward + backward against torch, NumPy's threads as they are and one."""
    rng = np.random.default_rng(3)
    case = CONV_CASE
    x = rng.standard_normal(case["shape"]).astype(np.float32)
    channels, k = case["shape"][1], case["kernel"]
    weight = rng.standard_normal((case["filters"], channels, k, k)).astype(np.float32)
    bias = rng.standard_normal(case["filters"]).astype(np.float32)
    grad = rng.standard_normal((case["shape"][0], case["filters"]) + case["shape"][2:]
                               ).astype(np.float32)

    def ours():
        poolgrad.conv2d(x, weight, bias, padding=case["padding"])
        poolgrad.conv2d_backward(grad, x, weight, padding=case["padding"])

    def ours_one_thread():
        with threadpoolctl.threadpool_limits(1, user_api="blas"):
            ours()

    contenders = [ours] + ([ours_one_thread] if threadpoolctl is not None else [])
    if torch is not None:
        leaves = [torch.from_numpy(a).requires_grad_(True) for a in (x, weight, bias)]
        tg = torch.from_numpy(grad)

        def theirs():
            for leaf in leaves:
                leaf.grad = None
            torch.nn.functional.conv2d(*leaves, padding=case["padding"]).backward(tg)

        contenders.append(theirs)
    seconds = median_seconds(contenders, repeats=7)
    return dict(poolgrad=seconds[0],
                one_thread=seconds[1] if threadpoolctl is not None else None,
                torch=seconds[-1] if torch is not None else None)


CAPSTONE_X = [[3, 0, 1, 2, 7, 4], [1, 5, 8, 9, 3, 1], [2, 7, 2, 5, 1, 3],
              [0, 1, 3, 1, 7, 8], [4, 2, 1, 6, 2, 8], [2, 4, 5, 2, 3, 9]]
EDGE = [[1.0, 0.0, -1.0]] * 3


def chain_row():
    """K: the capstone chain on one 6 x 6 plane, chain_trace() against torch autograd."""
    target = [[1.0, -1.0], [0.5, 2.0]]
    contenders = [lambda: poolgrad.chain_trace(CAPSTONE_X, EDGE, target=target, bias=[0.0])]
    if torch is not None:
        functional = torch.nn.functional
        x = torch.tensor([CAPSTONE_X], dtype=torch.float64)
        tt = torch.tensor([target], dtype=torch.float64)

        def theirs():
            w = torch.tensor([[EDGE]], dtype=torch.float64, requires_grad=True)
            b = torch.zeros(1, dtype=torch.float64, requires_grad=True)
            xi = x.clone().requires_grad_(True)
            loss = functional.mse_loss(functional.max_pool2d(functional.conv2d(xi, w, b), 2), tt)
            loss.backward()

        contenders.append(theirs)
    seconds = median_seconds(contenders, repeats=301)
    return dict(poolgrad=seconds[0], torch=seconds[1] if torch is not None else None)


def print_network():
    print(blas_description())
    row = conv_row()
    print()
    print("J  conv2d 8x32x32x32, 64 filters 3 x 3, padding 1, bias; forward + backward (ms)")
    print(f"   poolgrad, NumPy's BLAS threads as set: {row['poolgrad'] * 1e3:8.1f}")
    if row["one_thread"] is not None:
        print(f"   poolgrad, BLAS limited to 1 thread:     {row['one_thread'] * 1e3:8.1f}")
    if row["torch"]:
        print(f"   torch, 1 thread:                        {row['torch'] * 1e3:8.1f}")
        for label, key in (("as set", "poolgrad"), ("1 thread", "one_thread")):
            if row[key] is not None:
                ratio = row[key] / row["torch"]
                verdict = ("stretch" if ratio <= CONV_STRETCH else
                           "ok" if ratio <= CONV_GOAL else "MISS")
                print(f"   ratio ({label}): {ratio:.2f} (goal <= {CONV_GOAL}, stretch "
                      f"{CONV_STRETCH}: {verdict})")
    chain = chain_row()
    print()
    print("K  the capstone chain on one 6 x 6 plane: conv 3 x 3 -> max pool 2 -> MSE, backward")
    verdict = "ok" if chain["poolgrad"] <= CHAIN_GOAL_SECONDS else "MISS"
    print(f"   poolgrad.chain_trace():        {chain['poolgrad'] * 1e6:8.1f} us"
          f"   (goal <= {CHAIN_GOAL_SECONDS * 1e6:.0f} us: {verdict})")
    if chain["torch"]:
        print(f"   the same steps, torch autograd: {chain['torch'] * 1e6:8.1f} us"
              f"   ratio {chain['poolgrad'] / chain['torch']:.1f}")


def main():
    if "--network" in sys.argv[1:]:
        if torch is not None:
            torch.set_num_threads(1)
            print(f"torch {torch.__version__}, 1 thread; numpy {np.__version__}")
        print_network()
        return
    if torch is None:
        print("torch is not installed: the torch columns are skipped")
    else:
        torch.set_num_threads(1)
        print(f"torch {torch.__version__}, 1 thread; numpy {np.__version__}")
    bandwidth = bandwidth_bytes_per_second()
    print(f"memory bandwidth (np.copyto, read + write): {bandwidth / 1e9:.1f} GB/s")
    print("loop = naive Python loop on one plane, scaled to the batch (it is very slow)")
    print()
    header = (f"{'case':<5}{'mode':<5}{'poolgrad ms':>12}{'torch ms':>10}{'ratio':>7}"
              f"{'goal':>6}{'':>5}{'loop s':>9}{'floor ms':>10}{'x floor':>9}")
    print(header)
    print("-" * len(header))
    for row in batch_rows(bandwidth):
        ratio = row["poolgrad"] / row["torch"] if row["torch"] else None
        goal = GOALS[row["mode"]]
        verdict = "" if ratio is None else ("ok" if ratio <= goal else "MISS")
        torch_ms = f"{row['torch'] * 1e3:10.1f}" if row["torch"] else f"{'-':>10}"
        ratio_text = f"{ratio:7.2f}" if ratio is not None else f"{'-':>7}"
        print(f"{row['case']:<5}{row['mode']:<5}{row['poolgrad'] * 1e3:12.1f}{torch_ms}"
              f"{ratio_text}{goal:6.1f}{verdict:>5}{row['loop']:9.1f}"
              f"{row['floor'] * 1e3:10.1f}{row['poolgrad'] / row['floor']:9.1f}")
    print()
    header = f"{'case':<5}{'':<24}{'poolgrad ms':>12}{'torch ms':>10}{'ratio':>7}{'goal':>6}"
    print(header)
    print("-" * len(header))
    for row in family_rows():
        ratio = row["poolgrad"] / row["torch"] if row["torch"] else None
        verdict = "" if ratio is None else ("stretch" if ratio <= FAMILY_STRETCH else
                                            "ok" if ratio <= FAMILY_GOAL else "MISS")
        torch_ms = f"{row['torch'] * 1e3:10.2f}" if row["torch"] else f"{'-':>10}"
        ratio_text = f"{ratio:7.2f}" if ratio is not None else f"{'-':>7}"
        print(f"{row['case']:<5}{row['what']:<24}{row['poolgrad'] * 1e3:12.2f}{torch_ms}"
              f"{ratio_text}{FAMILY_GOAL:6.1f} {verdict}")
    widget = widget_row()
    print()
    print("D  one 16 x 16 plane, k=3, s=1 (microseconds)")
    print(f"   poolgrad max forward + backward: {widget['poolgrad'] * 1e6:8.1f} us")
    if widget["torch"]:
        ratio = widget["poolgrad"] / widget["torch"]
        print(f"   torch's own call:                 {widget['torch'] * 1e6:8.1f} us"
              f"   ratio {ratio:.1f} (goal <= 10: {'ok' if ratio <= 10 else 'MISS'})")
    verdict = "ok" if widget["trace"] < 500e-6 else "MISS"
    print(f"   poolgrad.trace() with gradient:   {widget['trace'] * 1e6:8.1f} us"
          f"   (goal < 500 us: {verdict})")
    print()
    print_network()


if __name__ == "__main__":
    main()
