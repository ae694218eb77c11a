"""The picture view (view=picture): the shipped samples, an uploaded PNG of known pixels
checked against poolgrad natively (canvas sides, the zoom's numbers and argmax, each
channel, average pooling's decimals, repeat, the gradient), a larger picture scaled, each
bad file refused with one sentence while the last good picture stays, and axe."""

import struct
import zlib

import numpy as np
import pytest
from playwright.sync_api import expect

import poolgrad
from picture_files import KNOWN, KNOWN_RGBA, cmyk_jpeg, jpeg, png
from poolgrad.picture import gradient_share, picture_planes, pool_picture
from sitebuild.pins import PICTURE_SAMPLES_SHA256
from widget_driver import axe_violations

SAMPLE_SIDES = {"camera": (256, 256), "text": (98, 256), "chelsea": (170, 256), "coffee": (171, 256)}


def settle(page):
    """Wait until the picture view drew the state shown (no decode, no request under way)."""
    expect(page.locator('canvas[data-picture="output"]')).to_have_count(1, timeout=120_000)
    expect(page.locator("#picture-row")).to_have_attribute("aria-busy", "false", timeout=60_000)


def sides(page):
    return page.evaluate("""Object.fromEntries([...document.querySelectorAll('canvas[data-picture]')]
        .map((c) => [c.dataset.picture, [c.height, c.width]]))""")


def upload(page, data, name="known.png", mime="image/png"):
    page.set_input_files("#picture-file", files=[{"name": name, "mimeType": mime, "buffer": data}])
    settle(page)


def zoom_input(page):
    return page.evaluate("""[...document.querySelectorAll('[data-grid="zoom-input"].cell, td[data-grid="zoom-input"]')]
        .map((c) => [Number(c.dataset.row), Number(c.dataset.col), c.textContent, c.dataset.argmax === "true"])""")


def number_text(value):
    return f"{round(float(value), 4):.4f}".rstrip("0").rstrip(".")


@pytest.fixture
def picture(booted):
    """The picture view on the booted page, on the camera sample at 128."""
    booted.open("")
    booted.set_hash("#view=picture")
    settle(booted.page)
    # A learner's picture of an earlier test on the shared page goes with the sample.
    booted.page.select_option("#picture-sample", "camera")
    booted.set_hash("#view=picture")
    settle(booted.page)
    return booted


def test_every_shipped_sample_is_drawn_pixel_for_pixel_at_256(picture):
    page = picture.page
    assert set(SAMPLE_SIDES) == {name.removesuffix(".png") for name in PICTURE_SAMPLES_SHA256}
    for name, (height, width) in SAMPLE_SIDES.items():
        picture.set_hash(f"#view=picture&pic={name}&psize=256")
        settle(page)
        drawn = sides(page)
        assert drawn["input"] == [height, width]
        assert drawn["output"] == [height // 2, width // 2]
        expect(page.locator("#picture-note")).to_contain_text(f"{height} × {width} pixels, used pixel for pixel")
        expect(page.locator("#picture-sample")).to_have_value(name)
        expect(page.locator("#picture-error")).to_have_text("")


def test_an_uploaded_png_is_pooled_as_poolgrad_pools_it_in_each_channel(picture):
    page = picture.page
    picture.set_hash("#view=picture&k=3&s=2&p=1&psel=1,2")
    settle(page)
    upload(page, png(KNOWN))
    assert sides(page) == {"input": [6, 7], "output": [3, 4]}
    expect(page.locator("#picture-note")).to_contain_text("known.png: 6 × 7 pixels, used pixel for pixel")
    for channel in ("rgb", "grey", "r", "g", "b"):
        page.select_option("#picture-channel", channel)
        settle(page)
        planes = picture_planes(KNOWN_RGBA, channel)
        out, indices = poolgrad.max_pool2d(planes, 3, 2, 1, return_indices=True)
        # The input canvas holds the channel's values exactly (one plane: grey or tinted).
        drawn = np.array(page.evaluate("""(() => { const c = document.querySelector('canvas[data-picture="input"]');
            return [...c.getContext('2d').getImageData(0, 0, c.width, c.height).data]; })()""")).reshape(6, 7, 4)
        if channel == "rgb":
            assert np.array_equal(drawn[..., :3].transpose(2, 0, 1), planes)
        else:
            assert np.array_equal(drawn[..., {"r": 0, "g": 1, "b": 2}.get(channel, 0)], planes[0])
        # The zoom: the window of output (1, 2) with a margin, in the first channel shown.
        cells = zoom_input(page)
        assert {(r, c) for r, c, _, _ in cells} == {(r, c) for r in range(0, 5) for c in range(2, 7)}
        for r, c, text, _ in cells:
            assert text == str(planes[0, r, c])
        argmax = [(r, c) for r, c, _, marked in cells if marked]
        assert argmax == [divmod(int(indices[0, 1, 2]), 7)]
        expect(page.locator('td[data-grid="zoom-output"]')).to_have_text(str(out[0, 1, 2]))
        expect(page.locator("#picture-explanation")).to_contain_text(
            f"Output (1,2) = {out[0, 1, 2]} is the maximum of the window rows 1–3, cols 3–5")


def test_average_pooling_shows_its_decimals_and_repeat_stacks_the_stages(picture):
    page = picture.page
    picture.set_hash("#view=picture&mode=avg&k=2&s=1&pch=g&psel=0,0")
    settle(page)
    upload(page, png(KNOWN))
    planes = picture_planes(KNOWN_RGBA, "g")
    mean = poolgrad.avg_pool2d(planes, 2, 1)[0, 0, 0]
    assert mean != int(mean)
    expect(page.locator('td[data-grid="zoom-output"]')).to_have_text(number_text(mean))
    expect(page.locator("#picture-explanation")).to_contain_text(f"is the mean of the window rows 0–1, cols 0–1")
    page.select_option("#picture-repeat", "3")
    settle(page)
    stages = pool_picture(planes, 2, 1, mode="avg", repeat=3)["stages"]
    assert sides(page) == {"input": [6, 7], "stage-1": [5, 6], "stage-2": [4, 5], "output": [3, 4]}
    # The zoom is on the last stage: its window lies on stage 2's output.
    expect(page.locator('td[data-grid="zoom-output"]')).to_have_text(number_text(stages[2][0, 0, 0]))
    expect(page.locator('td[data-grid="zoom-input"][data-row="0"][data-col="0"]')).to_have_text(number_text(stages[1][0, 0, 0]))
    assert "prep=3" in picture.hash()


def test_gradient_on_draws_the_routed_ones_and_says_what_share_got_some(picture):
    page = picture.page
    picture.set_hash("#view=picture&k=2&grad=1&pch=r")
    settle(page)
    upload(page, png(KNOWN))
    planes = picture_planes(KNOWN_RGBA, "r")
    grad = pool_picture(planes, 2, gradient=True)["grad_input"]
    share = gradient_share(grad)
    assert sides(page)["grad-input"] == [6, 7]
    expect(page.locator("#picture-share")).to_contain_text(f"{share['reached']} of the input's {share['pixels']} pixels")
    lit = np.array(page.evaluate("""(() => { const c = document.querySelector('canvas[data-picture="grad-input"]');
        return [...c.getContext('2d').getImageData(0, 0, c.width, c.height).data]; })()""")).reshape(6, 7, 4)[..., 0]
    assert np.array_equal(lit > 0, grad[0] > 0)


def test_a_picture_larger_than_the_size_is_scaled_keeping_its_aspect(picture):
    page = picture.page
    picture.set_hash("#view=picture&psize=64")
    settle(page)
    wide = (np.indices((150, 300)).sum(axis=0) % 256).astype(np.uint8)
    upload(page, png(wide), name="wide.png")
    assert sides(page)["input"] == [32, 64]
    expect(page.locator("#picture-note")).to_contain_text("wide.png: scaled down from 150 × 300 to 32 × 64 pixels")
    page.select_option("#picture-size", "256")
    settle(page)
    assert sides(page)["input"] == [128, 256]


def animated_gif():
    frame = (b"\x21\xf9\x04\x00\x0a\x00\x00\x00" + b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00"
             + b"\x02\x02\x44\x01\x00")
    return (b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + b"\x00\x00\x00\xff\xff\xff"
            + b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00" + frame + frame + b"\x3b")


def huge_png(height, width):
    """A grey PNG that claims height x width: its rows all zeros, so the file stays small."""
    raw = zlib.compress(b"\x00" * ((width + 1) * height), 9)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


REFUSED = [
    ("notes.txt", "text/plain", b"just some words, not pixels", "This file is not a picture the page can read"),
    ("cut.png", "image/png", png(KNOWN)[:60], "The PNG file could not be decoded: it is damaged or cut short."),
    ("cut.jpg", "image/jpeg", jpeg(np.kron(KNOWN, np.ones((8, 8, 1), np.uint8)))[:400],
     "The JPEG file could not be decoded: it is damaged or cut short."),
    ("empty.png", "image/png", b"", "The file is empty: it holds no picture."),
    ("empty.jpg", "image/jpeg", b"", "The file is empty: it holds no picture."),
    ("drawing.svg", "image/svg+xml", b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><script>alert(1)</script></svg>',
     "SVG is a drawing made of shapes, not pixels"),
    ("huge.png", "image/png", huge_png(20000, 20000), "The picture is 20000 × 20000 pixels (400 megapixels): the picture view opens pictures up to 100 megapixels"),
]


@pytest.mark.parametrize("name, mime, data, message", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_bad_file_is_refused_in_one_sentence_and_the_last_good_picture_stays(picture, name, mime, data, message):
    page = picture.page
    upload(page, png(KNOWN))
    page.set_input_files("#picture-file", files=[{"name": name, "mimeType": mime, "buffer": data}])
    settle(page)
    expect(page.locator("#picture-error")).to_contain_text(message)
    expect(page.locator("#picture-error")).to_have_attribute("role", "alert")
    assert sides(page)["input"] == [6, 7]
    expect(page.locator("#picture-note")).to_contain_text("known.png")
    # The page still answers.
    page.select_option("#picture-channel", "grey")
    settle(page)
    assert sides(page)["output"] == [3, 3]


def test_an_animated_gif_shows_its_first_frame_and_says_so(picture):
    page = picture.page
    picture.set_hash("#view=picture&k=1")
    settle(page)
    upload(page, animated_gif(), name="blink.gif", mime="image/gif")
    assert sides(page)["input"] == [1, 1]
    expect(page.locator("#picture-note")).to_contain_text("It is an animated GIF: its first frame is shown.")


def test_a_16_bit_png_is_read_as_8_bits_and_said(picture):
    page = picture.page
    upload(page, png((np.arange(16).reshape(4, 4) * 4096).astype(np.uint16), depth=16), name="deep.png")
    assert sides(page)["input"] == [4, 4]
    expect(page.locator("#picture-note")).to_contain_text("It is a 16-bit PNG: the browser reduces its values to 8 bits")


def test_a_cmyk_jpeg_is_converted_to_rgb_by_the_browser_and_said(picture):
    page = picture.page
    picture.set_hash("#view=picture&k=1&psel=12,12")
    settle(page)
    data, rgb = cmyk_jpeg()
    upload(page, data, name="print.jpg", mime="image/jpeg")
    expect(page.locator("#picture-error")).to_have_text("")
    expect(page.locator("#picture-note")).to_contain_text("It is a CMYK JPEG: the browser converted its colours to RGB.")
    assert sides(page) == {"input": [16, 16], "output": [16, 16]}
    drawn = np.array(page.evaluate("""(() => { const c = document.querySelector('canvas[data-picture="input"]');
        return [...c.getContext('2d').getImageData(0, 0, c.width, c.height).data]; })()""")).reshape(16, 16, 4)
    assert np.array_equal(drawn[..., :3], rgb)
    # The zoom around the pixel (12, 12), inside the block with black ink: 97, 112, 82.
    for channel, index in (("r", 0), ("g", 1), ("b", 2)):
        page.select_option("#picture-channel", channel)
        settle(page)
        expect(page.locator('td[data-grid="zoom-output"]')).to_have_text(str(rgb[12, 12, index]))
        assert {(r, c): text for r, c, text, _ in zoom_input(page)} == {
            (r, c): str(rgb[r, c, index]) for r in range(11, 14) for c in range(11, 14)}


def test_transparency_is_laid_over_white_and_said(picture):
    page = picture.page
    picture.set_hash("#view=picture&k=1&pch=r&psel=0,0")
    settle(page)
    pixels = np.zeros((2, 2, 4), np.uint8)
    pixels[..., 3] = 255
    pixels[0, 0] = [0, 0, 0, 0]
    upload(page, png(pixels), name="holes.png")
    expect(page.locator("#picture-note")).to_contain_text("Its transparent parts are laid over white before pooling.")
    expect(page.locator('td[data-grid="zoom-output"]')).to_have_text("255")


def test_a_50_megapixel_picture_is_scaled_down_without_freezing_the_page(picture):
    page = picture.page
    picture.set_hash("#view=picture&psize=32")
    settle(page)
    upload(page, huge_png(5000, 10000), name="big.png")
    expect(page.locator("#picture-error")).to_have_text("")
    assert sides(page)["input"] == [16, 32]
    expect(page.locator("#picture-note")).to_contain_text("scaled down from 5000 × 10000 to 16 × 32 pixels")


def test_tapping_and_arrow_keys_select_an_output_pixel_and_outline_its_window(picture):
    page = picture.page
    picture.set_hash("#view=picture&pic=text&psize=64&k=2")
    settle(page)
    output = page.locator('canvas[data-picture="output"]')
    box = output.bounding_box()
    height, width = sides(page)["output"]
    output.click(position={"x": box["width"] * 4.5 / width, "y": box["height"] * 3.5 / height})
    settle(page)
    assert "psel=3,4" in picture.hash()
    expect(page.locator("#picture-explanation")).to_contain_text("Output (3,4)")
    expect(page.locator('canvas[data-picture="input"] ~ .picture-outline')).to_be_visible()
    output.press("ArrowRight")
    settle(page)
    assert "psel=3,5" in picture.hash()
    expect(page.locator('td[data-grid="zoom-output"]')).to_have_attribute("data-row", "3")
    expect(page.locator('td[data-grid="zoom-output"]')).to_have_attribute("data-col", "5")


def test_the_pool_view_is_unchanged_and_switching_views_keeps_its_link(picture):
    page = picture.page
    picture.set_hash("#k=3&s=1")
    picture.wait_settled()
    expect(page.locator("#picture")).to_be_hidden()
    expect(page.locator("#stage")).to_be_visible()
    page.select_option("#view", "picture")
    settle(page)
    assert picture.hash().startswith("#k=3&s=1&view=picture")
    expect(page.locator("#stage")).to_be_hidden()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_in_the_picture_view(picture, scheme):
    page = picture.page
    page.emulate_media(color_scheme=scheme)
    picture.set_hash("#view=picture&pic=chelsea&grad=1&psel=5,5")
    settle(page)
    assert axe_violations(page) == [], "selected, gradient on"
    page.set_input_files("#picture-file", files=[{"name": "x.txt", "mimeType": "text/plain", "buffer": b"words"}])
    settle(page)
    assert axe_violations(page) == [], "a refused file"


# -- the element -------------------------------------------------------------------------

def element_host(page, site, attributes, routes=()):
    html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>a picture</title>
<script type="module" src="pool-grad.js"></script></head>
<body><main><h1>A picture</h1><pool-grad id="pic" aria-label="the picture" {attributes}></pool-grad></main></body></html>"""
    page.route(site.url + "picture-host.html", lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    for pattern, handler in routes:
        page.route(pattern, handler)
    page.goto(site.url + "picture-host.html")
    inside = page.locator("pool-grad#pic")
    settle(inside)
    return inside


def test_the_element_shows_a_sample_in_the_picture_view(page, site):
    inside = element_host(page, site, 'view="picture" picture="text" picture-size="64" picture-channel="grey" kernel="2"')
    assert inside.evaluate("""(el) => [...el.shadowRoot.querySelectorAll('canvas[data-picture]')]
        .map((c) => [c.dataset.picture, c.height, c.width])""") == [["input", 25, 64], ["output", 12, 32]]
    expect(inside.locator("#picture-sample")).to_have_value("text")


def test_the_element_opens_its_src_and_says_why_a_src_was_refused(page, site, dist):
    picture = png(KNOWN)
    routes = [
        (site.url + "mine.png", lambda route: route.fulfill(status=200, content_type="image/png", body=picture)),
        (site.url + "gone.png", lambda route: route.fulfill(status=404, body="")),
    ]
    # Another origin (localhost, not 127.0.0.1) serving a real PNG without a CORS header.
    sample = next(dist.glob("app/*/picture/samples/text.png")).relative_to(dist).as_posix()
    elsewhere = site.url.replace("127.0.0.1", "localhost") + sample
    # This one other host is asked on purpose: let it through the context's guard (a page's
    # route goes first), to the real server, which sends no CORS header.
    routes.append((elsewhere, lambda route: route.continue_()))
    inside = element_host(page, site, 'view="picture" kernel="2" src="mine.png"', routes)
    expect(inside.locator('canvas[data-picture="input"]')).to_have_attribute("width", "7")
    inside.evaluate("(el) => el.setAttribute('src', 'gone.png')")
    settle(inside)
    expect(inside.locator("#picture-error")).to_contain_text("gone.png could not be fetched: the server answered HTTP 404.")
    inside.evaluate("(el, url) => el.setAttribute('src', url)", elsewhere)
    settle(inside)
    expect(inside.locator("#picture-error")).to_contain_text("does not let other sites read it (no CORS header)")
    # The last good picture stays.
    expect(inside.locator('canvas[data-picture="input"]')).to_have_attribute("width", "7")


def test_the_code_panel_and_save_picture(picture):
    page = picture.page
    picture.set_hash("#view=picture&k=2&grad=1&prep=2&pch=r")
    settle(page)
    upload(page, png(KNOWN), name="known.png")
    page.click("#picture-code summary")
    expect(page.locator("#picture-code-torch")).to_contain_text('Image.open("known.png")')
    expect(page.locator("#picture-code-poolgrad")).to_contain_text("for stage in range(2)]")
    with page.expect_download() as download:
        page.click("#picture-save")
    assert download.value.suggested_filename == "pooled-picture.png"
