"""Hostile use of the page (issue 9): Back while editing, editors that must change nothing
they did not edit, a selection arriving out of range by a hash change, pastes, the worker
hook's answers to bad requests, and a worker that never answers."""

import json
import math

import pytest
from playwright.sync_api import expect

from poolgrad import wire
from widget_driver import BOOT_TIMEOUT_MS, REQUEST_STRIDE


def test_back_while_editing_a_gradient_cell_of_a_refused_state_raises_nothing(widget):
    page = widget.page
    widget.open("#k=5&grad=1", wait=False)
    widget.wait_settled("error")
    widget.set_hash("#k=2&grad=1")
    widget.wait_settled()
    widget.cell("grad-output", 0, 0).click()
    expect(page.locator("[data-editor=grad-output]")).to_be_focused()
    widget.go_back()
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    expect(page.locator("#status")).to_contain_text("does not fit")
    # Forward again: the old editor does not come back, and nothing was committed.
    widget.set_hash("#k=2&grad=1")
    widget.wait_settled()
    assert page.locator("[data-editor]").count() == 0
    assert "g=" not in widget.hash()
    page.wait_for_timeout(300)  # let any late trace answer land before the page fixture checks errors


def test_back_while_editing_a_cell_the_previous_state_lacks_raises_nothing(widget):
    page = widget.page
    widget.open("#k=1&grad=1&x=1,2,3")
    widget.set_hash("#k=1&grad=1&x=1,2;3,4")
    widget.wait_settled()
    widget.cell("grad-output", 1, 1).click()
    page.locator("[data-editor=grad-output]").fill("7")
    widget.go_back()
    widget.wait_settled()
    assert widget.values("input") == [["1", "2", "3"]]
    assert page.locator("[data-editor]").count() == 0
    assert "g=" not in widget.hash()
    # The same with an input cell: the edit belonged to the state that was left.
    widget.set_hash("#k=1&grad=1&x=1,2;3,4")
    widget.wait_settled()
    widget.cell("input", 1, 1).click()
    page.locator("[data-editor=input]").fill("7")
    widget.go_back()
    widget.wait_settled()
    assert widget.values("input") == [["1", "2", "3"]]
    page.wait_for_timeout(300)


@pytest.mark.parametrize("hash_value, shown, editor_text", [
    ("0.123456", "0.1235", "0.123456"),
    ("1e-7", "0", "1e-7"),
    ("Infinity", "∞", "Infinity"),
    ("-Infinity", "-∞", "-Infinity"),
    ("-0", "-0", "-0"),
    ("123456789.5", "123456789.5", "123456789.5"),
])
def test_opening_and_closing_an_editor_changes_nothing(booted, hash_value, shown, editor_text):
    widget = booted
    page = widget.page
    start = f"#k=1&s=1&p=0&d=1&mode=max&grad=1&x={hash_value},2&g={hash_value},3"
    widget.open(start)
    assert widget.hash() == start  # -0 is not rewritten to 0
    for grid in ("input", "grad-output"):
        assert widget.values(grid)[0][0] == shown
        widget.cell(grid, 0, 0).click()
        editor = page.locator(f"[data-editor={grid}]")
        expect(editor).to_have_value(editor_text)  # the exact value, not its display
        page.locator("#lesson-text").click()  # click away: the editor closes
        expect(editor).to_have_count(0)
        assert widget.hash() == start
        widget.cell(grid, 0, 0).click()
        page.keyboard.press("Enter")  # Enter without typing: nothing changes either
        expect(page.locator(f"[data-editor={grid}]")).to_have_count(0)
        assert widget.hash() == start
        expect(page.locator("#status")).to_have_attribute("data-state", "ready")


def test_the_default_gradient_stays_implicit_when_its_editor_closes_untouched(booted):
    widget = booted
    widget.open("#k=2&grad=1")
    widget.cell("grad-output", 0, 0).click()
    widget.page.keyboard.press("Escape")
    widget.cell("grad-output", 1, 1).click()
    widget.page.keyboard.press("Tab")
    assert "g=" not in widget.hash()


def test_negative_zero_reaches_python_as_negative_zero(booted):
    widget = booted
    widget.open("#k=1,2&s=1&mode=max&x=-0,0")
    answer = widget.page.evaluate("""() => window.poolgradWidget.trace(
        {x: [["-0", 0]], kernel_size: [1, 2], stride: [1, 1], mode: "max"})""")
    assert answer["trace"]["output"] == [[0]]
    assert math.copysign(1, answer["trace"]["output"][0][0]) == -1
    assert widget.hash().endswith("x=-0,0")


def test_an_out_of_range_selection_arriving_by_hash_change_is_dropped(booted):
    widget = booted
    widget.open("#k=2&sel=1,1")
    widget.set_hash("#k=2&sel=5,5")
    widget.wait_settled()
    expect(widget.page.locator("[aria-selected=true]")).to_have_count(0)
    assert "sel=" not in widget.hash()
    # Also when the output shrinks under a selection made on the page.
    widget.cell("output", 1, 1).click()
    widget.set_hash(widget.hash().replace("k=2&s=2", "k=3&s=3"))
    widget.wait_settled()
    assert "sel=" not in widget.hash()


def test_paste_errors_show_in_the_status_and_brackets_keep_their_rows(booted):
    widget = booted
    page = widget.page
    widget.open()
    page.locator(".paste summary").click()
    page.fill("#paste", "[[1, 2], [3, 4]]")
    page.click("#paste-apply")
    widget.wait_settled()
    assert widget.values("input") == [["1", "2"], ["3", "4"]]
    page.fill("#paste", "array([[1.5, 2. , 3. ],\n       [4. , 5. , 6. ]])")
    page.click("#paste-apply")
    widget.wait_settled()
    assert widget.values("input") == [["1.5", "2", "3"], ["4", "5", "6"]]
    page.fill("#paste", "[[1 2]\n [3 4]]")
    page.click("#paste-apply")
    widget.wait_settled()
    assert widget.values("input") == [["1", "2"], ["3", "4"]]
    for bad, message in [
        ("1 2\n3", "Row 1 has 1 numbers but row 0 has 2"),
        ("[[1, 2], [3]]", "Row 1 has 1 numbers but row 0 has 2"),
        ("[[1, 2], 3, 4]", "numbers outside the brackets"),
        ("1 two", '"two" is not a number'),
        ("", "Paste some numbers first"),
    ]:
        page.fill("#paste", bad)
        page.click("#paste-apply")
        expect(page.locator("#paste-message")).to_contain_text(message)
        expect(page.locator("#status")).to_have_attribute("data-state", "error")
        expect(page.locator("#status")).to_contain_text(message)
        assert widget.values("input") == [["1", "2"], ["3", "4"]]
    page.fill("#paste", "5 6\n7 8")
    page.click("#paste-apply")
    widget.wait_settled()
    assert widget.values("input") == [["5", "6"], ["7", "8"]]


BAD_REQUESTS = [
    {"x": [[1, "abc"]], "kernel_size": 1},
    {"x": [[1, 2]], "kernel_size": 1, "dilation": 2**63},
    {"x": [[1, 2]], "kernel_size": 2, "stride": 10**9, "ceil_mode": True},
    {"x": [[1, 2]], "kernel_size": 1, "count_include_pad": "garbage"},
    {"x": [[1, 2]], "kernel_size": 1, "bogus": True},
    {"x": [[0] * 65] * 64, "kernel_size": 1},
]


def test_the_worker_answers_bad_requests_as_native_wire_does(booted):
    widget = booted
    widget.open()
    for request in BAD_REQUESTS:
        # Python ints beyond 2**53 do not survive JavaScript numbers: send the JSON text.
        text = json.dumps(request)
        answer = widget.page.evaluate("text => window.poolgradWidget.trace(JSON.parse(text))", text)
        expected = json.loads(wire.run_trace(json.dumps(
            json.loads(widget.page.evaluate("text => JSON.stringify(JSON.parse(text))", text)))))
        answer.pop("ms", None)
        answer.pop("type", None)
        answer.pop("id", None)
        assert answer == expected
        assert "Traceback" not in json.dumps(answer)


HANG = f"""
// Test double: a request with stride 13 never finishes, as a runaway computation would not.
self.addEventListener("message", (event) => {{
  if (event.data?.type === "trace" && {REQUEST_STRIDE}(event.data.request) === 13) for (;;) {{}}
}});
"""


def test_a_request_the_worker_never_answers_becomes_an_error_and_the_worker_restarts(
        widget, prefix_worker):
    page = widget.page
    prefix_worker(HANG)
    widget.open("#k=1&s=1")
    widget.set_hash("#k=1&s=13")
    status = page.locator("#status")
    expect(status).to_have_attribute("data-state", "error", timeout=60_000)
    expect(status).to_contain_text("did not answer within")
    expect(page.locator("#output-grid")).to_have_attribute("aria-busy", "false")
    # A new worker takes over (it boots afresh): the next state is computed.
    widget.set_hash("#k=2&s=1")
    expect(page.locator("#output-grid")).to_have_attribute("aria-busy", "false", timeout=BOOT_TIMEOUT_MS)
    widget.wait_settled()
    assert widget.values("output") == [["4", "8", "8"], ["4", "8", "8"], ["9", "9", "-2"]]
