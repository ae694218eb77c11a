"""poolgrad.Widget's Python side: its traits, their validation, the read-only arrays,
what it syncs to the front end, and poolgrad.check (no browser: tests/notebook drives one)."""

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("anywidget")

import poolgrad  # noqa: E402
from exercise_solutions import BACKWARD, CONV, FORWARD, MSE  # noqa: E402
from lesson_fixture import FIXTURE_ROWS  # noqa: E402
from poolgrad.widget import BUNDLE  # noqa: E402


def test_import_poolgrad_alone_never_imports_anywidget():
    code = "import sys, poolgrad; poolgrad.max_pool2d([[1]], 1); print('anywidget' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_a_missing_anywidget_names_the_extra():
    # A None entry in sys.modules makes `import anywidget` fail as if it were not installed.
    code = ("import sys; sys.modules['anywidget'] = None; import poolgrad\n"
            "try:\n    poolgrad.Widget\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # poolgrad is not on the package index: the message names what works.
    assert 'in a checkout: pip install ".[widget]"' in out and "pip install anywidget" in out
    assert "poolgrad[widget]" not in out


def test_the_fixture_view_holds_the_reference_numbers():
    w = poolgrad.Widget(FIXTURE_ROWS, gradient=True, grad_output=[[1, 2], [3, 4]])
    assert w.output.tolist() == [[4, 8], [9, -2]]
    assert w.indices.tolist() == [[5, 6], [13, 11]]
    expected = np.zeros(16)
    expected[[5, 6, 13, 11]] = [1, 2, 3, 4]
    assert w.grad_input.ravel().tolist() == expected.tolist()
    assert w.trace == poolgrad.trace(FIXTURE_ROWS, 2, grad_output=[[1, 2], [3, 4]])


def test_a_change_from_python_recomputes_the_view():
    w = poolgrad.Widget(np.array(FIXTURE_ROWS))
    w.kernel_size = 3
    w.stride = 1
    assert w.output.tolist() == [[8, 8], [9, 9]]
    assert w.trace["output"] == [[8, 8], [9, 9]]
    w.mode = "avg"
    assert w.indices is None
    assert w.trace["mode"] == "avg"


def test_arrays_lists_and_pairs_are_accepted_as_the_functions_accept_them():
    x = np.arange(30.0).reshape(5, 6)
    w = poolgrad.Widget(x.tolist(), kernel_size=(3, 2), stride=[1, 2], padding=(1, 0), ceil_mode=True)
    assert np.array_equal(w.output, poolgrad.max_pool2d(x, (3, 2), (1, 2), (1, 0), ceil_mode=True))
    assert isinstance(w.x, np.ndarray) and w.x.shape == (5, 6)


@pytest.mark.parametrize("name, value", [("kernel_size", 0), ("stride", -1), ("padding", 3), ("dilation", 0),
                                         ("mode", "median"), ("ceil_mode", 1), ("x", [[1, 2], [3]]),
                                         ("x", [[1, "two"]]), ("grad_output", [[1, 2, 3]])])
def test_a_bad_value_raises_the_functions_error_and_keeps_the_view(name, value):
    w = poolgrad.Widget(FIXTURE_ROWS, kernel_size=2)
    before = w.trace
    settings = {"x": FIXTURE_ROWS, "kernel_size": 2, name: value}
    with pytest.raises((ValueError, TypeError)) as from_function:
        if name == "grad_output":
            poolgrad.trace(settings.pop("x"), **settings)
        else:
            poolgrad.trace(settings.pop("x"), mode=settings.pop("mode", "max"), **settings)
    with pytest.raises(type(from_function.value)) as from_widget:
        setattr(w, name, value)
    assert str(from_widget.value) == str(from_function.value)
    assert w.trace is before
    assert w.kernel_size == 2


def test_the_page_rules_come_from_the_functions():
    w = poolgrad.Widget(np.arange(25).reshape(5, 5), dilation=2)
    with pytest.raises(ValueError, match="not available for average pooling"):
        w.mode = "avg"
    # One change of both, as the page's mode switch makes it, is accepted.
    with w.hold_trait_notifications():
        w.mode = "avg"
        w.dilation = 1
    assert w.trace["mode"] == "avg"


FAMILY = [
    ({"mode": "adaptive_max", "output_size": 3, "unpool": True},
     lambda x, up: (*poolgrad.adaptive_max_pool2d(x, 3, return_indices=True),)),
    ({"mode": "adaptive_avg", "output_size": (None, 2)}, lambda x, up: (poolgrad.adaptive_avg_pool2d(x, (None, 2)), None)),
    ({"mode": "lp", "norm_type": 3, "kernel_size": 2, "stride": 1}, lambda x, up: (poolgrad.lp_pool2d(x, 3, 2, 1), None)),
    ({"mode": "lp", "norm_type": np.inf, "kernel_size": 3, "ceil_mode": True},
     lambda x, up: (poolgrad.lp_pool2d(x, np.inf, 3, ceil_mode=True), None)),
]


@pytest.mark.parametrize("settings, pooled", FAMILY, ids=lambda v: v.get("mode") if isinstance(v, dict) else "")
def test_the_family_modes_show_the_functions_own_results(settings, pooled):
    x = np.array([[1.0, 2, 5, 6, 0], [3, 4, 8, 7, 1], [0, -1, -3, -2, 9], [-4, 9, -6, -5, 2], [5, 5, 1, 0, 3]])
    w = poolgrad.Widget(x, gradient=True, **settings)
    output, indices = pooled(x, None)
    np.testing.assert_array_equal(w.output, output)
    assert (w.indices is None) == (indices is None)
    if indices is not None:
        np.testing.assert_array_equal(w.indices, indices)
    upstream = np.ones(output.shape)
    if settings["mode"] == "adaptive_max":
        np.testing.assert_array_equal(w.grad_input, poolgrad.adaptive_max_pool2d_backward(upstream, indices, x.shape))
        unpooled = np.zeros(x.size)
        unpooled[indices.ravel()] = output.ravel()  # a shared cell's maxima are one value
        np.testing.assert_array_equal(w.unpooled, unpooled.reshape(x.shape))
    elif settings["mode"] == "adaptive_avg":
        np.testing.assert_array_equal(w.grad_input, poolgrad.adaptive_avg_pool2d_backward(upstream, x.shape))
    else:
        np.testing.assert_array_equal(w.grad_input, poolgrad.lp_pool2d_backward(
            upstream, x, settings["norm_type"], settings["kernel_size"], settings.get("stride"),
            settings.get("ceil_mode", False)))
    traced = {name: value for name, value in settings.items() if name != "unpool" or value}
    assert w.trace == poolgrad.trace(x, grad_output=1, **traced)


def test_a_modes_own_setting_is_kept_while_another_mode_shows():
    # As in the page's model: unpool, output_size and norm_type wait for their modes.
    w = poolgrad.Widget(FIXTURE_ROWS, mode="avg", unpool=True, output_size=(1, 3), norm_type=1)
    assert w.unpooled is None and "unpooled" not in w.trace
    w.mode = "adaptive_max"
    assert w.output.tolist() == [[9, 9, 8]] and w.unpooled.shape == (4, 4)
    assert w.trace["unpooled"] == w.unpooled.tolist()
    w.mode = "lp"
    assert w.output.tolist() == poolgrad.lp_pool2d(np.array(FIXTURE_ROWS, float), 1, 2).tolist()
    # Checked in every mode, though: a bad one is refused at once with the functions' message.
    with pytest.raises(ValueError, match="norm_type must not be 0"):
        w.norm_type = 0
    with pytest.raises((ValueError, TypeError), match="output_size"):
        w.output_size = (0, 2)
    assert w.norm_type == 1 and w.output_size == (1, 3)


def test_the_family_settings_travel_as_the_front_end_spells_them():
    w = poolgrad.Widget(FIXTURE_ROWS, mode="lp", norm_type=np.inf, output_size=(None, 1))
    state = w.get_state()
    json.dumps(state, allow_nan=False)
    assert state["norm_type"] == "Infinity" and state["output_size"] == [4, 1]
    # A side kept from x is sent again when x changes.
    sent = _Sent(w)
    w.x = np.zeros((3, 6))
    assert [m["state"]["output_size"] for m in sent.messages if "output_size" in m["state"]] == [[3, 1]]
    # And from the widget's controls:
    w.set_state({"mode": "adaptive_avg", "output_size": [2, 3], "norm_type": "-Infinity"})
    assert w.error == "" and w.output_size == (2, 3) and w.norm_type == -np.inf
    assert w.output.shape == (2, 3)
    w.set_state({"mode": "lp", "norm_type": 0})
    assert w.error.startswith("norm_type must not be 0") and w.mode == "adaptive_avg"


def test_read_only_results():
    w = poolgrad.Widget(FIXTURE_ROWS, gradient=True)
    for name in ("output", "indices", "grad_input", "unpooled", "trace"):
        with pytest.raises((AttributeError, Exception)):
            setattr(w, name, None)
    with pytest.raises(ValueError):
        w.output[0, 0] = 99
    w.gradient = False
    assert w.grad_input is None


def test_the_selection_is_a_cell_or_none():
    w = poolgrad.Widget(FIXTURE_ROWS)
    w.selection = [0, 1]
    assert w.selection == (0, 1)
    with pytest.raises(ValueError, match="selection must be None or"):
        w.selection = (0, -1)
    assert w.selection == (0, 1)


def test_the_selection_is_a_cell_of_the_output_shown():
    w = poolgrad.Widget(FIXTURE_ROWS)
    with pytest.raises(ValueError, match=r"selection=\(99, 99\) is not a cell of the 2 x 2 output: "
                                         r"rows 0 to 1, columns 0 to 1"):
        w.selection = (99, 99)
    assert w.selection is None
    w.selection = (1, 1)
    assert w.selection == (1, 1)


@pytest.mark.parametrize("change, message", [
    ({"selection": [-1, 0]}, "selection must be None or (row, col) of an output cell, got (-1, 0)"),
    ({"selection": "0,0"}, "selection must be None or (row, col) of an output cell, got '0,0'"),
    ({"selection": [2, 0]}, "selection=(2, 0) is not a cell of the 2 x 2 output: rows 0 to 1, columns 0 to 1"),
    ({"selection": [0, 0], "kernel_size": [3, 3], "stride": [1, 1], "gradient": "yes"},
     "gradient must be True or False"),
])
def test_a_refused_view_change_from_the_front_end_keeps_every_trait(change, message):
    w = poolgrad.Widget(FIXTURE_ROWS, selection=(1, 0))
    sent = _Sent(w)
    before = w.get_state()
    w.set_state(change)
    assert w.error.startswith(message)
    assert (w.selection, w.gradient, w.kernel_size) == ((1, 0), False, 2)
    state = w.get_state()  # every trait still syncs: the front end gets the good state back
    assert {**state, "error": ""} == {**before, "error": ""}
    assert sent.messages[-1]["state"]["selection"] == [1, 0]
    w.set_state({"selection": [0, 1], "kernel_size": [3, 3], "stride": [1, 1]})
    assert (w.error, w.selection, w.kernel_size) == ("", (0, 1), (3, 3))


def test_a_norm_type_beyond_a_float_is_refused_everywhere():
    w = poolgrad.Widget(FIXTURE_ROWS, mode="lp")
    before = w.trace
    with pytest.raises(ValueError, match="norm_type is beyond a 64-bit float"):
        w.norm_type = 10**400
    w.set_state({"mode": "lp", "norm_type": 10**400})
    assert w.error.startswith("norm_type is beyond a 64-bit float")
    assert w.norm_type == 2.0 and w.trace is before
    sent = _Sent(w)
    key = json.dumps({"x": FIXTURE_ROWS, "kernel_size": 2, "mode": "lp", "norm_type": 10**400})
    w._handle_custom_msg({"type": "trace", "id": "a:1", "key": key}, [])
    assert json.loads(sent.messages[0]["content"]["answer"])["error"].startswith("norm_type is beyond")


def test_a_failure_of_poolgrad_itself_is_said_to_be_a_bug(monkeypatch):
    w = poolgrad.Widget(FIXTURE_ROWS)

    def broken(**_):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(poolgrad.widget, "compute", broken)
    w.set_state({"kernel_size": [3, 3]})
    assert w.error.startswith("poolgrad failed unexpectedly (ZeroDivisionError: division by zero)")
    assert w.kernel_size == 2


def test_the_synced_state_is_strict_json_the_front_end_reads():
    w = poolgrad.Widget([[np.nan, 1.0], [-np.inf, 2.0]], kernel_size=(2, 1), stride=1, selection=(0, 0))
    state = w.get_state()
    json.dumps(state, allow_nan=False)
    assert state["x"] == [["NaN", 1.0], ["-Infinity", 2.0]]
    assert state["kernel_size"] == [2, 1] and state["stride"] == [1, 1] and state["selection"] == [0, 0]
    assert state["trace"]["output"] == [["NaN", 2.0]]
    assert state["_esm"] == BUNDLE.read_text(encoding="utf-8")


def test_a_change_from_the_front_end_is_decoded():
    w = poolgrad.Widget(FIXTURE_ROWS)
    w.set_state({"kernel_size": [3, 3], "stride": [1, 1], "selection": [0, 0],
                 "x": [[1, "NaN", 3], [2, 3, 4], [5, 6, "-Infinity"]]})
    assert w.error == ""
    assert (w.kernel_size, w.stride, w.selection) == ((3, 3), (1, 1), (0, 0))
    assert np.isnan(w.x[0, 1]) and w.x[2, 2] == -np.inf
    assert np.isnan(w.output[0, 0]) and w.trace["output"] == [["NaN"]]


def test_a_bad_value_from_the_front_end_becomes_the_error_shown():
    w = poolgrad.Widget(FIXTURE_ROWS)
    before = w.trace
    w.set_state({"padding": [2, 2]})
    assert w.error.startswith("padding")
    assert w.padding == 0 and w.trace is before
    w.set_state({"padding": [1, 1]})
    assert w.error == "" and w.trace["padding"] == [1, 1]


class _Sent:
    """The messages a widget sends its front end (a comm that keeps them)."""

    def __init__(self, widget):
        self.messages = []
        widget.comm.send = lambda data=None, buffers=None, **_: self.messages.append(data)


def test_a_change_from_python_reaches_the_front_end_as_one_message_with_its_trace():
    # web/notebook.js answers the view from `trace` only when `trace_settings` names it: a
    # setting must never arrive beside another setting's trace.
    w = poolgrad.Widget(FIXTURE_ROWS)
    sent = _Sent(w)
    w.kernel_size = 3
    assert len(sent.messages) == 1
    state = sent.messages[0]["state"]
    assert state["kernel_size"] == [3, 3] and state["trace"]["kernel_size"] == [3, 3]
    pool_settings = {name: state["trace_settings"][name] for name in poolgrad.widget.SETTINGS}
    assert pool_settings == {"x": FIXTURE_ROWS, "kernel_size": [3, 3], "stride": None, "padding": [0, 0],
                             "dilation": [1, 1], "ceil_mode": False, "count_include_pad": True,
                             "mode": "max", "grad_output": None, "output_size": [2, 2], "norm_type": 2.0,
                             "unpool": False}
    assert state["trace_settings"]["view"] == "pool"


def test_a_trace_request_of_the_front_end_is_answered_by_run_trace():
    w = poolgrad.Widget(FIXTURE_ROWS)
    sent = _Sent(w)
    key = json.dumps({"x": FIXTURE_ROWS, "kernel_size": [3, 3], "stride": [1, 1], "grad_output": 1})
    w._handle_custom_msg({"type": "trace", "id": "a:1", "key": key}, [])
    w._handle_custom_msg({"type": "trace", "id": "a:2", "key": '{"x": [[1]], "kernel_size": 0}'}, [])
    w._handle_custom_msg({"type": "other"}, [])
    answers = [m["content"] for m in sent.messages]
    assert [a["id"] for a in answers] == ["a:1", "a:2"]
    assert json.loads(answers[0]["answer"]) == json.loads(poolgrad.wire.run_trace(key))
    assert json.loads(answers[0]["answer"])["trace"]["output"] == [[8, 8], [9, 9]]
    assert json.loads(answers[1]["answer"]) == {"error": "kernel_size must be at least 1, got 0"}
    assert w.kernel_size == 2  # a request computes a view; it never changes the widget's


def test_check_prints_the_verdict_and_loads_the_failing_case(capsys):
    w = poolgrad.check(_function(BACKWARD["last_max_wins"], "max_pool2d_backward"), "backward")
    answer = poolgrad.exercise_check.check(BACKWARD["last_max_wins"], "backward")
    assert capsys.readouterr().out == answer["sentence"] + "\n"
    case = poolgrad.exercise_check.CASES["backward"][answer["case"]["number"] - 1]
    assert w.x.tolist() == case.x.tolist() and w.gradient
    assert w.grad_output.tolist() == case.grad_output
    assert w.mismatches == answer["mismatches"] and w.mismatches


def test_check_of_a_right_function_passes(capsys):
    w = poolgrad.check(_function(FORWARD["numpy"], "max_pool2d"), "forward")
    assert capsys.readouterr().out.startswith("All 13 cases pass")
    assert w.mismatches == [] and not w.gradient


def test_check_of_a_chain_exercise_prints_the_verdict_and_returns_the_answer(capsys):
    answer = poolgrad.check(_function(CONV["unweighted"], "conv2d_backward"), "conv2d_backward")
    assert capsys.readouterr().out == answer["sentence"] + "\n"
    assert answer["sentence"].startswith("Case 1 of 8 fails on the lesson's example. 9 cells differ")
    assert answer["case"]["expected"]["grad_w"][0] == [171, 232, 184]
    assert {m["grid"] for m in answer["mismatches"]} == {"grad-weight"}
    assert poolgrad.check(_function(MSE["right"], "mse_loss_backward"), "mse_loss_backward") == {
        "state": "pass", "exercise": "mse_loss_backward", "sentence": capsys.readouterr().out.strip()}


def _function(source, name):
    namespace = {}
    exec(source, namespace)
    return namespace[name]


# ------------------------------------------------------------------ the chain view

CAPSTONE = {"x": [[[1, 2, 0, 3, 1, 0], [0, 1, 3, 1, 2, 2], [2, 0, 1, 0, 1, 3], [1, 3, 2, 2, 0, 1],
                   [0, 1, 1, 3, 2, 0], [2, 2, 0, 1, 1, 1]]],
            "weight": [[[[0.5, -0.5, 0], [0, 1, 0], [0.5, 0, -0.5]]]],
            "target": [[[2, 1], [0, 3]]]}


def test_the_chain_view_starts_at_the_fronts_ends_capstone_and_holds_chain_traces_numbers():
    assert poolgrad.widget.chain_start() == CAPSTONE
    w = poolgrad.Widget(view="chain")
    native = poolgrad.chain_trace(CAPSTONE["x"], CAPSTONE["weight"], target=CAPSTONE["target"],
                                  pool="max", pool_kernel_size=2, loss="mse", learning_rate=0.01)
    assert w.chain == native and w.trace == native
    assert w.chain["loss"] == 4.3125 and w.chain["pool_output"] == [[[4.0, 2.0], [3.5, 3.0]]]
    assert w.output is None and w.picture is None
    w.steps = 3
    assert w.chain == poolgrad.chain_trace(CAPSTONE["x"], CAPSTONE["weight"], target=CAPSTONE["target"],
                                           learning_rate=0.01, steps=3)
    assert w.chain["loss_history"][-1] < w.chain["loss_history"][0]


def test_the_chains_made_up_gradients_and_another_input():
    x = np.arange(16.0).reshape(4, 4)
    w = poolgrad.Widget(x, view="chain", chain_weight=[[1, 0], [0, -1]], chain_pool="none")
    # Another X: the target starts at zeros of the last output's shape (3 x 3 here).
    assert w.chain_target.tolist() == np.zeros((1, 3, 3)).tolist()
    assert w.chain["loss"] == poolgrad.mse_loss(poolgrad.conv2d(x[None], np.array([[[[1, 0], [0, -1]]]])),
                                                np.zeros((1, 3, 3))).item()
    w.chain_upstream = "hot"
    w.chain_hot = (1, 2)
    hot = np.zeros((1, 3, 3))
    hot[0, 1, 2] = 1
    assert w.chain["grad_last_output"] == hot.tolist() and w.chain["loss"] is None
    w.chain_upstream = "ramp"
    assert w.chain["grad_last_output"] == [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]
    assert w.chain == poolgrad.chain_trace(x, [[1, 0], [0, -1]], pool=None, loss=None, learning_rate=0.01,
                                           grad_output=np.arange(1, 10).reshape(1, 3, 3))


def test_a_refused_chain_setting_raises_chain_traces_own_message_and_keeps_the_view():
    w = poolgrad.Widget(view="chain")
    before = w.chain
    with pytest.raises(ValueError) as refused:
        w.chain_weight = np.ones((1, 2, 3, 3))
    with pytest.raises(ValueError) as native:
        poolgrad.chain_trace(CAPSTONE["x"], np.ones((1, 2, 3, 3)), target=CAPSTONE["target"])
    assert str(refused.value) == str(native.value)
    with pytest.raises(ValueError, match="chain_upstream must be one of"):
        w.chain_upstream = "loss-huber"
    with pytest.raises(ValueError, match="view must be one of 'pool', 'chain', 'picture'"):
        w.view = "graph"
    assert w.chain is before and w.view == "chain"


def test_the_front_ends_step_and_view_change_reach_the_kernel():
    w = poolgrad.Widget(FIXTURE_ROWS)
    # The front end switches to the chain: the chain's keys come with their values.
    w.set_state({"view": "chain", "chain_x": CAPSTONE["x"], "chain_weight": CAPSTONE["weight"],
                 "chain_target": CAPSTONE["target"], "steps": 1, "learning_rate": 0.01, "chain_pool": "max",
                 "chain_pool_kernel_size": [2, 2], "chain_upstream": "loss-mse", "chain_hot": None,
                 "chain_bias": None, "chain_relu": False})
    assert w.error == "" and w.view == "chain" and w.chain["loss_history"] == [4.3125, w.chain["loss"]]
    # A step the chain refuses is said in the widget and the kernel keeps its view.
    w.set_state({"steps": 501})
    assert w.error.startswith("steps") and w.steps == 1
    # Back to the pool view: the front end sends None for the chain's keys, which the kernel keeps.
    w.set_state({"view": None, "steps": None, "chain_x": None, "chain_weight": None})
    assert w.error == "" and w.view == "pool" and w.steps == 1 and w.chain is None
    assert w.output.tolist() == [[4, 8], [9, -2]]


# ------------------------------------------------------------------ the picture view

IMAGE = (np.arange(48, dtype=np.uint8).reshape(4, 4, 3) * 5)


def test_a_colour_image_shows_the_picture_view_pooled_by_the_kernel():
    w = poolgrad.Widget(IMAGE, gradient=True, picture_selection=(1, 0))
    planes = IMAGE.transpose(2, 0, 1)
    assert w.view == "picture" and w.picture_channel == "rgb"
    assert w.picture["input"].tolist() == planes.tolist()
    assert w.picture["output"].tolist() == poolgrad.max_pool2d(planes, 2).tolist()
    assert w.picture["gradient_share"] == {"reached": 4, "pixels": 16}
    assert w.picture["zoom"]["output"] == {1: {0: int(poolgrad.max_pool2d(planes, 2)[0, 1, 0])}}
    # (3, H, W) is the same picture; a grey (H, W) one names its view and starts grey.
    assert poolgrad.Widget(planes).picture["output"].tolist() == w.picture["output"].tolist()
    grey = poolgrad.Widget(IMAGE[..., 0], view="picture", mode="avg")
    assert grey.picture_channel == "grey"
    assert grey.picture["output"][0].tolist() == poolgrad.avg_pool2d(IMAGE[..., 0].astype(float), 2).tolist()
    w.picture_repeat = 2
    assert w.picture["output"].tolist() == poolgrad.max_pool2d(poolgrad.max_pool2d(planes, 2), 2).tolist()
    assert w.output is None and w.chain is None


def test_a_large_picture_is_scaled_to_the_size_and_bad_ones_are_refused_by_rule():
    w = poolgrad.Widget(np.zeros((300, 200, 3)))
    assert w.picture_source["shape"] == [300, 200]
    assert w.picture_source["sizes"] == {"32": [32, 21], "64": [64, 43], "128": [128, 85], "256": [256, 171]}
    assert w.picture["input"].shape == (3, 128, 85)
    w.picture_size = 32
    assert w.picture["output"].shape == (3, 16, 10)
    with pytest.raises(ValueError, match="picture_size must be one of 32, 64, 128, 256"):
        w.picture_size = 100
    for image, message in [(np.zeros((2, 2, 4)), r"\(H, W\) grey, \(H, W, 3\) or \(3, H, W\) colour, got shape \(2, 2, 4\)"),
                           (np.full((2, 2, 3), 300), "whole numbers from 0 to 255.*got 300"),
                           (np.full((2, 2, 3), 0.5), "whole numbers from 0 to 255.*got 0.5"),
                           (np.zeros((2, 2, 3), dtype=bool), "numbers from 0 to 255, got dtype bool")]:
        with pytest.raises(ValueError, match=message):
            poolgrad.Widget(image)


class _SentWithBuffers:
    def __init__(self, widget):
        self.messages = []
        widget.comm.send = lambda data=None, buffers=None, **_: self.messages.append((data, buffers))


def test_a_picture_request_is_answered_with_the_kernels_pixels_and_planes_as_bytes():
    w = poolgrad.Widget(IMAGE)
    sent = _SentWithBuffers(w)
    key = json.dumps({"kind": "picture", "shape": [4, 4, 4], "channel": "g", "kernel_size": [2, 2],
                      "stride": [2, 2], "padding": [0, 0], "dilation": [1, 1], "ceil_mode": False, "mode": "max",
                      "count_include_pad": True, "repeat": 1, "gradient": False, "selection": [0, 1]})
    w._handle_custom_msg({"type": "picture", "id": "p:1", "key": key}, [])
    (data, buffers), = sent.messages
    answer = json.loads(data["content"]["answer"])
    rgba = poolgrad.picture.picture_rgba(IMAGE).tobytes()
    native, planes = poolgrad.wire.run_trace(key, rgba)
    assert data["content"]["id"] == "p:1" and answer == json.loads(native)
    assert bytes(buffers[0]) == planes
    output = answer["picture"]["planes"][1]
    values = np.frombuffer(bytes(buffers[0]), np.float32, 4, output["offset"]).reshape(2, 2)
    assert values.tolist() == poolgrad.max_pool2d(IMAGE[..., 1], 2).tolist()
    # The page's own pixels, when sent, are the ones pooled.
    w._handle_custom_msg({"type": "picture", "id": "p:2", "key": key}, [memoryview(bytes([0, 0, 0, 255] * 16))])
    assert json.loads(sent.messages[1][0]["content"]["answer"])["picture"]["zoom"]["output"] == {"0": {"1": 0}}


def test_a_widget_without_x_says_which_view_needs_one():
    with pytest.raises(ValueError, match=r"the pool view needs x, a 2D plane of numbers: Widget\(x\)"):
        poolgrad.Widget()
    with pytest.raises(ValueError, match="view must be one of 'pool', 'chain', 'picture', got 'graph'"):
        poolgrad.Widget([[1]], view="graph")
