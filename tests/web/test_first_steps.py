"""What a first-time learner meets: a phone's first screen, a preset that loads when
chosen, the first output selected at once, pair fields a phone keyboard can fill, "Try it"
ticking only the learner's own doing (kept per lesson page), and the dark scheme."""

import pytest
from playwright.sync_api import expect

from lesson_fixture import FIXTURE
from widget_driver import Widget, contrast, page_of_its_own, wait_settled


PHONE = {"width": 390, "height": 844}
TIES = "3,3,1,2;3,1,2,2;0,5,4,4;5,5,4,1"  # the Ties preset (web/widget/presets.js)
DEFAULT_HASH = f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}"


@pytest.fixture
def phone(browser, site):
    """The Widget driver on a 390 x 844 phone (mobile viewport, touch)."""
    with page_of_its_own(browser, viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2) as page:
        yield Widget(page, site)


def tops(page):
    """The top edges (CSS px, from the top of the document) of the input and output grids."""
    return page.evaluate("""() => ['input', 'output'].map((grid) =>
        document.querySelector(`[data-grid="${grid}"]`).closest('table').getBoundingClientRect().top + scrollY)""")


def test_phone_first_screen_shows_both_grids_with_the_settings_folded(phone):
    widget = phone
    page = widget.page
    widget.open()
    toggle = page.locator("#controls-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#kernel")).to_be_hidden()
    input_top, output_top = tops(page)
    assert input_top < output_top < PHONE["height"], (input_top, output_top)
    # The main interaction shows at once: the first output and its window are marked.
    expect(widget.cell("output", 0, 0)).to_have_attribute("aria-selected", "true")
    assert widget.marked("data-argmax") == [[1, 1]]
    # The settings open with a tap, take a preset, and fold away again.
    toggle.tap()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(page.locator("#kernel")).to_be_visible()
    page.select_option("#preset", "ties")
    widget.wait_settled()
    assert widget.values("input")[0] == ["3", "3", "1", "2"]
    toggle.tap()
    expect(page.locator("#preset")).to_be_hidden()
    page.evaluate("scrollTo(0, 0)")
    input_top, output_top = tops(page)
    assert input_top < output_top < PHONE["height"], ("ties", input_top, output_top)
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    # A link to a preset's input with the gradient on: both grids still start on screen.
    widget.set_hash(f"#k=2&s=2&p=0&d=1&mode=max&grad=1&x={TIES}")
    widget.wait_settled()
    page.evaluate("scrollTo(0, 0)")
    assert all(top < PHONE["height"] for top in tops(page)), tops(page)
    # The grids come before the step-through player on a phone.
    player_top = page.locator("#player").evaluate("node => node.getBoundingClientRect().top + scrollY")
    assert player_top > tops(page)[1]


def test_wide_screens_show_the_settings_with_no_toggle(booted):
    page = booted.page
    booted.open()
    expect(page.locator("#controls-toggle")).to_be_hidden()
    expect(page.locator("#kernel")).to_be_visible()
    # The player stays above the grids where there is room.
    player_top = page.locator("#player").evaluate("node => node.getBoundingClientRect().top")
    assert player_top < page.locator("#stage").evaluate("node => node.getBoundingClientRect().top")


def test_the_first_output_is_selected_until_the_learner_picks_one(booted):
    page = booted.page
    booted.open()
    # Selected, explained and marked, but not written into the link: nobody picked it.
    expect(booted.cell("output", 0, 0)).to_have_attribute("aria-selected", "true")
    assert sorted(booted.marked("data-in-window")) == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert booted.marked("data-argmax") == [[1, 1]]
    expect(page.locator("#explanation")).to_contain_text("Output (0,0) = 4")
    booted.expect_hash(DEFAULT_HASH)
    # It follows the output as parameters change, still unwritten.
    page.fill("#kernel", "3")
    page.fill("#stride", "1")
    booted.wait_settled()
    expect(booted.cell("output", 0, 0)).to_have_attribute("aria-selected", "true")
    assert booted.marked("data-argmax") == [[1, 2]]
    assert "sel=" not in booted.hash()
    # The learner's pick is theirs: written, and kept by a reload, even output (0,0).
    booted.cell("output", 0, 0).click()
    assert "&sel=0,0&" in booted.hash()
    booted.cell("output", 1, 1).click()
    assert "&sel=1,1&" in booted.hash()
    page.reload()
    booted.wait_settled()
    expect(booted.cell("output", 1, 1)).to_have_attribute("aria-selected", "true")
    assert "&sel=1,1&" in booted.hash()
    # Escape clears it; the link then has no sel, so it opens with the first output selected.
    booted.cell("output", 1, 1).press("Escape")
    assert page.locator('[data-grid="output"][aria-selected="true"]').count() == 0
    assert "sel=" not in booted.hash()
    booted.open(f"#k=2&s=2&p=0&d=1&mode=avg&grad=1&x={FIXTURE}")
    expect(booted.cell("output", 0, 0)).to_have_attribute("aria-selected", "true")
    assert sorted(booted.marked("data-from-selected", grid="grad-input")) == [[0, 0], [0, 1], [1, 0], [1, 1]]


def test_choosing_a_preset_loads_it_with_no_load_button(booted):
    page = booted.page
    booted.open()
    assert page.locator("#preset-apply").count() == 0
    page.select_option("#preset", "distinct")
    booted.wait_settled()
    assert booted.values("output") == [["6", "8"], ["14", "16"]]
    # A keyboard's arrow on the closed list loads the next preset at once (Chromium fires
    # "change" on each step; tests/engines checks Firefox and the WebKits).
    page.focus("#preset")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#preset")).to_have_value("ties")
    booted.wait_settled()
    assert booted.values("input")[0] == ["3", "3", "1", "2"]
    # Choosing "random" while it shows fires no change: a button deals new numbers then.
    reroll = page.locator("#preset-reroll")
    expect(reroll).to_be_hidden()
    page.select_option("#preset", "random")
    booted.wait_settled()
    expect(reroll).to_be_visible()
    dealt = [booted.values("input")]
    for _ in range(3):  # four deals of 16 values in -9..9 all alike: a negligible chance
        reroll.click()
        booted.wait_settled()
        dealt.append(booted.values("input"))
        expect(page.locator("#preset")).to_have_value("random")
    assert len({str(values) for values in dealt}) > 1, dealt
    assert all(-9 <= int(v) <= 9 for values in dealt for row in values for v in row)
    page.select_option("#preset", "fixture")
    expect(reroll).to_be_hidden()


def test_pair_fields_take_a_phone_keyboards_separators(booted):
    page = booted.page
    booted.open()
    for field in ("#kernel", "#stride", "#padding", "#dilation"):
        # A text keyboard: every phone's has a space, and a comma a tap away.
        assert page.locator(field).get_attribute("inputmode") == "text", field
    page.fill("#kernel", "3 2")
    page.fill("#stride", "1x1")
    booted.wait_settled()
    assert booted.hash().startswith("#k=3,2&s=1&")
    assert booted.values("output") == [["4", "8", "8"], ["9", "9", "8"]]
    page.locator("#stride").blur()
    expect(page.locator("#stride")).to_have_value("1")
    page.fill("#kernel", "3;2")
    page.locator("#kernel").blur()
    expect(page.locator("#kernel")).to_have_value("3,2")  # written back in the canonical form
    page.fill("#kernel", "3.2")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    expect(page.locator("#status-text")).to_have_text('kernel (k) must be a whole number or a pair like 3,2 (or 3 2, 3x2); got "3.2"')
    page.fill("#kernel", "3×2")
    booted.wait_settled()
    assert booted.hash().startswith("#k=3,2&")


def guide_done(page):
    return page.evaluate("""() => [...document.querySelectorAll('#guide-steps [data-guide-step]')]
        .filter((item) => item.dataset.done === 'true').map((item) => item.dataset.guideStep)""")


def test_try_it_ticks_what_the_learner_did_not_what_a_link_opened_with(widget):
    page = widget.page
    # A link that shows step 1 (3 x 3, stride 1, an output whose maximum is shared) and
    # step 2's gradient: nothing ticks, nor does the implicit selection on a tie.
    widget.open(f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,0&x={FIXTURE}")
    assert guide_done(page) == []
    expect(page.locator("#guide-progress")).to_have_text("0 of 4 steps done.")
    # Picking an output whose maximum is shared is step 1, done by the learner.
    widget.cell("output", 0, 1).click()
    expect(page.locator('[data-guide-step="shared"]')).to_have_attribute("data-done", "true")
    assert guide_done(page) == ["shared"]
    # A hash change from outside (a host page, Back) that shows step 3 ticks nothing ...
    widget.set_hash(f"#k=2&s=2&p=0&d=1&mode=avg&grad=1&x={FIXTURE}")
    widget.wait_settled()
    assert guide_done(page) == ["shared"]
    # ... until the learner does it: gradient off and on again.
    page.uncheck("#gradient")
    page.check("#gradient")
    widget.wait_settled()
    expect(page.locator('[data-guide-step="spread"]')).to_have_attribute("data-done", "true")
    # The Ties preset puts a tie under the implicit first selection: not the learner's pick.
    page.click("#mode-max")
    page.select_option("#preset", "ties")
    widget.wait_settled()
    expect(widget.cell("output", 0, 0)).to_have_attribute("aria-selected", "true")
    assert "tie" not in guide_done(page)
    assert "routing" not in guide_done(page)  # 2 x 2, stride 2, gradient on: but no pick yet
    # The learner's pick of that output is a tie, and (the gradient on) step 2 as well.
    widget.cell("output", 0, 0).click()
    expect(page.locator('[data-guide-step="tie"]')).to_have_attribute("data-done", "true")
    expect(page.locator('[data-guide-step="routing"]')).to_have_attribute("data-done", "true")
    expect(page.locator("#guide-progress")).to_have_text("4 of 4 steps done.")


HOST_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><h1>{title}</h1>{frames}</body></html>"""


def host_page(context, site, name, frames):
    """Serve a lesson page `name` at the site's origin holding one iframe per query string
    in `frames` (each opening index.html?embed=1&... with the default view's hash)."""
    tags = "".join(
        f'<iframe id="frame-{index}" src="index.html?embed=1{query}#k=2&s=2&p=0&d=1&mode=max&grad=1&x={FIXTURE}" '
        f'title="Widget {index}" style="width: 1000px; height: 1400px"></iframe>'
        for index, query in enumerate(frames)
    )
    html = HOST_PAGE.format(title=name, frames=tags)
    context.route(site.url + name, lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    return site.url + name


def frame_widget(page, index):
    frame = page.frame_locator(f"#frame-{index}")
    wait_settled(frame)
    return frame


def test_progress_is_kept_per_lesson_page_and_widget(page, context, site):
    # Two widgets on one lesson page, told apart by the ids the teacher gave them.
    two = host_page(context, site, "week-1.html", ["&id=max-pooling", "&id=routing"])
    page.goto(two)
    first, second = frame_widget(page, 0), frame_widget(page, 1)
    first.locator('[data-grid="output"][data-row="0"][data-col="1"]').click()
    expect(first.locator('[data-guide-step="routing"]')).to_have_attribute("data-done", "true")
    expect(second.locator("#guide-progress")).to_have_text("0 of 4 steps done.")
    page.reload()
    first, second = frame_widget(page, 0), frame_widget(page, 1)
    expect(first.locator('[data-guide-step="routing"]')).to_have_attribute("data-done", "true")
    expect(second.locator("#guide-progress")).to_have_text("0 of 4 steps done.")
    # Without ids, each lesson page that frames the widget keeps its own progress.
    one = host_page(context, site, "week-2.html", [""])
    other = host_page(context, site, "week-3.html", [""])
    page.goto(one)
    frame_widget(page, 0).locator('[data-grid="output"][data-row="1"][data-col="0"]').click()
    expect(frame_widget(page, 0).locator("#guide-progress")).to_have_text("1 of 4 steps done.")
    page.goto(other)
    expect(frame_widget(page, 0).locator("#guide-progress")).to_have_text("0 of 4 steps done.")
    # The widget opened on its own has its own progress too.
    page.goto(site.url + "index.html")
    wait_settled(page)
    expect(page.locator("#guide-progress")).to_have_text("0 of 4 steps done.")
    keys = sorted(page.evaluate("Object.keys(localStorage)"))
    assert keys == [
        "poolgrad-guide-v2|/index.html|id:max-pooling",
        f"poolgrad-guide-v2|/index.html|in:{site.url}week-2.html",
    ], keys
    assert page.problems == []


LOOKS = """node => {
    const style = getComputedStyle(node);
    const tag = (which) => {
        const pseudo = getComputedStyle(node, which);
        return { content: pseudo.content, color: pseudo.color, background: pseudo.backgroundColor };
    };
    return {
        background: style.backgroundColor, color: style.color, image: style.backgroundImage,
        shadows: [...style.boxShadow.matchAll(/rgba?\\([^)]*\\)/g)].map((m) => m[0]),
        outline: style.outlineStyle === 'none' ? null : style.outlineColor,
        border: style.borderTopStyle, after: tag('::after'), before: tag('::before'),
        panel: getComputedStyle(node.closest('.panel')).backgroundColor,
    };
}"""


def reads_on(ring, gap, background):
    """A two-colour frame (WCAG technique C40): its colours keep 9:1 between them, so on
    any cell colour one of them keeps 3:1; checked on the cell it is drawn on, too."""
    return contrast(ring, gap) >= 9 and max(contrast(ring, background), contrast(gap, background)) >= 3


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_mark_stands_out_in_both_schemes(booted, scheme):
    """Window, argmax, shared ×n, padding, selection, gradient and step-through marks, and
    the heat map's text, keep WCAG contrast (3:1 for a mark, 4.5:1 for text) in both."""
    page = booted.page
    page.emulate_media(color_scheme=scheme)
    booted.open(f"#k=3&s=1&p=1&d=1&mode=max&grad=1&sel=1,1&x={FIXTURE}")
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    looks = lambda locator: locator.evaluate(LOOKS)  # noqa: E731
    page_background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    panel = looks(booted.cell("input", 0, 0))["panel"]
    dark = contrast(panel, "rgb(0, 0, 0)") < 1.5 and contrast(page_background, "rgb(0, 0, 0)") < 1.5
    assert dark == (scheme == "dark"), (panel, page_background)

    # Output (1,1)'s window: rows 0-2, cols 0-2 of the input, its maximum 8 at (1,2).
    assert booted.marked("data-argmax") == [[1, 2]]
    for row, col in booted.marked("data-in-window"):
        if [row, col] == [1, 2] or row < 0 or col < 0:
            continue
        cell = looks(booted.cell("input", row, col))
        assert reads_on(*cell["shadows"][:2], cell["background"]), ("window", row, col, cell)
    argmax = looks(booted.cell("input", 1, 2))
    ring, gap = argmax["shadows"][:2]
    assert reads_on(ring, gap, argmax["background"]), ("argmax", argmax)
    assert argmax["after"]["content"] == '"max"' and contrast(argmax["after"]["color"], argmax["after"]["background"]) >= 4.5
    for row, col in booted.marked("aria-selected", grid="output"):
        selected = looks(booted.cell("output", row, col))
        assert reads_on(*selected["shadows"][:2], selected["background"]), ("selected", selected)
        assert contrast(selected["shadows"][2], selected["panel"]) >= 3, "the selected output's outer ring on its panel"
        assert selected["after"]["content"] == '"●"' and contrast(selected["after"]["color"], selected["after"]["background"]) >= 4.5
    received = looks(booted.cell("grad-input", 1, 2))  # receives the selected output's gradient
    assert reads_on(*received["shadows"][:2], received["background"]), ("gradient", received)
    assert received["after"]["content"] == '"×7"' and contrast(received["after"]["color"], received["after"]["background"]) >= 4.5
    pad = looks(booted.cell("input", -1, 0))
    assert pad["border"] == "dashed" and "repeating-linear-gradient" in pad["image"]
    for stripe in pad["image"].replace("rgb", "|rgb").split("|")[1:]:
        assert contrast(pad["color"], stripe) >= 4.5, ("padding text", pad)
    # Every heat-coloured cell's text reads (AA), and the heat shows: the strongest cell
    # stands apart from a zero.
    cells = page.locator("[data-grid]:not([data-pad])").evaluate_all(
        "cells => cells.map((c) => [getComputedStyle(c).color, getComputedStyle(c).backgroundColor, c.dataset.grid, c.textContent])")
    assert cells and [c for c in cells if contrast(c[0], c[1]) < 4.5] == []
    zero = next(background for _, background, grid, text in cells if grid == "grad-input" and text == "0")
    strongest = next(background for _, background, grid, text in cells if grid == "grad-input" and text == "7")
    assert contrast(zero, strongest) >= 1.5, (zero, strongest)
    # The step-through's outline sits on the cell's edge, against the panel.
    page.click("#player-forward")
    page.click("#player-forward")
    current = looks(page.locator('[data-grid="output"][data-step="current"]'))
    assert contrast(current["outline"], current["panel"]) >= 3, ("step", current)
    assert current["before"]["content"] == '"now"' and contrast(current["before"]["color"], current["before"]["background"]) >= 4.5
    page.click("#player-reset")
    # The hover preview: a dotted outline, in the dark scheme 3:1 on every output shade.
    booted.cell("output", 3, 3).hover()
    preview = looks(booted.cell("output", 3, 3))
    assert preview["outline"] and preview["outline"] != looks(booted.cell("output", 1, 1))["shadows"][0]
    if scheme == "dark":
        shades = page.locator('[data-grid="output"]').evaluate_all("cells => cells.map((c) => getComputedStyle(c).backgroundColor)")
        assert all(contrast(preview["outline"], shade) >= 3 for shade in shades), ("preview", preview["outline"], shades)


def test_the_page_follows_a_scheme_switch_and_the_browser_bar_has_both(booted):
    page = booted.page
    page.emulate_media(color_scheme="light", reduced_motion="reduce")  # no colour transition
    booted.open()
    metas = page.locator('meta[name="theme-color"]').evaluate_all("metas => metas.map((m) => [m.media, m.content])")
    assert metas == [["(prefers-color-scheme: light)", "#1d4ed8"], ["(prefers-color-scheme: dark)", "#111318"]]
    first = booted.cell("output", 0, 0)
    light = first.evaluate("cell => getComputedStyle(cell).backgroundColor")
    # Switched while the page is open: the page and the heat map (inline colours) follow.
    page.emulate_media(color_scheme="dark")
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == "rgb(17, 19, 24)"  # #111318
    expect(first).not_to_have_css("background-color", light)
    dark = first.evaluate("cell => getComputedStyle(cell).backgroundColor")
    assert contrast(dark, "rgb(0, 0, 0)") < contrast(light, "rgb(0, 0, 0)") / 2, (light, dark)
    assert booted.values("output") == [["4", "8"], ["9", "-2"]]


@pytest.mark.parametrize("width", [360, 736, 1280])
def test_the_view_switch_comes_before_the_settings_and_the_grids_at_every_width(browser, site, width):
    # Up to 1000 px the widget is a reordered column; the switch had no order there and fell
    # below the grids, about 1200 px down, where a learner looking for the chain or the
    # picture would not find it.
    with page_of_its_own(browser, viewport={"width": width, "height": 900}) as page:
        widget = Widget(page, site)
        widget.open()
        top = lambda selector: page.locator(selector).first.evaluate("node => node.getBoundingClientRect().top + scrollY")
        view, controls, stage = top("#view"), top("section.controls"), top("#stage")
        assert top("#status") < view < controls < stage, (view, controls, stage)
        assert view < 900
