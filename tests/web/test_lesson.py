"""The teaching layer: the live lesson text, the step-through player, the "Try it" guide,
and the Max / Average toggle that keeps the selection. Few page loads: each test groups
its assertions on one page (Pyodide boots once per load)."""

import re

from playwright.sync_api import expect

from lesson_fixture import FIXTURE


OVERLAP = f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}&g=1,2;3,4"


def quoted(locator):
    """The cells and the numbers a lesson block quotes, in order: what it must get right
    whatever its wording (the wording itself is tested with the pure module, tests/js/)."""
    text = locator.inner_text()
    cells = [(int(r), int(c)) for r, c in re.findall(r"\((-?\d+),(-?\d+)\)", text)]
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", re.sub(r"\(-?\d+,-?\d+\)", " ", text))]
    return cells, numbers


def pending(widget, grid):
    return sorted(widget.marked("data-pending", grid=grid))


def stepped(widget, value, grid="input"):
    return sorted(widget.marked("data-step", value, grid=grid))


def test_lesson_quotes_the_live_numbers_and_the_toggle_keeps_the_selection(booted):
    widget = booted
    page = widget.page
    widget.open(OVERLAP)
    lesson = page.locator("#lesson-text")
    keeps = lesson.locator("[data-topic=keeps]")
    expect(keeps).to_contain_text("Output (0,1) keeps 8")
    # (0,1) keeps 8 of its 9 values (rows 0-2, cols 1-3) and drops 8 ...
    assert quoted(keeps) == ([(0, 1)], [8, 9, 0, 2, 1, 3, 8])
    # ... remembers cell (1,2), flat index 1 x 4 + 2 = 6 ...
    assert quoted(lesson.locator("[data-topic=remembers]")) == ([(0, 1), (1, 2)], [1, 4, 2, 6])
    # ... and sends its gradient 2 there alone (every other cell gets 0; 8 of them).
    assert quoted(lesson.locator("[data-topic=gradient]")) == ([(0, 1), (1, 2)], [0, 2, 8, 0])
    # 4 x 4 -> 2 x 2 by floor(1 / 1) + 1 per axis: 4 numbers instead of 16, each for 3 x 3.
    assert quoted(lesson.locator("[data-topic=shrink]"))[1] == [4, 4, 2, 2, 1, 1, 1, 2, 1, 1, 1, 2, 4, 16, 3, 3]
    # Stride 1 with 3 x 3 windows: (1,2) is the maximum of (0,0) and (0,1) and collects 1 + 2 = 3.
    assert quoted(lesson.locator("[data-topic=overlap]")) == ([(1, 2), (0, 0), (0, 1)], [1, 3, 3, 1, 2, 3])
    # The text follows the selection: output (1,0) took its 9 from cell (3,1), which it
    # shares with (1,1): 3 + 4 = 7.
    widget.cell("output", 1, 0).click()
    expect(keeps).to_contain_text("Output (1,0) keeps 9")
    assert quoted(keeps) == ([(1, 0)], [9, 9, 1, 3, 0, 2, 8])
    assert quoted(lesson.locator("[data-topic=overlap]")) == ([(3, 1), (1, 0), (1, 1)], [1, 3, 3, 3, 4, 7])
    # The toggle switches to average pooling with the same selection and gradient on.
    expect(page.locator("#mode-max")).to_have_attribute("aria-pressed", "true")
    page.click("#mode-avg")
    widget.wait_settled()
    expect(page.locator("#mode-avg")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#mode-max")).to_have_attribute("aria-pressed", "false")
    assert page.locator("#mode").input_value() == "avg"
    assert "mode=avg" in widget.hash() and "sel=1,0" in widget.hash()
    expect(widget.cell("output", 1, 0)).to_have_attribute("aria-selected", "true")
    # The mean of (1,0)'s 9 cells, divided by 9; its gradient 1 split as 1 / 9 over 9 cells.
    output = float(widget.values("output")[1][0])
    assert quoted(lesson.locator("[data-topic=average]")) == ([(1, 0)], [output, 9, 9])
    assert quoted(lesson.locator("[data-topic=gradient]")) == ([(1, 0)], [0, 1, 1, 9, 0.1111, 9])
    # ... and back, through #mode this time: the selection still stays.
    page.select_option("#mode", "max")
    widget.wait_settled()
    expect(widget.cell("output", 1, 0)).to_have_attribute("aria-selected", "true")
    assert widget.marked("data-argmax") == [[3, 1]]
    # Without overlap the lesson says so, with the live stride and window.
    widget.set_hash(f"#k=2&s=2&p=0&d=1&mode=max&grad=0&sel=0,0&x={FIXTURE}")
    widget.wait_settled()
    expect(keeps).to_contain_text("Output (0,0) keeps 4")
    assert quoted(lesson.locator("[data-topic=overlap]")) == ([], [2, 2, 2])  # stride 2, 2 x 2: no overlap
    assert quoted(lesson.locator("[data-topic=gradient]")) == ([], [0])  # gradient off: no routing quoted


def test_player_steps_plays_pauses_and_builds_partial_sums(booted):
    widget = booted
    page = widget.page
    widget.open(OVERLAP)
    caption = page.locator("#player-caption")
    back, forward, play = page.locator("#player-back"), page.locator("#player-forward"), page.locator("#player-play")
    expect(page.locator("#player-reset")).to_be_disabled()
    assert pending(widget, "output") == []
    # Step 0: nothing computed yet; every output (and, gradient on, every input gradient) pending.
    forward.click()
    expect(back).to_be_disabled()
    expect(caption).to_have_text("Step 0 of 8: no output computed yet. Step forward to slide the first window.")
    assert pending(widget, "output") == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert widget.cell("output", 0, 0).inner_text() == ""
    assert len(pending(widget, "grad-input")) == 16
    # Forward steps: the window slides and each output fills in.
    forward.click()
    forward.click()
    expect(caption).to_contain_text("Step 2 of 8, forward: the window covers rows 0–2, cols 1–3; its maximum 8, from cell (1,2), fills output (0,1).")
    assert pending(widget, "output") == [[1, 0], [1, 1]]
    assert widget.values("output")[0] == ["8", "8"]
    assert stepped(widget, "current", "output") == [[0, 1]]
    assert stepped(widget, "argmax") == [[1, 2]]
    assert len(stepped(widget, "window")) == 8
    back.click()
    assert pending(widget, "output") == [[0, 1], [1, 0], [1, 1]]
    assert stepped(widget, "current", "output") == [[0, 0]]
    expect(caption).to_contain_text("Step 1 of 8, forward")
    assert "sel=0,1" in widget.hash() and "step" not in widget.hash()  # stepping is not in the hash
    # The selection's own marks are left alone while stepping.
    assert widget.marked("data-argmax") == [[1, 2]]
    for _ in range(4):
        forward.click()
    # Backward: output (0,0)'s gradient 1 reaches cell (1,2); more will come there.
    expect(caption).to_contain_text("Step 5 of 8, backward: output (0,0) sends its upstream gradient 1 to cell (1,2), its maximum, which now holds 1 so far.")
    assert pending(widget, "output") == [] and pending(widget, "grad-input") == []
    assert stepped(widget, "source", "grad-output") == [[0, 0]]
    assert stepped(widget, "target", "grad-input") == [[1, 2]]
    assert widget.cell("grad-input", 1, 2).inner_text() == "1"
    assert widget.cell("grad-input", 1, 2).get_attribute("data-partial") == "true"
    forward.click()
    expect(caption).to_contain_text("output (0,1) sends its upstream gradient 2 to cell (1,2), its maximum, which now holds 1 + 2 = 3.")
    assert widget.cell("grad-input", 1, 2).inner_text() == "3"
    assert widget.cell("grad-input", 1, 2).get_attribute("data-partial") is None
    forward.click()
    assert widget.cell("grad-input", 3, 1).inner_text() == "3"
    assert sorted(widget.marked("data-partial", grid="grad-input")) == [[3, 1]]
    forward.click()
    expect(caption).to_contain_text("Step 8 of 8")
    assert widget.cell("grad-input", 3, 1).inner_text() == "7"
    expect(forward).to_be_disabled()
    expect(forward).to_be_focused()  # aria-disabled at the end, so the focus stays
    # Show all returns to the full view: every value back, no marks; step back from there
    # goes to the last step.
    page.click("#player-reset")
    assert widget.marked("data-step", "current", grid="output") == []
    assert widget.values("grad-input")[1][2] == "3" and widget.values("output") == [["8", "8"], ["9", "9"]]
    back.click()
    expect(caption).to_contain_text("Step 8 of 8")
    page.click("#player-reset")
    # Play runs to the end on its own; pause stops it.
    page.select_option("#player-speed", "200")
    play.click()
    expect(play).to_have_attribute("aria-pressed", "true")
    expect(caption).to_contain_text("Step 8 of 8", timeout=10_000)
    expect(play).to_have_attribute("aria-pressed", "false")
    page.select_option("#player-speed", "1600")
    play.click()
    expect(caption).to_contain_text("Step 1 of 8", timeout=5_000)
    play.click()
    expect(play).to_have_attribute("aria-pressed", "false")
    stopped_at = caption.inner_text()
    page.wait_for_timeout(2_000)
    assert caption.inner_text() == stopped_at
    # A parameter change starts over from the full view; average mode spreads shares.
    widget.set_hash(f"#k=2&s=1&p=0&d=1&mode=avg&grad=1&x={FIXTURE}")
    widget.wait_settled()
    expect(page.locator("#player-progress")).to_have_text("")
    assert pending(widget, "output") == []
    for _ in range(12):
        forward.click()
    expect(caption).to_contain_text("Step 11 of 18, backward: output (0,1) splits its upstream gradient 1 into 0.25 for each of the 4 cells of its window.")
    expect(caption).to_contain_text("Cell (0,1) lies in an earlier window too and now holds 0.25 + 0.25 = 0.5.")
    assert widget.cell("grad-input", 0, 1).inner_text() == "0.5"
    assert sorted(widget.marked("data-step", "target", grid="grad-input")) == [[0, 1], [0, 2], [1, 1], [1, 2]]
    # Reduced motion: no playing, but stepping by hand still works.
    page.emulate_media(reduced_motion="reduce")
    expect(play).to_be_disabled()
    expect(page.locator("#player-motion")).to_be_visible()
    forward.click()
    expect(caption).to_contain_text("Step 12 of 18")


def test_guide_ticks_each_step_persists_and_resets(widget):
    page = widget.page
    widget.open(f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    page.click("#guide-reset")
    steps = page.locator("#guide-steps")

    def done(step):
        return steps.locator(f'[data-guide-step="{step}"]').get_attribute("data-done") == "true"

    def expect_done(step):
        item = steps.locator(f'[data-guide-step="{step}"]')
        expect(item).to_have_attribute("data-done", "true")
        expect(item.locator(".guide-badge")).to_have_text("✓ Done")

    assert not any(done(step) for step in ["shared", "routing", "spread", "tie"])
    expect(page.locator("#guide-progress")).to_have_text("0 of 4 steps done.")
    # (1) 3 x 3, stride 1: the selected output's maximum is another output's maximum too.
    page.fill("#kernel", "3")
    page.fill("#stride", "1")
    widget.wait_settled()
    assert not done("shared")
    widget.cell("output", 0, 0).click()
    expect_done("shared")
    expect(page.locator("#announcer")).to_contain_text("Try it: done, Find the cell two outputs share.")
    # (2) 2 x 2, stride 2, gradient on, an output selected (output (0,0) still is).
    page.fill("#kernel", "2")
    page.fill("#stride", "2")
    widget.wait_settled()
    assert not done("routing")  # the gradient is off
    page.check("#gradient")
    expect_done("routing")
    # (3) Average pooling with the gradient on.
    page.click("#mode-avg")
    widget.wait_settled()
    expect_done("spread")
    assert not done("tie")
    # (4) A tie in the selected output's window: the Ties preset's first window holds three 3s.
    page.click("#mode-max")
    page.select_option("#preset", "ties")
    widget.wait_settled()
    widget.cell("output", 0, 1).click()  # window 1, 2, 2, 2: a tie of three 2s
    expect_done("tie")
    expect(page.locator("#guide-progress")).to_have_text("4 of 4 steps done.")
    # Progress survives a reload (localStorage); reset clears it, and the reset persists.
    page.reload()
    widget.wait_settled()
    expect_done("tie")
    expect(page.locator("#guide-progress")).to_have_text("4 of 4 steps done.")
    page.click("#guide-reset")
    expect(page.locator("#guide-progress")).to_have_text("0 of 4 steps done.")
    # The page still shows a tie (the Ties preset, output (0,1) selected) but a reset is a
    # reset: a step ticks again only after the learner does something.
    assert not done("tie")
    assert page.evaluate("localStorage.getItem('poolgrad-guide-v2|/index.html|page')") is None
    # (1) again, this time by clicking the shared input cell itself.
    widget.set_hash(f"#k=3&s=1&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    widget.wait_settled()
    widget.cell("input", 0, 0).click()
    page.keyboard.press("Escape")
    assert not done("shared")
    widget.cell("input", 1, 2).click()
    page.keyboard.press("Escape")
    expect_done("shared")
