"""Accessibility (WCAG 2.1 AA): axe-core in the browser on the widget's main states (the
lesson, step-through and "Try it" panels included), and
what axe cannot see: each cell's accessible name, the polite live region, visible focus,
marks that do not rely on colour, and prefers-reduced-motion.

axe-core comes bundled with axe-playwright-python and is injected with page.evaluate
(DevTools evaluation, which the page's CSP does not govern), so nothing is fetched."""

import re

import pytest
from playwright.sync_api import expect

from lesson_fixture import FIXTURE
from widget_driver import axe_violations


AVG_EXAMPLE = "12,10,9,6;11,8,13,5;2,14,15,0;4,3,7,1"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_in_the_main_states(widget, scheme):
    """In both colour schemes (prefers-color-scheme): the dark one has its own palette."""
    page = widget.page
    page.emulate_media(color_scheme=scheme)
    widget.open(wait=False)
    expect(page.locator("#status")).to_have_attribute("data-state", "loading")
    assert axe_violations(page) == [], "loading"
    widget.wait_settled()
    assert axe_violations(page) == [], "default"
    widget.cell("output", 0, 1).click()
    assert axe_violations(page) == [], "selected"
    page.check("#gradient")
    widget.wait_settled()
    assert axe_violations(page) == [], "gradient on"
    for _ in range(3):
        page.click("#player-forward")
    assert axe_violations(page) == [], "stepping through the windows"
    page.click("#player-reset")
    widget.set_hash(f"#k=3&s=1&p=1&d=1&mode=max&grad=1&sel=1,1&x={FIXTURE}")
    widget.wait_settled()
    assert axe_violations(page) == [], "padding, shared maxima"
    widget.set_hash(f"#k=2&s=2&p=0&d=1&mode=avg&grad=1&sel=0,1&x={AVG_EXAMPLE}")
    widget.wait_settled()
    assert axe_violations(page) == [], "average"
    widget.set_hash(f"#k=9&s=1&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    widget.wait_settled("error")
    assert axe_violations(page) == [], "error"
    widget.set_hash(f"#k=2&s=2&p=0&d=1&mode=max&grad=1&sel=0,0&x={FIXTURE}")
    widget.wait_settled()
    page.set_viewport_size({"width": 360, "height": 640})
    assert axe_violations(page) == [], "360 px"
    page.click("#controls-toggle")
    expect(page.locator("#kernel")).to_be_visible()
    assert axe_violations(page) == [], "360 px, settings unfolded"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_embedded(widget, scheme):
    page = widget.page
    page.emulate_media(color_scheme=scheme)
    widget.open(f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}", path="index.html?embed=1")
    assert axe_violations(page) == [], "embed"
    widget.open(f"#k=2&s=2&p=0&d=1&mode=avg&grad=0&sel=1,1&x={AVG_EXAMPLE}", path="index.html?embed=1&lesson=0")
    assert axe_violations(page) == [], "embed, lesson=0"


def test_names_announcements_focus_marks_and_motion(widget):
    page = widget.page
    widget.open(f"#k=3&s=1&p=0&d=1&mode=max&grad=1&x={FIXTURE}")
    # Grids are tables with role=grid whose rows hold only headers and cells.
    roles = page.evaluate("""() => [...document.querySelectorAll('table[role="grid"] tr')]
        .flatMap((row) => [...row.children].map((cell) => cell.getAttribute('role')))""")
    assert set(roles) == {"columnheader", "rowheader", "gridcell"}
    assert page.locator('table[role="grid"]:not([aria-label])').count() == 0
    # A tap: the cell names say where, what value, and what part the cell plays.
    announcer = page.locator("#announcer")
    assert announcer.get_attribute("aria-live") == "polite"
    widget.cell("output", 0, 1).click()
    expect(announcer).to_contain_text("Output (0,1) = 8")
    assert announcer.evaluate("node => node.children.length") == 0, "the live region holds text only"
    expect(widget.cell("output", 0, 1)).to_have_attribute("aria-label", "Output row 0, col 1: 8; selected")
    expect(widget.cell("input", 1, 2)).to_have_attribute("aria-label", "Input row 1, col 2: 8; maximum of 2 outputs; argmax of output (0,1)")
    expect(widget.cell("input", 0, 1)).to_have_attribute("aria-label", "Input row 0, col 1: 2; in the window of output (0,1)")
    expect(widget.cell("grad-input", 1, 2)).to_contain_text("2")
    assert "receives gradient from output (0,1)" in widget.cell("grad-input", 1, 2).get_attribute("aria-label")
    # Colour is never the only signal: the argmax, a shared maximum and the selected
    # output each carry a text mark.
    after = "node => getComputedStyle(node, '::after').content"
    assert widget.cell("input", 1, 2).evaluate(after) == '"max"'
    assert widget.cell("output", 0, 1).evaluate(after) == '"●"'
    assert widget.cell("grad-input", 1, 2).evaluate(after) == '"×2"'
    # Escape clears the selection, and says so.
    widget.cell("output", 0, 1).press("Escape")
    expect(announcer).to_have_text("No output cell selected.")
    # Keyboard focus is always visible: the focus outline wins over the hover preview the
    # arrow keys also show, and over the step-through marks.
    # (to_have_css retries: the outline colour eases in unless motion is reduced).
    def has_focus_ring(cell):
        assert cell.evaluate("node => node.matches(':focus-visible')")
        for name, value in {"outline-style": "solid", "outline-width": "3px", "outline-color": "rgb(124, 58, 237)"}.items():
            expect(cell).to_have_css(name, value)

    widget.cell("output", 0, 1).press("ArrowDown")
    focused = widget.cell("output", 1, 1)
    expect(focused).to_be_focused()
    assert focused.get_attribute("data-preview") == "true"
    has_focus_ring(focused)
    page.click("#player-forward")  # position 0: nothing computed yet
    page.click("#player-forward")  # step 1: output (0,0) and its window
    page.locator('[data-grid="output"][data-step]').first.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    stepped = page.locator('[data-grid="output"]:focus')
    expect(stepped).to_have_attribute("data-step", re.compile("."))
    has_focus_ring(stepped)
    # prefers-reduced-motion: no transition or animation anywhere.
    motion = """() => [...document.querySelectorAll('*')].some((node) => {
        const s = getComputedStyle(node);
        return s.transitionDuration.split(',').some((d) => parseFloat(d) > 0)
            || s.animationName.split(',').some((name) => name.trim() !== 'none');
    })"""
    page.emulate_media(reduced_motion="reduce")
    assert not page.evaluate(motion)


# Every reference by id in a widget (label for=, aria-labelledby, -describedby, -controls):
# [widget, attribute, id, how many elements carry the id, whether the one found is in the
# same widget].
ID_REFERENCES = """() => [...document.querySelectorAll("[data-widget]")].flatMap((widget) =>
    [...widget.querySelectorAll("[for], [aria-labelledby], [aria-describedby], [aria-controls]")].flatMap((node) =>
        ["for", "aria-labelledby", "aria-describedby", "aria-controls"].filter((name) => node.hasAttribute(name))
            .flatMap((name) => node.getAttribute(name).split(/\\s+/).map((id) => [
                widget.id, name, id, document.querySelectorAll(`[id="${id}"]`).length,
                widget.contains(document.getElementById(id))]))))"""


def test_widgets_drawn_in_one_document_label_their_own_fields(page, site, published):
    """Issue 27, 6: two notebook widgets repeated the controls' ids, so the second's labels
    named the first's fields. The first drawn keeps the contract's ids (#kernel, ...)."""
    html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>three widgets</title>
<script type="module">
import {{ mount }} from "/{published("mount.js")}";
import {{ localModel }} from "/{published("model.js")}";
const parts = {{ controls: true, lesson: true, player: true, exercise: true, code: true }};
window.mounted = (async () => {{
  for (const id of ["one", "two", "three"]) await mount(document.getElementById(id), localModel(), {{ parts, name: id }});
  return true;
}})();
</script></head><body><main><div id="one" data-widget></div><div id="two" data-widget></div><div id="three" data-widget></div></main></body></html>"""
    page.route(site.url + "three-widgets.html", lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(site.url + "three-widgets.html")
    assert page.evaluate("window.mounted")
    references = page.evaluate(ID_REFERENCES)
    assert {widget for widget, *_ in references} == {"one", "two", "three"}
    assert [r for r in references if r[3:] != [1, True]] == []
    first = {(name, id_) for widget, name, id_, *_ in references if widget == "one"}
    assert ("for", "kernel") in first and ("for", "padding") in first
    assert page.locator("#one #kernel").count() == 1
    # A tap on the third widget's label puts the caret in the third widget's field.
    page.locator("#three label", has_text="Padding").click()
    assert page.evaluate("document.activeElement.closest('[data-widget]').id") == "three"
