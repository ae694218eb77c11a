"""Runs the Code panel's snippets (web/takeaway/snippets.js) as a learner would and compares what
they define with poolgrad's trace: shared by the browser test (tests/web/test_code_view.py)
and the browser-free one (tests/test_snippets_native.py)."""

import contextlib
import io

import numpy as np

from poolgrad.wire import NUMBER_NAMES


def run_snippet(code):
    """The snippet run in a fresh namespace, its prints kept out of the test's output (and
    NumPy's notes on NaN and infinities, which views with them call for)."""
    namespace = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
        exec(compile(code, "<snippet>", "exec"), namespace)  # noqa: S102 - the widget's own code, under test
    return namespace


def as_array(value):
    """A snippet's result (NumPy array or torch tensor) as a NumPy array."""
    if hasattr(value, "detach"):
        value = value.detach().numpy()
    return np.asarray(value)


def decoded(rows):
    """trace() values with their strict-JSON names turned back into floats."""
    return np.array([[NUMBER_NAMES.get(v, v) if isinstance(v, str) else v for v in row] for row in rows],
                    dtype=np.float64)


def assert_same_floats(actual, expected, what):
    """Bit for bit: the same shape, NaN where NaN, the same sign on zeros."""
    actual = np.asarray(actual, dtype=np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, the trace's {expected.shape}"
    assert np.array_equal(actual, expected, equal_nan=True), f"{what}:\n{actual}\nthe trace's:\n{expected}"
    # JSON names every NaN "NaN", whatever its sign bit: signs are compared on numbers only.
    numbers = ~np.isnan(expected)
    assert np.array_equal(np.signbit(actual[numbers]), np.signbit(expected[numbers])), (
        f"{what}: signs of zeros differ\n{actual}\n{expected}")


def assert_matches_trace(namespace, trace, grad):
    """`out`, `indices` (the max modes), `unpooled` (unpooling on) and `grad_input`
    (gradient on) as the trace has them, and no name the view does not call for."""
    assert_same_floats(as_array(namespace["out"]), decoded(trace["output"]), "out")
    # LP pooling with p = inf routes by an argmax too, but, as torch.nn.functional.lp_pool2d,
    # returns no indices.
    if "indices" in trace and trace["mode"] != "lp":
        assert as_array(namespace["indices"]).tolist() == trace["indices"]
    else:
        assert "indices" not in namespace
    if "unpooled" in trace:
        assert_same_floats(as_array(namespace["unpooled"]), decoded(trace["unpooled"]), "unpooled")
    else:
        assert "unpooled" not in namespace
    if grad:
        assert_same_floats(as_array(namespace["grad_input"]), decoded(trace["grad_input"]), "grad_input")
    else:
        assert "grad_input" not in namespace
