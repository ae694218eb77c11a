"""The picture view's Python: channels, stacked poolings, the gradient of ones, the zoom, and
the wire's picture requests (pixels as bytes in, planes as bytes out)."""

import json

import numpy as np
import pytest

import poolgrad
import reference
from poolgrad import wire
from poolgrad.picture import gradient_share, picture_planes, pool_picture, run_picture, zoom

RNG = np.random.default_rng(30)


def rgba(height, width, alpha=255):
    pixels = RNG.integers(0, 256, (height, width, 4), dtype=np.uint8)
    pixels[..., 3] = alpha
    return pixels


def ask(pixels, **settings):
    """run_trace's picture answer: the JSON and each plane as an array."""
    request = {"kind": "picture", "shape": list(pixels.shape), **settings}
    answer, data = wire.run_trace(json.dumps(request), pixels.tobytes())
    answer = json.loads(answer)
    if "error" in answer:
        return answer, None
    planes = {plane["name"]: np.frombuffer(data, plane["dtype"], int(np.prod(plane["shape"])),
                                           plane["offset"]).reshape(plane["shape"])
              for plane in answer["picture"]["planes"]}
    return answer["picture"], planes


# -- channels ---------------------------------------------------------------------------

@pytest.mark.parametrize("channel, index", [("r", 0), ("g", 1), ("b", 2)])
def test_one_colour_channel_is_the_file_values(channel, index):
    pixels = rgba(5, 7)
    assert picture_planes(pixels, channel).tolist() == [pixels[..., index].tolist()]


def test_rgb_is_three_planes_and_grey_the_rounded_luma_pixel_by_pixel():
    pixels = rgba(6, 4)
    assert picture_planes(pixels).tolist() == pixels[..., :3].transpose(2, 0, 1).tolist()
    grey = picture_planes(pixels, "grey")[0]
    for (r, c), value in np.ndenumerate(grey):
        red, green, blue = (int(v) for v in pixels[r, c, :3])
        assert value == round(0.299 * red + 0.587 * green + 0.114 * blue)


def test_transparency_is_laid_over_white():
    pixels = np.array([[[0, 0, 0, 0], [0, 0, 0, 255], [100, 0, 200, 128]]], np.uint8)
    planes = picture_planes(pixels)
    assert planes[:, 0, 0].tolist() == [255, 255, 255]
    assert planes[:, 0, 1].tolist() == [0, 0, 0]
    assert planes[:, 0, 2].tolist() == [round(100 * 128 / 255 + 255 * 127 / 255), 127,
                                        round(200 * 128 / 255 + 255 * 127 / 255)]


def test_an_unknown_channel_is_refused():
    with pytest.raises(ValueError, match="channel='hsv' is not a picture channel"):
        picture_planes(rgba(2, 2), "hsv")


# -- stages against the library and the loop reference ----------------------------------

@pytest.mark.parametrize("kernel, stride, padding, dilation, ceil", [
    (2, 2, 0, 1, False), (3, 1, 1, 1, False), (3, 2, 1, 2, True), ((2, 3), (1, 2), (1, 0), 1, False)])
def test_max_stages_are_max_pool2d_and_the_loop_reference(kernel, stride, padding, dilation, ceil):
    planes = picture_planes(rgba(17, 13))
    pooled = pool_picture(planes, kernel, stride, padding, dilation, ceil, repeat=2, gradient=True)
    first, first_indices = poolgrad.max_pool2d(planes, kernel, stride, padding, dilation, ceil,
                                               return_indices=True)
    assert np.array_equal(pooled["stages"][0], first)
    assert np.array_equal(pooled["indices"][0], first_indices)
    second, second_indices = reference.max_pool2d(first, kernel, stride, padding, dilation, ceil)
    assert np.array_equal(pooled["stages"][1], second)
    # Ones routed back through both stages, with the loop reference's backward.
    grad = reference.max_pool2d_backward(np.ones(second.shape), second_indices, first.shape)
    grad = reference.max_pool2d_backward(grad, first_indices, planes.shape)
    assert np.array_equal(pooled["grad_input"], grad)


def test_average_stages_and_gradient_match_the_loop_reference():
    planes = picture_planes(rgba(11, 9), "grey")
    pooled = pool_picture(planes, 3, 2, 1, mode="avg", count_include_pad=False, repeat=2,
                          gradient=True)
    first = reference.avg_pool2d(planes, 3, 2, 1, count_include_pad=False)
    second = reference.avg_pool2d(first, 3, 2, 1, count_include_pad=False)
    assert np.allclose(pooled["stages"][0], first, rtol=0, atol=1e-12)
    assert np.allclose(pooled["stages"][1], second, rtol=0, atol=1e-12)
    grad = reference.avg_pool2d_backward(np.ones(second.shape), first.shape, 3, 2, 1,
                                         count_include_pad=False)
    grad = reference.avg_pool2d_backward(grad, planes.shape, 3, 2, 1, count_include_pad=False)
    assert np.allclose(pooled["grad_input"], grad, rtol=0, atol=1e-12)


@pytest.mark.parametrize("mode, extra, forward", [
    ("lp", {"kernel_size": 2, "norm_type": 2}, lambda x: poolgrad.lp_pool2d(x, 2, 2)),
    ("adaptive_max", {"output_size": 3}, lambda x: poolgrad.adaptive_max_pool2d(x, 3)),
    ("adaptive_avg", {"output_size": (2, 5)}, lambda x: poolgrad.adaptive_avg_pool2d(x, (2, 5)))])
def test_the_rest_of_the_family_pools_each_channel(mode, extra, forward):
    planes = picture_planes(rgba(8, 10))
    pooled = pool_picture(planes, mode=mode, gradient=True, **extra)
    assert np.array_equal(pooled["stages"][0], forward(planes))
    assert pooled["grad_input"].shape == planes.shape


def test_max_gradient_lights_exactly_the_winners_and_average_is_even():
    planes = picture_planes(rgba(8, 8), "g")
    pooled = pool_picture(planes, 2, gradient=True)
    winners = np.zeros(64)
    winners[pooled["indices"][0].ravel()] = 1
    assert pooled["grad_input"].ravel().tolist() == winners.tolist()
    assert gradient_share(pooled["grad_input"]) == {"reached": 16, "pixels": 64}
    even = pool_picture(planes, 2, mode="avg", gradient=True)["grad_input"]
    assert np.all(even == 0.25)
    assert gradient_share(even) == {"reached": 64, "pixels": 64}


def test_a_repeat_outside_one_to_four_and_a_bad_mode_are_refused():
    planes = picture_planes(rgba(8, 8))
    with pytest.raises(ValueError, match="repeat must be a whole number from 1 to 4, got 5"):
        pool_picture(planes, 2, repeat=5)
    with pytest.raises(ValueError, match="dilation=2 is not available for average pooling"):
        pool_picture(planes, 2, mode="avg", dilation=2)
    with pytest.raises(ValueError, match="stage 2 of 2: kernel_size=3 is larger than the 2 x 2"):
        pool_picture(planes, 3, repeat=2)


@pytest.mark.parametrize("settings", [
    {"mode": "avg", "kernel_size": 2, "dilation": 0},
    {"mode": "lp", "kernel_size": 2, "norm_type": 0, "padding": 1},
    {"mode": "lp", "kernel_size": 2},
    {"mode": "adaptive_avg", "output_size": 2, "stride": 1},
    {"mode": "max", "norm_type": 2, "kernel_size": 2},
    {"mode": "median", "kernel_size": 2},
    {"mode": "max", "kernel_size": 2, "ceil_mode": 1},
], ids=["avg dilation 0", "lp p=0 padded", "lp without p", "adaptive stride", "norm_type in max",
        "unknown mode", "ceil_mode 1"])
def test_a_pictures_settings_are_refused_in_traces_very_words(settings):
    # One home for the rules: the picture once kept its own copy, which said "dilation=0 is
    # not available for average pooling" where trace() said "dilation must be at least 1",
    # and checked LP's padding before its p.
    with pytest.raises((ValueError, TypeError)) as by_trace:
        poolgrad.trace(np.zeros((4, 4)), **settings)
    with pytest.raises((ValueError, TypeError)) as by_picture:
        pool_picture(picture_planes(rgba(4, 4)), **settings)
    assert (type(by_picture.value), str(by_picture.value)) == (type(by_trace.value), str(by_trace.value))


# -- the zoom ------------------------------------------------------------------------------

def test_the_zoom_of_max_pooling_is_trace_s_cell_with_a_margin():
    planes = picture_planes(rgba(9, 9))
    pooled = pool_picture(planes, 3, 2, 1, gradient=True)
    described = zoom(pooled, (2, 1), channel=1)
    whole = poolgrad.trace(planes[1], 3, 2, 1, grad_output=1)
    assert described["window_rows"][2] == whole["window_rows"][2]
    assert described["window_cols"][1] == whole["window_cols"][1]
    assert described["output"][2][1] == whole["output"][2][1]
    assert described["argmax"][2][1] == whole["argmax"][2][1]
    r, c = whole["argmax"][2][1]
    assert described["sources"][r][c] == whole["sources"][r][c]
    assert described["grad_input"][r][c] == whole["grad_input"][r][c]
    assert described["box"] == {"rows": [2, 6], "cols": [0, 4]}
    for row, cells in described["input"].items():
        assert cells == {col: int(planes[1, row, col]) for col in range(0, 5)}


def test_the_zoom_of_average_pooling_has_its_divisor_and_shares():
    planes = picture_planes(rgba(6, 6), "grey")
    pooled = pool_picture(planes, 2, mode="avg", padding=1, gradient=True)
    described = zoom(pooled, (0, 0))
    whole = poolgrad.trace(planes[0], 2, mode="avg", padding=1, grad_output=1)
    assert described["divisor"][0][0] == whole["divisor"][0][0] == 4
    assert described["output"][0][0] == whole["output"][0][0]
    assert described["grad_terms"][0][0] == whole["grad_terms"][0][0]
    assert zoom(pooled, (9, 0)) is None


# -- the wire ------------------------------------------------------------------------------

def test_a_picture_request_answers_every_plane_as_bytes():
    pixels = rgba(20, 30)
    picture, planes = ask(pixels, channel="rgb", kernel_size=2, repeat=2, gradient=True,
                          selection=[1, 2])
    expected = picture_planes(pixels)
    assert np.array_equal(planes["input"], expected)
    once = poolgrad.max_pool2d(expected, 2)
    assert np.array_equal(planes["stage-1"], once.astype(np.float32))
    assert np.array_equal(planes["stage-2"], poolgrad.max_pool2d(once, 2).astype(np.float32))
    assert planes["grad-input"].shape == (3, 20, 30)
    assert [stage["shape"] for stage in picture["stages"]] == [[3, 10, 15], [3, 5, 7]]
    assert picture["stages"][0]["formula"]["cols"] == {"n": 30, "k": 2, "s": 2, "p": 0, "d": 1,
                                                       "numerator": 28, "size": 15}
    reached = int(np.any(planes["grad-input"] != 0, axis=0).sum())
    assert 35 <= reached <= 3 * 35
    assert picture["gradient_share"] == {"reached": reached, "pixels": 600}
    assert picture["zoom"]["selected"] == [1, 2]


def test_average_decimals_are_exact_in_the_zoom():
    pixels = np.array([[[1, 0, 0, 255], [2, 0, 0, 255]], [[4, 0, 0, 255], [4, 0, 0, 255]]], np.uint8)
    picture, _ = ask(pixels, channel="r", kernel_size=2, mode="avg", selection=[0, 0])
    assert picture["zoom"]["output"] == {"0": {"0": 2.75}}


@pytest.mark.parametrize("change, message", [
    ({"shape": [257, 10, 4]}, "at most 256 on its longer side"),
    ({"shape": [10, 10, 3]}, "shape must be [height, width, 4]"),
    ({"shape": [0, 10, 4]}, "at least one row and one column"),
    ({"channel": "cmyk"}, "channel='cmyk' is not a picture channel"),
    ({"repeat": 0}, "repeat must be a whole number from 1 to 4"),
    ({"colour": 1}, 'unknown setting "colour"'),
    ({"selection": "0,0"}, "selection must be [row, col]"),
    ({"kernel_size": 20}, "kernel_size"),
])
def test_each_bad_picture_request_is_one_message(change, message):
    pixels = rgba(10, 10)
    request = {"kind": "picture", "shape": [10, 10, 4], "kernel_size": 2, **change}
    answer, data = wire.run_trace(json.dumps(request), pixels.tobytes())
    assert message in json.loads(answer)["error"]
    assert data == b""


def test_pixels_of_the_wrong_length_or_none_are_refused():
    request = json.dumps({"kind": "picture", "shape": [2, 2, 4], "kernel_size": 1})
    assert "hold 15 bytes; a 2 x 2 RGBA picture has 16" in json.loads(wire.run_trace(request, bytes(15))[0])["error"]
    assert "needs its pixels" in json.loads(run_picture({"shape": [2, 2, 4]}, None)[0])["error"]


def test_pool_requests_travel_as_before():
    answer = json.loads(wire.run_trace(json.dumps({"x": [[1, 2], [3, 4]], "kernel_size": 2})))
    assert answer["trace"]["output"] == [[4]]
    assert 'the request\'s "kind" must be' in json.loads(wire.run_trace('{"kind": "movie", "x": [[1]]}'))["error"]
