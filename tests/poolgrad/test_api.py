"""What `import poolgrad` offers a Python user: the API names, and only those, in dir()."""

import pathlib

import pytest

import poolgrad


def test_dir_lists_the_api_not_the_implementation_modules():
    names = dir(poolgrad)
    # Widget and check are API too, loaded on first use (they need the optional anywidget),
    # so they stay out of __all__: a star import must not need anywidget.
    assert names == sorted([*poolgrad.__all__, "Widget", "check"])
    for module in ("max_pool", "avg_pool", "windows", "validation", "geometry", "layers", "wire"):
        assert module not in names
    # The modules stay importable for whoever needs them.
    from poolgrad import validation

    assert validation.MAX_ELEMENTS > 0


def test_every_name_in_all_exists_and_star_import_gives_exactly_them():
    namespace = {}
    exec("from poolgrad import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(poolgrad.__all__)
    for name in poolgrad.__all__:
        assert getattr(poolgrad, name) is not None


def test_the_family_takes_its_input_under_torch_s_name_as_max_pool2d_does():
    # torch.nn.functional names the pooled tensor `input` throughout; so do poolgrad's
    # functions and its layers' forward, the family included.
    import inspect

    functions = [poolgrad.max_pool2d, poolgrad.avg_pool2d, poolgrad.adaptive_avg_pool2d,
                 poolgrad.adaptive_max_pool2d, poolgrad.max_unpool2d, poolgrad.lp_pool2d]
    for function in functions:
        assert next(iter(inspect.signature(function).parameters)) == "input", function.__name__
    assert list(inspect.signature(poolgrad.lp_pool2d_backward).parameters)[:2] == ["grad_output", "input"]
    layers = [poolgrad.MaxPool2d(2), poolgrad.AvgPool2d(2), poolgrad.AdaptiveAvgPool2d(1),
              poolgrad.AdaptiveMaxPool2d(1), poolgrad.LPPool2d(2, 2), poolgrad.MaxUnpool2d(2)]
    for layer in layers:
        assert next(iter(inspect.signature(layer.forward).parameters)) == "input", type(layer).__name__
    x = [[1.0, 2.0], [3.0, 4.0]]
    assert poolgrad.adaptive_avg_pool2d(input=x, output_size=1).tolist() == [[2.5]]
    assert poolgrad.lp_pool2d(input=x, norm_type=1, kernel_size=2).tolist() == [[10.0]]
    with pytest.raises(ValueError, match=r"^input must be 2-D \(H, W\)"):
        poolgrad.adaptive_max_pool2d([1.0], 1)


def test_the_network_around_the_pooling_layer_is_imported_on_first_use():
    # The page's Python starts from a memory image made after `import poolgrad.wire`: the
    # convolution, the chain and the picture stay out of it until a request needs them.
    import json
    import subprocess
    import sys

    network = ["poolgrad.activation", "poolgrad.chain", "poolgrad.conv", "poolgrad.layers", "poolgrad.losses",
               "poolgrad.picture", "poolgrad.widget"]
    probe = """
import json, sys
import poolgrad.wire as wire
loaded = lambda: sorted(name for name in sys.modules if name.startswith("poolgrad."))
at_start = loaded()
wire.run_trace('{"x": [[1, 2], [3, 4]], "kernel_size": 2}')
after_pool = loaded()
answer = json.loads(wire.run_trace('{"kind": "chain", "x": [[1, 2], [3, 4]], "weight": [[1]], "pool": null, "grad_output": 1}'))
after_chain = loaded()
wire.run_trace('{"kind": "picture", "shape": [1, 1, 4], "kernel_size": 1}', bytes([10, 20, 30, 255]))
import poolgrad
conv = poolgrad.conv2d([[[1, 2], [3, 4]]], [[[[1, 0], [0, 1]]]]).tolist()
print(json.dumps([at_start, after_pool, answer["trace"]["grad_weight"], after_chain, loaded(), conv, poolgrad.Conv2d.__name__]))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=pathlib.Path(poolgrad.__file__).parents[1]).stdout
    at_start, after_pool, grad_weight, after_chain, at_end, conv, conv_layer = json.loads(out)
    assert not set(network) & set(at_start) and at_start == after_pool
    assert grad_weight == [[[[10.0]]]]
    assert set(after_chain) - set(at_start) == {"poolgrad.activation", "poolgrad.chain", "poolgrad.conv", "poolgrad.losses"}
    assert set(at_end) - set(after_chain) == {"poolgrad.picture"}
    assert conv == [[[5.0]]] and conv_layer == "Conv2d"
