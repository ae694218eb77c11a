"""The Code panel (#code): the PyTorch and poolgrad snippets run natively and rebuild the
very grids the page shows, bit for bit; the copy buttons put the snippets, the link and
the embed code on the clipboard (and say so when the browser refuses); "Save picture"
downloads the view as an SVG file, also from an embedded widget with the network off.

The poolgrad snippet is the torch-free twin of the PyTorch one: both are compared with the
page's grids and with the page's own Python (its worker's trace), and the PyTorch run
needs torch (installed by CI, `pip install torch`)."""

import re
import xml.etree.ElementTree as ElementTree

import pytest
from playwright.sync_api import expect

from lesson_fixture import FIXTURE
from snippet_runner import as_array, assert_matches_trace, run_snippet
from widget_driver import Widget, axe_violations, shown, wait_settled


SVG = "{http://www.w3.org/2000/svg}"

# Views that exercise every keyword the snippets write, and numbers Python must read back
# exactly: NaN (one per window, where PyTorch and NumPy agree on the index), infinities,
# -0, decimals that are not binary fractions, a custom upstream gradient.
VIEWS = {
    "max, stride 2, default gradient": f"#k=2&s=2&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}",
    "max, padding, overlap, custom gradient with NaN and -0":
        f"#k=3&s=1&p=1&d=1&mode=max&grad=1&sel=1,1&x={FIXTURE}&g=1,2,3,4;0.1,-0,NaN,2.5;-1,1e-7,3,4;5,6,7,-Infinity",
    "max, dilation, ceil_mode, pairs, NaN and -0 in the input":
        "#k=2,3&s=2,1&p=1&d=2,1&mode=max&ceil=1&grad=1&x=1,-0,0.3,7,2;NaN,4,-2,0.1,8;3,Infinity,-1,5,-3;9,0.7,6,-Infinity,1;2,2,2,2,2",
    "max, no gradient": "#k=2&s=1&p=0&d=1&mode=max&grad=0&x=3,3,1;2,3,3;0,1,2",
    "average, padding, ceil_mode, count_include_pad=False":
        f"#k=3&s=2&p=1&d=1&mode=avg&ceil=1&cip=0&grad=1&sel=0,0&x={FIXTURE}&g=1,-2,0.5;-0,3,0.25;1e-7,2,NaN",
    "average, pair kernel, count_include_pad": "#k=3,2&s=2,1&p=1,0&d=1&mode=avg&grad=1&x=12,10,9,6;11,8,13,5;2,14,15,0;4,3,7,1;0.1,0.2,-0.3,NaN",
    "average, no gradient": "#k=2&s=2&p=0&d=1&mode=avg&grad=0&x=12,10,9,6;11,8,13,5;2,14,15,0;4,3,7,1",
    "global average pooling": f"#k=2&s=2&p=0&d=1&mode=adaptive_avg&o=1&grad=1&x={FIXTURE}",
    "adaptive max 5 into 3, unpooling, custom gradient":
        "#k=2&s=2&p=0&d=1&mode=adaptive_max&o=3&grad=1&unpool=1&x=1,2,3,4,5;6,7,8,9,10;11,12,13,14,15;16,17,18,19,20;21,22,23,24,25&g=1,2,3;4,5,6;7,8,-0",
    "max, overlap, unpooling": f"#k=3&s=1&p=0&d=1&mode=max&grad=1&unpool=1&x={FIXTURE}",
    "LP pooling, p = 2, ceil_mode": f"#k=3&s=2&p=0&d=1&mode=lp&n=2&ceil=1&grad=1&x={FIXTURE}",
}


@pytest.fixture
def code_widget(shared_page, booted):
    """The module's booted widget, on a page allowed to read and write the clipboard."""
    shared_page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    return booted


def open_view(widget, hash_):
    widget.open(hash_)
    widget.page.evaluate("document.getElementById('code').open = true")
    return widget


def page_trace(page, published):
    """The page's own Python answer for the view the hash holds (its worker's trace())."""
    answer = page.evaluate(
        """async (statePath) => {
            const state = await import(new URL(statePath, location.href).href);
            return window.poolgradWidget.trace(state.traceRequest(state.parseHash(location.hash)));
        }""",
        "/" + published("state.js"),
    )
    assert "trace" in answer, answer
    return answer["trace"]


def check_snippet(widget, namespace, trace, grad):
    """The snippet's out, indices, unpooled and grad_input against the grids and the trace."""
    assert [[shown(v) for v in row] for row in as_array(namespace["out"]).tolist()] == widget.values("output")
    if "unpooled" in namespace:
        assert [[shown(v) for v in row] for row in as_array(namespace["unpooled"]).tolist()] == widget.values("unpooled")
    if grad:
        assert [[shown(v) for v in row] for row in as_array(namespace["grad_input"]).tolist()] == widget.values("grad-input")
    assert_matches_trace(namespace, trace, grad)


@pytest.mark.parametrize("hash_", VIEWS.values(), ids=VIEWS.keys())
def test_poolgrad_snippet_rebuilds_the_grids(code_widget, published, hash_):
    open_view(code_widget, hash_)
    code = code_widget.page.locator("#code-poolgrad").text_content()
    trace = page_trace(code_widget.page, published)
    check_snippet(code_widget, run_snippet(code), trace, grad="grad=1" in hash_)


@pytest.mark.torch
@pytest.mark.parametrize("hash_", VIEWS.values(), ids=VIEWS.keys())
def test_pytorch_snippet_rebuilds_the_grids(code_widget, published, hash_):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    open_view(code_widget, hash_)
    code = code_widget.page.locator("#code-torch").text_content()
    trace = page_trace(code_widget.page, published)
    check_snippet(code_widget, run_snippet(code), trace, grad="grad=1" in hash_)


def test_the_code_follows_the_controls(code_widget):
    page = open_view(code_widget, f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}").page
    expect(page.locator("#code-poolgrad")).to_contain_text("kernel_size=2, stride=2, padding=0, dilation=1")
    page.fill("#kernel", "3")
    page.fill("#stride", "1")
    page.locator("#stride").press("Enter")
    code_widget.wait_settled()
    expect(page.locator("#code-poolgrad")).to_contain_text("kernel_size=3, stride=1, padding=0, dilation=1")
    page.select_option("#mode", "avg")
    code_widget.wait_settled()
    poolgrad_code = page.locator("#code-poolgrad").text_content()
    assert "poolgrad.avg_pool2d(" in poolgrad_code and "count_include_pad=True" in poolgrad_code
    assert "dilation" not in poolgrad_code and "grad_input" not in poolgrad_code
    page.check("#gradient")
    code_widget.wait_settled()
    expect(page.locator("#code-torch")).to_contain_text("grad_input = x.grad")
    expect(page.locator("#code-link")).to_have_text(page.url)


def clipboard(page):
    return page.evaluate("navigator.clipboard.readText()")


def test_copy_buttons_put_the_code_the_link_and_the_embed_code_on_the_clipboard(code_widget, site):
    hash_ = f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}"
    page = open_view(code_widget, hash_).page
    message = page.locator("#code-message")
    for button, source, what in (("#copy-torch", "#code-torch", "PyTorch code"), ("#copy-poolgrad", "#code-poolgrad", "poolgrad code")):
        page.click(button)
        expect(message).to_have_text(f"Copied the {what}.")
        assert clipboard(page) == page.locator(source).text_content()
        assert clipboard(page).startswith("# poolgrad widget, in ")
    page.click("#copy-link")
    expect(message).to_have_text("Copied the link.")
    assert clipboard(page) == f"{site.url}index.html{hash_}" == page.url
    shown = page.locator("#code-embed").text_content()
    page.click("#copy-embed")
    expect(message).to_have_text("Copied the embed code.")
    copied = clipboard(page)
    assert copied == shown
    name = re.search(r'<iframe id="poolgrad-([0-9a-f]{8})"', copied).group(1)
    assert copied.startswith(
        f'<iframe id="poolgrad-{name}" data-poolgrad src="{site.url}index.html?embed=1&amp;id={name}'
        f'{hash_.replace("&", "&amp;")}"\n'
        '        title="poolgrad: max pooling, 3 × 3 window, stride 1, gradient routing"\n'
        '        style="width: 100%; height: 900px; border: 0" loading="lazy"\n'
        '        allow="clipboard-write"></iframe>\n<!-- poolgrad: sizes every poolgrad frame')
    assert copied.endswith("})();</script>")
    # The next paste is another widget: the panel now shows another name.
    expect(page.locator("#code-embed")).not_to_have_text(copied)
    assert f"poolgrad-{name}" not in page.locator("#code-embed").text_content()


def test_each_view_has_an_embed_code_with_an_id_of_its_own(code_widget):
    """Issue 27, 6: the id changed only on Copy, so two views' codes selected by hand gave
    two frames with one id."""
    page = open_view(code_widget, f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}").page
    embed_id = r'<iframe id="(poolgrad-[0-9a-f]{8})" data-poolgrad src="[^"]*(?:\?|&amp;)id=([0-9a-f]{8})#'

    def ids():
        frame_id, query_id = re.search(embed_id, page.locator("#code-embed").text_content()).groups()
        assert frame_id == f"poolgrad-{query_id}"
        return frame_id

    seen = [ids()]
    for kernel in ["3", "2"]:
        page.fill("#kernel", kernel)
        code_widget.wait_settled()
        seen.append(ids())
    assert len(set(seen)) == 3
    # Two views' codes pasted on one page make valid HTML: no id twice.
    codes = [page.locator("#code-embed").text_content()]
    page.fill("#kernel", "3")
    code_widget.wait_settled()
    codes.append(page.locator("#code-embed").text_content())
    frame_ids = re.findall(r'\bid="([^"]+)"', "\n".join(codes))
    assert len(frame_ids) == len(set(frame_ids)) == 2


def test_a_refused_link_is_not_what_the_copy_buttons_copy(code_widget, site):
    """Issue 19, 7: after a link the page refused, the view shown is the last valid one (the
    embed code's title describes it): the link and the embed code are that view's."""
    hash_ = f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}"
    page = open_view(code_widget, hash_).page
    code_widget.set_hash("#k=999999")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    assert code_widget.hash() == "#k=999999"  # the address bar keeps the link to be fixed
    message = page.locator("#code-message")
    page.click("#copy-link")
    expect(message).to_have_text("Copied the link.")
    assert clipboard(page) == f"{site.url}index.html{hash_}" == page.locator("#code-link").text_content()
    page.click("#copy-embed")
    expect(message).to_have_text("Copied the embed code.")
    embed = clipboard(page)
    assert re.search(f'src="{re.escape(site.url)}index.html\\?embed=1&amp;id=[0-9a-f]+{re.escape(hash_.replace("&", "&amp;"))}"', embed)
    assert 'title="poolgrad: max pooling, 3 × 3 window, stride 1, gradient routing"' in embed
    assert "999999" not in embed


def test_embed_code_keeps_lesson_0_and_opens_the_same_view(page, site):
    widget = Widget(page, site).open(f"#k=2&s=2&p=0&d=1&mode=avg&grad=0&x={FIXTURE}", path="index.html?embed=1&lesson=0")
    embed = page.locator("#code-embed").text_content()
    assert re.search(re.escape(f'src="{site.url}index.html?embed=1&amp;lesson=0&amp;id=') + r"[0-9a-f]{8}"
                     + re.escape("#k=2&amp;s=2&amp;p=0&amp;d=1&amp;mode=avg&amp;grad=0&amp;x="), embed)
    # The snippet is real HTML: in a lesson page of the same site, its frame opens this view.
    lesson_page = f"<!doctype html><title>A lesson</title><h1>Pooling</h1>{embed}"
    page.route(site.url + "a-lesson.html", lambda route: route.fulfill(body=lesson_page, content_type="text/html"))
    page.goto(site.url + "a-lesson.html")
    frame = page.frame_locator("iframe")
    wait_settled(frame)
    assert frame.locator('[data-grid="output"][data-row="0"][data-col="0"]').text_content() == "2.5"
    assert re.fullmatch(r"\?embed=1&lesson=0&id=[0-9a-f]{8}", widget.page.frames[1].evaluate("location.search"))


def test_a_refused_clipboard_selects_the_text_and_says_so(code_widget):
    page = open_view(code_widget, f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}").page
    page.evaluate("() => { navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError')); }")
    page.click("#copy-poolgrad")
    expect(page.locator("#code-message")).to_contain_text("The browser refused to copy to the clipboard: the poolgrad code is selected")
    # (The selection's text leaves out the block's last line break.)
    assert page.evaluate("getSelection().toString()") == page.locator("#code-poolgrad").text_content().rstrip("\n")
    # No clipboard at all (plain http from another machine): the same fallback.
    page.evaluate("() => { Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true }); }")
    page.click("#copy-link")
    expect(page.locator("#code-message")).to_contain_text("cannot reach the clipboard here: the link is selected")
    assert page.evaluate("getSelection().toString()") == page.url
    page.reload()
    code_widget.wait_settled()


RECORD_BLOB_TYPES = """() => {
    window.savedBlobTypes = [];
    const create = URL.createObjectURL;
    URL.createObjectURL = (blob) => { window.savedBlobTypes.push(blob.type); return create(blob); };
}"""


def svg_texts(root):
    return [node.text for node in root.iter(f"{SVG}text")]


def test_save_picture_downloads_the_view_as_svg(code_widget):
    page = open_view(code_widget, f"#k=3&s=1&p=1&d=1&mode=max&grad=1&sel=1,1&x={FIXTURE}").page
    page.evaluate(RECORD_BLOB_TYPES)
    with page.expect_download() as saving:
        page.click("#save-picture")
    download = saving.value
    assert download.suggested_filename == "poolgrad-max-k3-s1-p1-grad.svg"
    assert page.evaluate("window.savedBlobTypes") == ["image/svg+xml"]
    expect(page.locator("#code-message")).to_have_text("Saved the picture as poolgrad-max-k3-s1-p1-grad.svg.")
    root = ElementTree.parse(download.path()).getroot()  # well-formed XML, or this raises
    assert root.tag == f"{SVG}svg"
    assert root.find(f"{SVG}title").text == "poolgrad: max pooling, 3 × 3 window, stride 1, padding 1, gradient routing"
    assert "taken from input cell (1,2)" in root.find(f"{SVG}desc").text
    texts = svg_texts(root)
    for caption in ("Input 4 × 4", "Output 4 × 4", "Upstream gradient", "Input gradient"):
        assert caption in texts
    # Every value of every grid, as the page shows it.
    for grid in ("input", "output", "grad-output", "grad-input"):
        for value in {v for row in code_widget.values(grid) for v in row}:
            assert value in texts, (grid, value)
    # The marks: argmax, padding, shared ×n (the 8 at (1,2) is the maximum of 7 outputs,
    # the 9 at (3,1) of 6), the selected output, and the legend that names them.
    assert texts.count("max") == 2  # the argmax's tag and the legend's
    assert texts.count("-∞") == 20 + 1  # the padding ring and the legend's swatch
    assert {"×7", "×6", "×2"} <= set(texts)
    for line in ("the selected output (1,1)", "its maximum (argmax)", "chosen by several outputs (×n)", "padding (never chosen)"):
        assert line in texts


def test_save_picture_works_in_an_embedded_widget_offline(page, site, context):
    page.goto(site.url + "embed-demo.html")
    frame = page.frame_locator("iframe.widget-frame").first
    wait_settled(frame)
    context.set_offline(True)
    frame.locator("#code > summary").click()
    with page.expect_download() as saving:
        frame.locator("#save-picture").click()
    download = saving.value
    assert download.suggested_filename == "poolgrad-avg-k2-s2-grad.svg"
    root = ElementTree.parse(download.path()).getroot()
    texts = svg_texts(root)
    assert {"10.25", "8.25", "5.75", "0.25"} <= set(texts)
    assert "max" not in texts  # average pooling has no argmax
    assert "Output (0,0) = 10.25 is the mean of the window" in root.find(f"{SVG}desc").text


def test_axe_finds_nothing_in_the_open_code_panel(code_widget):
    page = open_view(code_widget, f"#k=3&s=1&p=1&d=1&mode=max&grad=1&sel=1,1&x={FIXTURE}").page
    page.click("#copy-link")
    expect(page.locator("#code-message")).to_have_text("Copied the link.")
    assert axe_violations(page) == []
