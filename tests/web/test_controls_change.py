"""The parameter fields apply a value on `change` as well as on `input`: a value set without
typing (WebDriver's clear() and keys, autofill, some mobile keyboards) may only fire `change`."""

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("field, value, outputs", [
    ("#kernel", "3", [["8"]]),  # 3 x 3, stride 2 on the 4 x 4 fixture: one window
    ("#stride", "1", [["4", "8", "8"], ["4", "8", "8"], ["9", "9", "-2"]]),
])
def test_a_change_event_alone_applies_the_value(widget, field, value, outputs):
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
