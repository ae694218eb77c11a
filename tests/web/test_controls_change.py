"""The parameter fields apply a value on `change` as well as on `input`: a value set without
typing (WebDriver's clear() and keys, autofill, some mobile keyboards) may only fire `change`."""

import pytest


@pytest.mark.parametrize("field, value, outputs", [
    ("#kernel", "3", [["8"]]),  # 3 x 3, stride 2 on the 4 x 4 fixture: one window
    ("#stride", "1", [["4", "8", "8"], ["4", "8", "8"], ["9", "9", "-2"]]),
])
def test_a_change_event_alone_applies_the_value(booted, field, value, outputs):
    widget = booted
    widget.open()
    widget.page.evaluate(
        """([field, value]) => {
            const input = document.querySelector(field);
            input.value = value;
            input.dispatchEvent(new Event("change", { bubbles: true }));
        }""",
        [field, value],
    )
    widget.wait_settled()
    assert widget.values("output") == outputs


def test_arrow_keys_step_a_square_pair_field_as_typing_would(booted):
    widget = booted
    widget.open()
    kernel = widget.page.locator("#kernel")
    kernel.press("ArrowUp")  # k 2 -> 3 (stride 2 kept): one 3 x 3 window on the fixture
    widget.wait_settled()
    assert widget.values("output") == [["8"]]
    assert widget.hash().startswith("#k=3&s=2&")
    assert kernel.input_value() == "3"
    kernel.press("ArrowDown")
    widget.wait_settled()
    assert widget.values("output") == [["4", "8"], ["9", "-2"]]
    assert widget.hash().startswith("#k=2&s=2&")


def test_a_selection_the_output_shrank_under_returns_when_it_grows_back(booted):
    widget = booted
    page = widget.page
    widget.open()
    widget.cell("output", 1, 1).click()
    page.fill("#kernel", "3")  # stride 2: a 1 x 1 output, without (1,1)
    widget.wait_settled()
    assert "sel=" not in widget.hash()
    assert page.locator("[aria-selected=true]").count() == 0
    page.fill("#kernel", "2")
    widget.wait_settled()
    assert "&sel=1,1&" in widget.hash()
    assert widget.cell("output", 1, 1).get_attribute("aria-selected") == "true"
