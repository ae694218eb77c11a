"""chain_trace(): the chain view's one source of truth, used as the view uses it.

Every key of the contract (docs/trace-contract.md, "chain_trace()"), checked against the
package's own functions, through wire.run_trace, with each refusal; the capstone chain
against torch autograd (and its torch-free twin in test_golden.py).
"""

import itertools
import json

import numpy as np
import pytest

import poolgrad
from poolgrad import wire
from poolgrad.chain import MAX_CHAIN_STEPS, chain_trace

LESSON_X = [[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]]
CAPSTONE_X = [[3, 0, 1, 2, 7, 4], [1, 5, 8, 9, 3, 1], [2, 7, 2, 5, 1, 3],
              [0, 1, 3, 1, 7, 8], [4, 2, 1, 6, 2, 8], [2, 4, 5, 2, 3, 9]]
EDGE = [[1, 0, -1], [1, 0, -1], [1, 0, -1]]

KEYS = {"kind", "input", "weight", "bias", "target", "stride", "padding", "dilation",
        "pool_kernel_size", "pool_stride", "activation", "pool", "loss_function", "upstream",
        "conv_output", "activation_output", "pool_output", "pool_indices", "pool_windows",
        "pool_receivers", "loss", "loss_history", "grad_last_output", "grad_pool_output",
        "grad_activation_output", "grad_conv_output", "grad_weight", "grad_bias", "grad_input",
        "connections"}


def run(request):
    return json.loads(wire.run_trace(json.dumps(dict(request, kind="chain"))))


def test_the_capstone_has_every_key_at_full_rank():
    t = chain_trace(CAPSTONE_X, EDGE, target=np.zeros((2, 2)), bias=[0.5])
    assert set(t) == KEYS and t["kind"] == "chain" and t["upstream"] == "loss"
    assert np.shape(t["input"]) == (1, 6, 6) and np.shape(t["weight"]) == (1, 1, 3, 3)
    assert t["bias"] == [0.5] and np.shape(t["target"]) == (1, 2, 2)
    assert t["stride"] == [1, 1] and t["dilation"] == [1, 1] and t["padding"] == [0, 0, 0, 0]
    assert t["pool_kernel_size"] == [2, 2] and t["pool_stride"] == [2, 2]
    assert (t["activation"], t["pool"], t["loss_function"]) == (None, "max", "mse")
    assert np.shape(t["conv_output"]) == (1, 4, 4) and t["activation_output"] is None
    assert np.shape(t["pool_output"]) == np.shape(t["pool_indices"]) == (1, 2, 2)
    assert np.shape(t["pool_windows"]) == (2, 2, 4, 2)
    assert np.shape(t["pool_receivers"]) == (1, 4, 4)
    assert isinstance(t["loss"], float) and t["loss_history"] == [t["loss"]]
    assert np.shape(t["grad_last_output"]) == np.shape(t["grad_pool_output"]) == (1, 2, 2)
    assert t["grad_activation_output"] is None
    assert np.shape(t["grad_conv_output"]) == (1, 4, 4)
    assert np.shape(t["grad_weight"]) == (1, 1, 3, 3) and len(t["grad_bias"]) == 1
    assert np.shape(t["grad_input"]) == (1, 6, 6)
    json.dumps(t, allow_nan=False)


def _chain_by_hand(x, w, b, target, stride, padding, dilation, activation, pool, kernel,
                   loss, grad_output=None):
    """The same chain written with the public functions, one by one."""
    y1 = poolgrad.conv2d(x, w, b, stride, padding, dilation)
    a = poolgrad.relu(y1) if activation else y1
    indices = None
    if pool == "max":
        last, indices = poolgrad.max_pool2d(a, kernel, return_indices=True)
    elif pool == "avg":
        last = poolgrad.avg_pool2d(a, kernel)
    else:
        last = a
    if grad_output is None:
        forward, backward = {"mse": (poolgrad.mse_loss, poolgrad.mse_loss_backward),
                             "l1": (poolgrad.l1_loss, poolgrad.l1_loss_backward)}[loss]
        value, grad = float(forward(last, target)), backward(1.0, last, target)
    else:
        value, grad = None, np.broadcast_to(np.asarray(grad_output, float), last.shape)
    g_pool = grad
    if pool == "max":
        grad = poolgrad.max_pool2d_backward(grad, indices, a.shape)
    elif pool == "avg":
        grad = poolgrad.avg_pool2d_backward(grad, a.shape, kernel)
    g_act = grad
    if activation:
        grad = poolgrad.relu_backward(grad, y1)
    gx, gw, gb = poolgrad.conv2d_backward(grad, x, w, stride, padding, dilation,
                                          bias=b is not None)
    return dict(conv_output=y1, activation_output=a if activation else None,
                pool_output=last if pool else None, pool_indices=indices, loss=value,
                grad_pool_output=g_pool if pool else None,
                grad_activation_output=g_act if activation else None,
                grad_conv_output=grad, grad_weight=gw, grad_bias=gb, grad_input=gx)


SETTINGS = list(itertools.product([1, 2, 3], [1, 2], [None, "relu"], ["max", "avg", None],
                                  ["mse", "l1", "ones"], [0, "same"]))


@pytest.mark.parametrize("channels, filters, activation, pool, upstream, padding", SETTINGS)
def test_every_array_is_what_the_functions_give(channels, filters, activation, pool,
                                                upstream, padding):
    rng = np.random.default_rng(channels * 100 + filters)
    x = rng.integers(-4, 5, (channels, 6, 7)).astype(float)
    w = rng.integers(-2, 3, (filters, channels, 3, 2)).astype(float)
    b = rng.integers(-2, 3, filters).astype(float)
    y1_shape = poolgrad.conv2d(x, w, None, 1, padding).shape
    last = y1_shape if pool is None else (filters, y1_shape[1] // 2, y1_shape[2] // 2)
    target = rng.integers(-3, 4, last).astype(float)
    grad_output = 1.0 if upstream == "ones" else None
    loss = None if upstream == "ones" else upstream
    t = chain_trace(x, w, target=target, bias=b, padding=padding, activation=activation,
                    pool=pool, loss=loss, grad_output=grad_output)
    expected = _chain_by_hand(x, w, b, target, 1, padding, 1, activation, pool, 2, loss,
                              grad_output)
    for key, value in expected.items():
        if value is None:
            assert t[key] is None, key
        elif key == "loss":
            assert t[key] == value
        else:
            np.testing.assert_array_equal(np.array(t[key]), value, err_msg=key)
    assert t["upstream"] == ("grad_output" if grad_output else "loss")
    if pool:
        assert t["grad_last_output"] == t["grad_pool_output"]
    else:
        assert t["grad_last_output"] == (t["grad_activation_output"] if activation
                                         else t["grad_conv_output"])


def test_same_padding_with_an_even_kernel_pads_one_more_at_the_bottom_and_right():
    t = chain_trace(np.ones((4, 4)), np.ones((2, 2)), pool=None, padding="same", grad_output=1)
    assert t["padding"] == [0, 1, 0, 1]
    assert np.shape(t["conv_output"]) == (1, 4, 4)
    assert t["connections"]["reads"][3][3] == [[3, 3], [3, 4], [4, 3], [4, 4]]


def test_connections_reads_and_feeds_are_each_others_inverse():
    t = chain_trace(np.arange(30.0).reshape(5, 6), np.ones((3, 2)), stride=(2, 1), padding=1,
                    dilation=(1, 2), pool=None, grad_output=1)
    reads, feeds = t["connections"]["reads"], t["connections"]["feeds"]
    assert np.shape(reads) == (np.shape(t["conv_output"])[1], np.shape(t["conv_output"])[2], 6, 2)
    assert reads[0][0] == [[-1, -1], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 1]]
    pairs_from_reads = sorted((r, c, oh, ow, tap // 2, tap % 2)
                              for oh, row in enumerate(reads) for ow, cells in enumerate(row)
                              for tap, (r, c) in enumerate(cells) if 0 <= r < 5 and 0 <= c < 6)
    pairs_from_feeds = sorted((r, c, *entry) for r, row in enumerate(feeds)
                              for c, entries in enumerate(row) for entry in entries)
    assert pairs_from_reads == pairs_from_feeds
    for row in feeds:
        for entries in row:
            assert entries == sorted(entries)  # row-major order of (oh, ow)


def test_connections_the_lesson_region_p():
    # Input cell (2, 2) of the lesson's 5 x 5 feeds all nine outputs of the 3 x 3 filter.
    t = chain_trace(LESSON_X, EDGE, pool=None, grad_output=1)
    assert [entry[:2] for entry in t["connections"]["feeds"][2][2]] == [
        [oh, ow] for oh in range(3) for ow in range(3)]
    assert t["connections"]["feeds"][0][0] == [[0, 0, 0, 0]]
    assert t["conv_output"] == [[[-5.0, -4.0, 0.0], [-10.0, -2.0, 2.0], [0.0, -2.0, -4.0]]]


def test_pool_windows_and_receivers():
    x = np.zeros((5, 5))
    x[1, 1] = 9.0
    t = chain_trace(x, [[1.0]], pool="max", pool_kernel_size=3, pool_stride=2, grad_output=1)
    assert t["pool_windows"][0][1] == [[0, 2], [0, 3], [0, 4], [1, 2], [1, 3], [1, 4],
                                       [2, 2], [2, 3], [2, 4]]
    receivers = np.array(t["pool_receivers"][0])
    flat_indices = np.array(t["pool_indices"][0]).ravel()
    np.testing.assert_array_equal(receivers.ravel(), np.bincount(flat_indices, minlength=25))
    assert receivers.sum() == 4
    avg = chain_trace(x, [[1.0]], pool="avg", pool_kernel_size=3, pool_stride=2, grad_output=1)
    assert avg["pool_indices"] is None
    assert avg["pool_receivers"][0][2] == [2, 2, 4, 2, 2]
    none = chain_trace(x, [[1.0]], pool=None, grad_output=1)
    assert none["pool_windows"] is none["pool_receivers"] is none["pool_output"] is None


def test_steps_of_gradient_descent_replay_from_the_start():
    kwargs = dict(target=[[1.0, -1.0], [0.5, 2.0]], bias=[0.0], learning_rate=0.01)
    start = chain_trace(CAPSTONE_X, EDGE, **kwargs)
    w = np.array(start["weight"]) - 0.01 * np.array(start["grad_weight"])
    b = np.array(start["bias"]) - 0.01 * np.array(start["grad_bias"])
    one = chain_trace(CAPSTONE_X, EDGE, steps=1, **kwargs)
    np.testing.assert_array_equal(one["weight"], w)
    np.testing.assert_array_equal(one["bias"], b)
    assert one["loss_history"] == [start["loss"], one["loss"]]
    by_hand = chain_trace(CAPSTONE_X, w[0, 0], target=kwargs["target"], bias=b)
    assert by_hand["loss"] == one["loss"] and by_hand["grad_weight"] == one["grad_weight"]
    many = chain_trace(CAPSTONE_X, EDGE, steps=50, **kwargs)
    assert len(many["loss_history"]) == 51 and many["loss_history"][-1] == many["loss"]
    assert many["loss"] < start["loss"]
    ones = chain_trace(CAPSTONE_X, EDGE, grad_output=1, steps=3)
    assert ones["loss"] is None and ones["loss_history"] is None


def test_a_diverging_descent_comes_back_as_named_numbers():
    t = chain_trace(CAPSTONE_X, EDGE, target=[[0, 0], [0, 0]], learning_rate=1e3,
                    steps=MAX_CHAIN_STEPS)
    text = json.dumps(t, allow_nan=False)
    assert '"NaN"' in text or '"Infinity"' in text


@pytest.mark.parametrize("kwargs, message", [
    (dict(weight=np.ones((7, 7))), "larger than the padded input"),
    (dict(target=np.zeros((3, 3))), r"target has shape \(3, 3\) but the chain's last output has shape \(1, 2, 2\) or \(2, 2\)"),
    (dict(weight=np.ones((5, 1, 3, 3))), "weight has 5 filters: the chain takes 1 to 4"),
    (dict(x=np.ones((4, 6, 6))), "x has 4 channels: the chain takes 1 to 3"),
    (dict(target=None), "a loss \\('mse' or 'l1'\\) with a target, or a made-up grad_output"),
    (dict(loss=None), "a loss \\('mse' or 'l1'\\) with a target, or a made-up grad_output"),
    (dict(steps=MAX_CHAIN_STEPS + 1), "steps must be an int from 0 to 500"),
    (dict(steps=-1), "steps must be an int from 0 to 500"),
    (dict(steps=2.5), "steps must be an int from 0 to 500"),
    (dict(learning_rate=float("nan")), "learning_rate must be a finite number"),
    (dict(x=np.ones((17, 4))), "at most 16 x 16"),
    (dict(x=np.ones((2, 6, 6))), "x has 2 channels: give weight as \\(F, C, kh, kw\\)"),
    (dict(weight=np.ones((1, 2, 3, 3))), "weight has 2 channels per filter but x has 1"),
    (dict(bias=[1, 2]), r"bias must hold one number per filter \(1\)"),
    (dict(stride=2, padding="same"), "padding='same' is not supported for strided"),
    (dict(pool_kernel_size=5), "the pooling of the 4 x 4 convolution output"),
    (dict(activation="tanh"), "activation must be one of None, 'relu'"),
    (dict(pool="min"), "pool must be one of 'max', 'avg', None"),
    (dict(loss="huber"), "loss must be one of 'mse', 'l1', None"),
    (dict(grad_output=np.ones((3, 3))), "grad_output has shape"),
    (dict(padding=17), "padding=17 is too much for the chain"),
])
def test_each_refusal_is_one_clear_message(kwargs, message):
    request = dict(x=np.array(CAPSTONE_X, float), weight=np.array(EDGE, float),
                   target=np.zeros((2, 2)))
    request.update(kwargs)
    with pytest.raises(ValueError, match=message):
        chain_trace(**request)
    as_json = {key: (value.tolist() if isinstance(value, np.ndarray) else value)
               for key, value in request.items() if not (isinstance(value, float) and value != value)}
    if len(as_json) == len(request):
        assert json.loads(wire.run_trace(json.dumps(dict(as_json, kind="chain"))))["error"]


def test_through_the_wire_as_the_view_sends_it():
    request = {"x": CAPSTONE_X, "weight": EDGE, "target": [[0, 0], [0, 0]], "bias": [0],
               "activation": "relu", "pool": "max", "loss": "mse", "steps": 2}
    answer = run(request)
    assert answer["trace"] == json.loads(json.dumps(chain_trace(**request)))
    named = run({"x": [[["NaN", 1], ["-Infinity", "-0"]]], "weight": [[[["Infinity"]]]],
                 "pool": None, "grad_output": [[["NaN", 0], [1, "-0"]]]})["trace"]
    assert named["conv_output"] == [[["NaN", "Infinity"], ["-Infinity", "NaN"]]]
    assert named["input"][0][1][1] == -0.0


@pytest.mark.parametrize("request_, message", [
    ({"kind": "chain", "x": [[1]]}, "needs at least x and weight"),
    ({"kind": "chain", "x": [[1]], "weight": [[1]], "kernel_size": 2}, 'unknown setting "kernel_size"'),
    ({"kind": "chain", "x": [["one"]], "weight": [[1]]}, 'x\\[0\\]\\[0\\]: "one" is not a number'),
    ({"kind": "conv", "x": [[1]]}, 'the request\'s "kind" must be "pool" or "chain"'),
])
def test_malformed_chain_requests_are_refused_through_the_wire(request_, message):
    import re
    assert re.search(message, json.loads(wire.run_trace(json.dumps(request_)))["error"])


def test_pool_requests_are_unchanged_with_or_without_kind_pool():
    request = {"x": [[1, 2], [3, 4]], "kernel_size": 2}
    plain = wire.run_trace(json.dumps(request))
    assert wire.run_trace(json.dumps(dict(request, kind="pool"))) == plain
    assert json.loads(plain)["trace"] == json.loads(json.dumps(poolgrad.trace(**request)))


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(6))
def test_the_capstone_matches_autograd_end_to_end(torch, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 6, 6)) if seed % 2 else np.array([CAPSTONE_X], float)
    w = rng.standard_normal((2, x.shape[0], 3, 3))
    b = rng.standard_normal(2)
    target = rng.standard_normal((2, 2, 2))
    t = chain_trace(x, w, target=target, bias=b)
    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    y1 = torch.nn.functional.conv2d(xt, wt, bt)
    y2 = torch.nn.functional.max_pool2d(y1, 2)
    loss = torch.nn.functional.mse_loss(y2, torch.tensor(target))
    loss.backward()
    np.testing.assert_allclose(t["loss"], loss.item(), rtol=1e-12)
    np.testing.assert_allclose(t["pool_output"], y2.detach().numpy(), rtol=1e-12)
    for key, tensor in (("grad_weight", wt), ("grad_bias", bt), ("grad_input", xt)):
        np.testing.assert_allclose(t[key], tensor.grad.numpy(), rtol=1e-12, atol=1e-14,
                                   err_msg=key)


def test_an_answer_s_lists_are_its_own():
    # The geometry's lists are cached: changing one answer must not change the next.
    first = chain_trace(CAPSTONE_X, EDGE, target=[[0, 0], [0, 0]])
    first["connections"]["feeds"][0][0].append("changed")
    first["pool_windows"][0][0].clear()
    second = chain_trace(CAPSTONE_X, EDGE, target=[[0, 0], [0, 0]])
    assert second["connections"]["feeds"][0][0] == [[0, 0, 0, 0]]
    assert len(second["pool_windows"][0][0]) == 4


@pytest.mark.parametrize("change", [
    {"x": [[[[[1]]]]]}, {"x": "NaN"}, {"x": []}, {"x": [[1, 2], [3]]}, {"weight": [[True]]},
    {"stride": 2**63}, {"dilation": 2**62}, {"padding": [1, 2, 3]}, {"padding": "full"},
    {"bias": {"a": 1}}, {"bias": [[1]]}, {"learning_rate": "NaN"}, {"learning_rate": 1e309},
    {"steps": True}, {"target": [[["x"]]]}, {"grad_output": "-Infinity"}, {"pool_stride": 0},
    {"activation": ["relu"]}, {"x": [[1e308, 1e308], [1e308, 1e308]], "grad_output": 1},
])
def test_hostile_chain_requests_get_an_answer_never_a_traceback(change):
    request = dict({"kind": "chain", "x": [[1, 2, 3], [4, 5, 6], [7, 8, 9]], "weight": [[1, 0], [0, 1]],
                    "target": [[0]]}, **change)
    answer = json.loads(wire.run_trace(json.dumps(request)))
    assert set(answer) in ({"trace"}, {"error"})
    if "error" in answer:
        assert answer["error"] and "Traceback" not in answer["error"]
