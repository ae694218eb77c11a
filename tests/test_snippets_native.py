"""The Code panel's snippets (web/takeaway/snippets.js, run under Node to write them) rebuild what
poolgrad's trace() answers for the same view, over many generated views: every keyword,
pairs, padding, dilation, ceil_mode, count_include_pad, custom gradients, NaN, infinities
and -0. Browser-free; tests/web/test_code_view.py checks the page's own snippets against
its grids. The poolgrad snippet is the torch-free twin of the PyTorch one."""

import json
import math
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest

import poolgrad
import poolgrad.wire
from snippet_runner import assert_matches_trace, run_snippet

REPO = Path(__file__).resolve().parents[1]

# Writes each view's snippets and its worker request, as the page would.
WRITE_SNIPPETS = """
const { parseHash, traceRequest } = await import(process.argv[1] + "/web/widget/state.js");
const { poolgradSnippet, torchSnippet } = await import(process.argv[1] + "/web/takeaway/snippets.js");
let input = "";
for await (const chunk of process.stdin) input += chunk;
const views = JSON.parse(input).map((hash) => {
  const state = parseHash(hash);
  return { hash, grad: state.grad, request: traceRequest(state), torch: torchSnippet(state), poolgrad: poolgradSnippet(state) };
});
process.stdout.write(JSON.stringify(views));
"""

VALUES = [0, 1, -1, 2, 3, -3, 7, 0.1, -2.5, 1 / 3, 1e-7, -0.0, 12.75, -4.2e3]
SPECIAL = [math.nan, math.inf, -math.inf]


def spelling(value):
    """A number as the hash writes it (web/widget/format.js encodeNumber)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 and math.copysign(1, value) < 0:
        return "-0"
    return str(int(value)) if value == int(value) else repr(value)


def matrix(rng, rows, cols, special):
    pick = lambda: rng.choice(SPECIAL) if special and rng.random() < 0.12 else rng.choice(VALUES)  # noqa: E731
    return ";".join(",".join(spelling(pick()) for _ in range(cols)) for _ in range(rows))


def pair(rng, low, high):
    first = rng.randint(low, high)
    return (first, first) if rng.random() < 0.5 else (first, rng.randint(low, high))


def written_pair(values):
    return str(values[0]) if values[0] == values[1] else f"{values[0]},{values[1]}"


def output_shape(shape, kernel, stride, padding, dilation, ceil):
    """The output's shape for these settings, or None when poolgrad refuses them."""
    try:
        return [poolgrad.output_size(*axis, ceil_mode=ceil) for axis in zip(shape, kernel, stride, padding, dilation)]
    except ValueError:
        return None


def generated_views(count=80, seed=15):
    """Views the hash accepts; some are refused by Python (padding too large, a gradient of
    the wrong shape), and their snippets must refuse them too."""
    rng = random.Random(seed)
    views = []
    for _ in range(count):
        shape = (rng.randint(2, 6), rng.randint(2, 6))
        mode = rng.choice(["max", "avg"])
        kernel, stride, padding = pair(rng, 1, 3), pair(rng, 1, 3), pair(rng, 0, 1)
        dilation = pair(rng, 1, 2) if mode == "max" else (1, 1)
        ceil = rng.random() < 0.4
        parts = [f"k={written_pair(kernel)}", f"s={written_pair(stride)}", f"p={written_pair(padding)}",
                 f"d={written_pair(dilation)}", f"mode={mode}"]
        if ceil:
            parts.append("ceil=1")
        if mode == "avg" and rng.random() < 0.5:
            parts.append("cip=0")
        grad = rng.random() < 0.7
        parts.append(f"grad={int(grad)}")
        parts.append(f"x={matrix(rng, *shape, special=True)}")
        if grad and rng.random() < 0.5:
            # The output's shape, or now and then another one (then Python refuses the view).
            out_shape = output_shape(shape, kernel, stride, padding, dilation, ceil)
            if out_shape is None or rng.random() < 0.15:
                out_shape = (rng.randint(1, 6), rng.randint(1, 6))
            parts.append(f"g={matrix(rng, *out_shape, special=True)}")
        views.append("#" + "&".join(parts))
    return views


def family_views(count=40, seed=24):
    """Views of the rest of the family: adaptive (output size 1 to 6, larger than the input
    too), LP pooling (p from 0.5 to inf, some refused: a negative sum under an odd p is
    NaN, not refused), unpooling in the max modes."""
    rng = random.Random(seed)
    views = []
    for _ in range(count):
        shape = (rng.randint(2, 6), rng.randint(2, 6))
        mode = rng.choice(["adaptive_max", "adaptive_avg", "lp", "max"])
        if mode == "lp":
            kernel, stride = pair(rng, 1, 3), pair(rng, 1, 3)
            p = rng.choice(["1", "2", "3", "0.5", "Infinity"])
            parts = [f"k={written_pair(kernel)}", f"s={written_pair(stride)}", "mode=lp", f"n={p}"]
            if rng.random() < 0.3:
                parts.append("ceil=1")
        elif mode == "max":
            kernel, stride = pair(rng, 1, 3), pair(rng, 1, 2)
            parts = [f"k={written_pair(kernel)}", f"s={written_pair(stride)}", "mode=max", "unpool=1"]
        else:
            parts = [f"mode={mode}", f"o={written_pair(pair(rng, 1, 6))}"]
            if mode == "adaptive_max" and rng.random() < 0.6:
                parts.append("unpool=1")
        grad = rng.random() < 0.7
        parts.append(f"grad={int(grad)}")
        parts.append(f"x={matrix(rng, *shape, special=rng.random() < 0.3)}")
        views.append("#" + "&".join(parts))
    return views


@pytest.fixture(scope="module")
def written(build_module):
    try:
        node = build_module.node_for_snapshot()
    except build_module.SnapshotUnavailable as missing:
        pytest.fail(f"these tests need Node.js {build_module.NODE_MIN_MAJOR}+ ({missing}): run them with "
                    "`python build.py test`, which installs it, or install Debian's nodejs")
    result = subprocess.run([node, "--input-type=module", "-e", WRITE_SNIPPETS, REPO.as_uri()],
                            input=json.dumps(generated_views() + family_views()), capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    views = json.loads(result.stdout)
    with np.errstate(all="ignore"):
        for view in views:
            view["answer"] = json.loads(poolgrad.wire.run_trace(json.dumps(view["request"])))
    return views


def test_the_generated_views_cover_both_outcomes(written):
    valid = [view for view in written if "trace" in view["answer"]]
    assert 40 <= len(valid) < len(written)
    assert {view["answer"]["trace"]["mode"] for view in valid} == {"max", "avg", "adaptive_max", "adaptive_avg", "lp"}
    assert any("unpooled" in view["answer"]["trace"] for view in valid)


def test_poolgrad_snippets_rebuild_the_trace_or_refuse_as_it_does(written):
    for view in written:
        if "error" in view["answer"]:
            with pytest.raises((ValueError, TypeError)):
                run_snippet(view["poolgrad"])
            continue
        try:
            assert_matches_trace(run_snippet(view["poolgrad"]), view["answer"]["trace"], view["grad"])
        except AssertionError as failed:
            raise AssertionError(f"{view['hash']}: {failed}") from None


@pytest.mark.torch
def test_pytorch_snippets_rebuild_the_trace(written):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    for view in written:
        if "error" in view["answer"]:
            continue
        try:
            assert_matches_trace(run_snippet(view["torch"]), view["answer"]["trace"], view["grad"])
        except AssertionError as failed:
            raise AssertionError(f"{view['hash']}: {failed}") from None
