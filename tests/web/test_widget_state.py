"""The URL hash as the widget's whole state, the controls that change it, and bad input."""

import pytest
from playwright.sync_api import expect

from lesson_fixture import FIXTURE


LINK_EXAMPLE = f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}"


def test_hash_round_trip_and_canonical_form(widget):
    page = widget.page
    widget.open()
    assert widget.hash() == f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}"
    page.fill("#kernel", "3")
    page.press("#kernel", "Enter")  # Enter in a field submits nothing and reloads nothing
    page.fill("#stride", "1")
    page.check("#gradient")
    widget.wait_settled()
    widget.cell("output", 0, 1).click()
    assert widget.hash() == LINK_EXAMPLE
    page.reload()
    widget.wait_settled()
    assert widget.hash() == LINK_EXAMPLE
    expect(widget.cell("output", 0, 1)).to_have_attribute("aria-selected", "true")
    assert widget.marked("data-argmax") == [[1, 2]]
    assert widget.values("output") == [["8", "8"], ["9", "9"]]
    assert page.locator("#kernel").input_value() == "3" and page.locator("#gradient").is_checked()
    # A non-canonical link is rewritten: pairs of equal values collapse, defaults are
    # spelled out, a missing stride means stride = kernel, flags are written 0/1.
    widget.set_hash(f"#x={FIXTURE}&k=2,2&mode=avg&cip=0&ceil=1")
    widget.wait_settled()
    assert widget.hash() == f"#k=2&s=2&p=0&d=1&mode=avg&ceil=1&cip=0&grad=0&x={FIXTURE}"
    # A pair stays a pair, and sizes the output per axis.
    widget.set_hash(f"#k=3,2&s=1&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    widget.wait_settled()
    assert widget.hash() == f"#k=3,2&s=1&p=0&d=1&mode=max&grad=0&x={FIXTURE}"
    assert widget.values("output") == [["4", "8", "8"], ["9", "9", "8"]]
    assert page.locator("#kernel").input_value() == "3,2"
    # Non-finite values survive the round trip; a selection outside the output is dropped.
    widget.set_hash("#k=2&s=1&p=0&d=1&mode=max&grad=0&sel=5,5&x=NaN,1,2;3,Infinity,-Infinity")
    widget.wait_settled()
    assert widget.values("input") == [["NaN", "1", "2"], ["3", "∞", "-∞"]]
    assert widget.values("output") == [["NaN", "∞"]]
    assert widget.hash() == "#k=2&s=1&p=0&d=1&mode=max&grad=0&x=NaN,1,2;3,Infinity,-Infinity"


def test_presets_resize_edit_and_paste(booted):
    widget = booted
    page = widget.page
    widget.open()
    assert [o for o in page.locator("#preset option").evaluate_all("options => options.map(o => o.value)")] == [
        "fixture", "distinct", "ties", "negatives", "global_avg", "adaptive_overlap", "random",
    ]
    page.select_option("#preset", "distinct")
    widget.wait_settled()
    assert widget.values("output") == [["6", "8"], ["14", "16"]]
    page.select_option("#preset", "ties")
    widget.cell("output", 0, 0).click()
    widget.wait_settled()
    assert widget.marked("data-argmax") == [[0, 0]]  # three 3s tie; the first in row-major order wins
    page.select_option("#preset", "negatives")
    widget.wait_settled()
    assert widget.values("output") == [["-1", "-1"], ["-3", "-3"]]
    page.select_option("#preset", "random")
    widget.wait_settled()
    values = [int(v) for row in widget.values("input") for v in row]
    assert len(values) == 16 and all(-9 <= v <= 9 for v in values)
    page.select_option("#preset", "fixture")
    widget.wait_settled()
    # Edit a cell in place: click, type, Enter.
    widget.cell("input", 0, 0).click()
    editor = page.locator("[data-editor=input]")
    editor.fill("20")
    editor.press("Enter")
    widget.wait_settled()
    assert widget.values("output")[0][0] == "20"
    assert "x=20,2,5,6;" in widget.hash()
    assert page.locator("#preset").input_value() == ""  # no preset shows the learner's own input
    expect(widget.cell("input", 0, 0)).to_be_focused()
    # Typing a digit on a focused cell starts editing it; a bad value is explained.
    widget.cell("input", 3, 3).focus()
    page.keyboard.type("x")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_attribute("data-state", "ready")
    page.keyboard.press("7")
    page.keyboard.type("a")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    expect(page.locator("#status")).to_contain_text("is not a number")
    page.keyboard.press("Escape")
    expect(page.locator("#status")).to_have_attribute("data-state", "ready")
    # Resize: kept values stay, new cells are 0; the 16 x 16 cap is stated and enforced.
    expect(page.locator(".controls")).to_contain_text("up to 16 × 16")
    page.fill("#rows", "5")
    page.locator("#rows").dispatch_event("change")
    widget.wait_settled()
    assert len(widget.values("input")) == 5 and widget.values("input")[4] == ["0", "0", "0", "0"]
    page.fill("#cols", "17")
    page.locator("#cols").dispatch_event("change")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    expect(page.locator("#status")).to_contain_text("from 1 to 16")
    page.fill("#cols", "6")
    page.locator("#cols").dispatch_event("change")
    widget.wait_settled()
    assert [len(row) for row in widget.values("input")] == [6] * 5
    # Paste a matrix: rows on lines, spaces or commas between numbers.
    page.locator(".paste summary").click()
    page.fill("#paste", "1 5 2\n3, 4, 1\n")
    page.click("#paste-apply")
    widget.wait_settled()
    assert widget.values("input") == [["1", "5", "2"], ["3", "4", "1"]]
    assert "x=1,5,2;3,4,1" in widget.hash()
    page.fill("#paste", "1 2\n3")
    page.click("#paste-apply")
    expect(page.locator("#paste-message")).to_contain_text("Row 1 has 1 numbers but row 0 has 2")
    assert widget.values("input") == [["1", "5", "2"], ["3", "4", "1"]]


def test_the_paste_box_refuses_what_it_cannot_read_exactly_and_reads_python_printouts(booted):
    """Issue 19, 6: decimal commas, thousands separators, a 3-D input and an underflow are
    refused with what to write instead (the grid keeps its values); NumPy's and PyTorch's
    printouts, nan and inf load; a -0 shows as -0."""
    widget = booted.open()
    page = widget.page
    page.evaluate("document.querySelector('.paste').open = true")  # an earlier test may have opened it
    message = page.locator("#paste-message")
    before = widget.values("input")
    for text, refusal in (
        ("1,5 2,5\n3,5 4,5", 'Row 0: the comma in "1,5" could be a decimal comma (1,5 for 1.5) or a thousands separator'),
        ("1,000 2,500", 'the comma in "1,000" could be a decimal comma'),
        ("2,5 -0,75", "write decimals with a point (1.5), thousands with no separator (1000)"),
        ("[[[1,2],[3,4]],[[5,6],[7,8]]]", "The pasted matrix has 3 dimensions"),
        ("1e-400 1", '"1e-400" is too small for a double (it would become 0'),
        ("1e400 1", '"1e400" is too large'),
    ):
        page.fill("#paste", text)
        page.click("#paste-apply")
        expect(message).to_contain_text(refusal)
        expect(page.locator("#status")).to_have_attribute("data-state", "error")
        assert widget.values("input") == before, text
    for text, shown in (
        ("array([[1, 2], [3, 4]], dtype=int8)", [["1", "2"], ["3", "4"]]),
        ("tensor([[4., 8.],\n        [9., -2.]], dtype=torch.float64)", [["4", "8"], ["9", "-2"]]),
        ("nan inf\n-inf -0", [["NaN", "∞"], ["-∞", "-0"]]),
    ):
        page.fill("#paste", text)
        page.click("#paste-apply")
        widget.wait_settled()
        expect(message).to_have_text("Loaded a 2 × 2 matrix.")
        assert widget.values("input") == shown, text
    assert widget.hash().endswith("x=NaN,Infinity;-Infinity,-0")


def test_gradient_editing_and_presets(booted):
    widget = booted
    page = widget.page
    widget.open("#k=2&s=1&p=0&d=1&mode=max&grad=1&x=1,5,2;3,4,1")
    assert widget.values("grad-output") == [["1", "1"]]
    assert widget.values("grad-input") == [["0", "2", "0"], ["0", "0", "0"]]
    widget.cell("grad-output", 0, 1).click()
    editor = page.locator("[data-editor=grad-output]")
    editor.fill("2")
    editor.press("Enter")
    widget.wait_settled()
    assert widget.values("grad-input") == [["0", "3", "0"], ["0", "0", "0"]]
    assert widget.hash().endswith("&g=1,2")
    expect(page.locator("#shared-sums")).to_contain_text("Cell (0,1) collects from outputs (0,0) and (0,1): 1 + 2 = 3")
    page.click("#grad-ones")
    widget.wait_settled()
    assert "g=" not in widget.hash()
    # A parameter change resets a custom gradient, whose shape may no longer fit.
    page.click("#grad-count")
    widget.wait_settled()
    page.fill("#kernel", "1")
    page.fill("#stride", "1")
    widget.wait_settled()
    assert "g=" not in widget.hash()
    assert widget.values("grad-output") == [["1", "1", "1"], ["1", "1", "1"]]


BAD_HASHES = [
    ("#x=<img src=x onerror=alert(1)>", "is not a number"),
    ("#k=abc", "kernel (k) must be a whole number"),
    ("#k=-1", "kernel (k) must be a whole number"),
    ("#k=99999", "between 1 and 16"),
    ("#s=0", "between 1 and 16"),
    ("#mode=min", "mode must be max, avg, adaptive_max, adaptive_avg or lp"),
    ("#mode=lp&n=__proto__", 'got "__proto__"'),
    ("#mode=lp&n=1e400", 'between -1000 and 1000; got "1e400"'),
    ("#x=1,2;3", "ragged"),
    ("#x=" + ";".join(["1"] * 17), "the limit is 16 x 16"),
    ("#grad=yes", "grad must be 0 or 1"),
    ("#sel=a,b", "sel must be row,col"),
    ("#foo=1", "unknown setting"),
    ("#d=2&mode=avg", "dilation applies to max pooling only"),
    (f"#k=2&p=2&x={FIXTURE}", "padding"),
    (f"#k=5&x={FIXTURE}", "output"),
    (f"#k=2&x={FIXTURE}&g=1,2,3", "grad_output"),
]


DEFAULT_VIEW = f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}"


@pytest.mark.parametrize("opened", ["#k=abc", "#k=2&s=2&p=0&d=1&mode=max&grad=0&x=1,2;3"])
def test_a_valid_link_clears_the_error_even_when_it_is_the_view_shown(widget, opened):
    """Issue 19, 5: opened on a bad link, the page shows the default view with the error;
    the link fixed to that very view (same state, no new trace) must clear the error."""
    page = widget.page
    widget.open(opened, wait=False)
    status = page.locator("#status")
    expect(status).to_have_attribute("data-state", "error")
    widget.set_hash(DEFAULT_VIEW)
    widget.wait_settled()
    expect(status).to_contain_text("Ready: max pooling, 2 × 2 window, stride 2.")
    assert widget.hash() == DEFAULT_VIEW
    # And once more on the booted page: a bad link, then the view shown's own link.
    widget.set_hash("#k=abc")
    expect(status).to_have_attribute("data-state", "error")
    widget.set_hash(DEFAULT_VIEW)
    expect(status).to_have_attribute("data-state", "ready")


def test_bad_hashes_are_explained_and_recovered_from(booted):
    widget = booted
    page = widget.page
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    widget.open(LINK_EXAMPLE)
    for bad, message in BAD_HASHES:
        widget.set_hash(bad)
        status = page.locator("#status")
        expect(status).to_have_attribute("data-state", "error")
        expect(status).to_contain_text(message, ignore_case=True)
        expect(page.locator("[data-grid=input]").first).to_be_visible()
        if "n=" in bad:  # refused before Python: the link stays as given
            assert widget.hash() == bad
        widget.set_hash(LINK_EXAMPLE)
        widget.wait_settled()
        expect(widget.cell("output", 0, 1)).to_have_attribute("aria-selected", "true")
    # A million-cell grid is refused before it is parsed, and the page stays responsive.
    page.evaluate("() => { location.hash = 'x=' + Array(1000).fill(Array(1000).fill('7').join(',')).join(';'); }")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    expect(page.locator("#status")).to_contain_text("the largest allowed grid is 16 x 16")
    assert page.locator("[data-grid=input]").count() == 16
    # Any control starts again from the view shown, which clears the error.
    page.fill("#kernel", "2")
    widget.wait_settled()
    assert widget.hash().startswith("#k=2&s=1&p=0&d=1&mode=max&grad=1")
    assert page.locator("img").count() == 0 and dialogs == []
    # Invalid choices made with the controls are explained and clear once valid.
    page.fill("#kernel", "abc")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    expect(page.locator("#status")).to_contain_text("kernel (k) must be a whole number")
    page.fill("#kernel", "2")
    widget.wait_settled()
    shown = widget.values("output")
    page.fill("#padding", "2")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    expect(page.locator("#status")).to_contain_text("The grids show the last valid view.")
    assert widget.values("output") == shown
    page.fill("#padding", "1")
    widget.wait_settled()
    assert widget.marked("data-pad")


# Views only Python refuses (issue 27, 5): the state's own checks pass them.
PYTHON_REFUSES = [
    (f"#k=2&s=2&p=5&d=1&mode=max&grad=1&x={FIXTURE}", "padding=5 is too large for kernel_size=2"),
    (f"#k=2&s=2&p=0&d=1&mode=max&grad=1&x={FIXTURE}&g=1,2,3", "grad_output must have the output's shape"),
    ("#k=2&s=2&p=0&d=1&mode=max&grad=1&x=1,2,3", "kernel_size=2 does not fit"),
]


@pytest.mark.parametrize("refused, message", PYTHON_REFUSES)
def test_a_view_python_refuses_keeps_the_last_good_view(booted, refused, message):
    """The grids keep the last view Python accepted, with the refusal beside them; the link
    stays as given, and a valid one recovers."""
    widget = booted
    page = widget.page
    good = f"#k=2&s=2&p=0&d=1&mode=max&grad=1&sel=1,0&x={FIXTURE}"
    widget.open(good)
    output, grad_input = widget.values("output"), widget.values("grad-input")
    widget.set_hash(refused)
    status = page.locator("#status")
    expect(status).to_have_attribute("data-state", "error")
    expect(status).to_contain_text(f"Not a valid pooling setup: {message}")
    expect(status).to_contain_text("The grids show the last valid view.")
    assert widget.values("output") == output == [["4", "8"], ["9", "-2"]]
    assert page.locator('[data-grid="input"]').count() == 16 and widget.marked("data-pad") == []
    assert widget.values("input") == [row.split(",") for row in FIXTURE.split(";")]
    assert widget.hash() == refused
    # A tap on the kept output starts from the view shown.
    widget.cell("output", 0, 1).click()
    widget.wait_settled()
    assert widget.values("grad-input") == grad_input
    expect(widget.cell("output", 0, 1)).to_have_attribute("aria-selected", "true")
    widget.set_hash(refused)
    expect(status).to_have_attribute("data-state", "error")
    widget.set_hash("#k=3&s=1&p=0&d=1&mode=max&grad=0&x=" + FIXTURE)
    widget.wait_settled()
    assert widget.values("output") == [["8", "8"], ["9", "9"]]
