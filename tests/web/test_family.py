"""The rest of PyTorch's pooling family in the widget: the adaptive modes (an output size,
windows that change size and share cells), LP pooling (a norm type), unpooling beside the
input gradient, the two presets, and the fields that do not apply saying why."""

from playwright.sync_api import expect

from lesson_fixture import FIXTURE

FIVE = "1,2,3,4,5;6,7,8,9,10;11,12,13,14,15;16,17,18,19,20;21,22,23,24,25"


def test_the_adaptive_modes_take_an_output_size_and_disable_the_window_fields_saying_why(booted):
    page = booted.open(f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}").page
    for field in ("#output-size", "#norm-type"):
        expect(page.locator(field)).to_be_disabled()
    page.select_option("#mode", "adaptive_avg")
    booted.wait_settled()
    for field in ("#kernel", "#stride", "#padding", "#dilation", "#norm-type", "#ceil", "#unpool"):
        expect(page.locator(field)).to_be_disabled()
    expect(page.locator("#output-size")).to_be_enabled()
    expect(page.locator("#window-reason")).to_contain_text(
        "Kernel, stride, padding and dilation do not apply: the adaptive modes place their windows by the output size alone.")
    expect(page.locator("#window-reason")).to_be_visible()
    page.fill("#output-size", "1")
    booted.wait_settled()
    assert booted.values("output") == [["1.5"]]
    assert "mode=adaptive_avg&o=1&" in booted.hash()
    page.fill("#output-size", "3,2")
    booted.wait_settled()
    assert len(booted.values("output")) == 3 and len(booted.values("output")[0]) == 2
    assert "o=3,2" in booted.hash()
    page.select_option("#mode", "max")
    booted.wait_settled()
    expect(page.locator("#kernel")).to_be_enabled()
    expect(page.locator("#window-reason")).to_be_hidden()
    expect(page.locator("#output-size")).to_be_disabled()
    assert "o=" not in booted.hash()
    page.select_option("#mode", "avg")
    booted.wait_settled()
    expect(page.locator("#window-reason")).to_have_text("Dilation does not apply: average pooling has none (avg_pool2d takes no dilation).")


def test_adaptive_windows_change_size_and_shared_cells_are_marked(booted):
    page = booted.open(f"#k=2&s=2&p=0&d=1&mode=adaptive_avg&o=3&grad=1&sel=1,1&x={FIVE}").page
    assert booted.values("output") == [["4", "5.5", "7"], ["11.5", "13", "14.5"], ["19", "20.5", "22"]]
    sizes = page.evaluate("""[...document.querySelectorAll('[data-grid="output"]')].map((c) => c.dataset.windowSize)""")
    assert sizes == ["2 × 2", "2 × 3", "2 × 2", "3 × 2", "3 × 3", "3 × 2", "2 × 2", "2 × 3", "2 × 2"]
    # The selected (1,1) window is rows 1-3, cols 1-3: 9 cells.
    assert sorted(booted.marked("data-in-window")) == [[r, c] for r in (1, 2, 3) for c in (1, 2, 3)]
    shared = dict(((r, c), n) for r, c, n in page.evaluate(
        """[...document.querySelectorAll('[data-grid="input"][data-shared]')]
            .map((c) => [Number(c.dataset.row), Number(c.dataset.col), Number(c.dataset.shared)])"""))
    assert shared[(1, 1)] == 4 and shared[(1, 0)] == 2 and (0, 0) not in shared and (2, 2) not in shared
    expect(booted.cell("input", 1, 1)).to_have_attribute("aria-label", "Input row 1, col 1: 7; in the windows of 4 outputs; in the window of output (1,1)")
    expect(page.locator("#explanation")).to_contain_text("is the mean of the window rows 1–3, cols 1–3 (3 × 3, placed by the output size)")
    expect(page.locator("#formula")).to_contain_text("rows: 5 into 3: [0, 2), [1, 4), [3, 5)")
    # The input gradient: 1/4 + 1/6 + 1/6 + 1/9 on the cell four windows share.
    expect(booted.cell("grad-input", 1, 1)).to_have_text("0.6944")


def test_unpooling_shows_beside_the_gradient_and_the_lesson_says_where_they_differ(booted):
    page = booted.open(f"#k=3&s=1&p=0&d=1&mode=max&grad=1&x={FIXTURE}").page
    expect(page.locator("[data-unpool-panel]")).to_be_hidden()
    page.check("#unpool")
    booted.wait_settled()
    assert "unpool=1" in booted.hash()
    expect(page.locator("[data-unpool-panel]")).to_be_visible()
    assert booted.values("unpooled") == [["0", "0", "0", "0"], ["0", "0", "8", "0"], ["0", "0", "0", "0"], ["0", "9", "0", "0"]]
    assert booted.values("grad-input")[1][2] == "2"
    expect(booted.cell("unpooled", 1, 2)).to_have_attribute("data-shared", "2")
    note = page.locator("#unpool-note")
    expect(note).to_contain_text("cell (1,2), chosen by outputs (0,0) and (0,1), holds one value, 8")
    expect(note).to_contain_text("while the gradient adds their 2: 1 + 1 = 2")
    expect(page.locator('#lesson-text [data-topic="unpool"]')).to_contain_text("holds one value, 8")
    page.select_option("#mode", "avg")
    booted.wait_settled()
    expect(page.locator("#unpool")).to_be_disabled()
    expect(page.locator("[data-unpool-panel]")).to_be_hidden()
    assert "unpool" not in booted.hash()
    page.select_option("#mode", "adaptive_max")
    booted.wait_settled()
    expect(page.locator("[data-unpool-panel]")).to_be_visible()
    assert "mode=adaptive_max&o=2&grad=1&unpool=1" in booted.hash()


def test_lp_pooling_takes_a_norm_type(booted):
    page = booted.open(f"#k=2&s=2&p=1&d=1&mode=max&grad=0&x={FIXTURE}").page
    page.select_option("#mode", "lp")
    booted.wait_settled()
    expect(page.locator("#padding")).to_be_disabled()
    expect(page.locator("#padding")).to_have_value("0")
    expect(page.locator("#window-reason")).to_have_text("Padding and dilation do not apply: LP pooling has neither (lp_pool2d takes no padding and no dilation).")
    assert booted.values("output") == [["5.4772", "13.1909"], ["9.8995", "8.6023"]]
    page.fill("#norm-type", "1")
    booted.wait_settled()
    assert booted.values("output") == [["10", "26"], ["4", "-16"]]
    assert "mode=lp&n=1&" in booted.hash()
    page.fill("#norm-type", "Infinity")
    booted.wait_settled()
    assert booted.values("output") == [["4", "8"], ["9", "6"]]
    expect(page.locator("#explanation")).to_contain_text("is the largest |x| (p = ∞)")
    page.fill("#norm-type", "0")
    expect(page.locator("#status")).to_contain_text("norm type (n) must not be 0")


def test_the_presets_load_global_and_adaptive_pooling(booted):
    page = booted.open(f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}").page
    page.select_option("#preset", "global_avg")
    booted.wait_settled()
    assert booted.values("output") == [["1.5"]]
    expect(page.locator("#mode")).to_have_value("adaptive_avg")
    expect(page.locator("#output-size")).to_have_value("1")
    expect(page.locator("#preset")).to_have_value("global_avg")
    expect(page.locator('#lesson-text [data-topic="global"]')).to_contain_text("become one, their mean 1.5")
    page.select_option("#preset", "adaptive_overlap")
    booted.wait_settled()
    assert booted.values("output") == [["4", "5.5", "7"], ["11.5", "13", "14.5"], ["19", "20.5", "22"]]
    assert booted.hash().startswith("#k=2&s=2&p=0&d=1&mode=adaptive_avg&o=3&grad=0&")
    assert [o.strip() for o in page.locator("#preset option").all_text_contents()][4:6] == [
        "Global average pooling (output 1 × 1)", "Adaptive 5 × 5 → 3 × 3 (windows overlap)"]


def test_axe_finds_nothing_in_the_family_s_views(booted):
    from widget_driver import axe_violations

    for hash_ in (f"#k=2&s=2&p=0&d=1&mode=adaptive_max&o=3&grad=1&unpool=1&sel=1,1&x={FIVE}",
                  f"#k=2&s=2&p=0&d=1&mode=lp&n=2&grad=1&x={FIXTURE}"):
        page = booted.open(hash_).page
        assert axe_violations(page) == [], hash_
