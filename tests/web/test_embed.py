"""Embedding and hosting: ?embed=1 and &lesson=0, the size messages a host page sizes its
iframes with (web/embed-demo.html), the phone layout at 360 x 640 with touch, and
relative URLs only (the site works under any sub-path)."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from lesson_fixture import FIXTURE
from widget_driver import Widget, page_of_its_own, wait_settled


ROOT = Path(__file__).resolve().parents[2]
AVG_EXAMPLE = "12,10,9,6;11,8,13,5;2,14,15,0;4,3,7,1"
BIG = ";".join(",".join(str((r * 7 + c * 3) % 19 - 9) for c in range(16)) for r in range(16))
LESSON_PANELS = ("lesson", "player", "guide")


def chrome_shown(page):
    """Whether the page's header takes any room (embedded, its h1 is for screen readers only)."""
    return page.evaluate("document.querySelector('.masthead').getBoundingClientRect().height > 2")


def lesson_panels_hidden(page):
    """Whether #lesson, #player and #guide are all hidden. Each must exist: a page that
    lost a panel fails here instead of passing for want of something to hide."""
    states = page.evaluate(
        """ids => ids.map((id) => {
            const panel = document.getElementById(id);
            return panel ? getComputedStyle(panel).display === "none" : "missing";
        })""",
        list(LESSON_PANELS),
    )
    missing = [panel for panel, state in zip(LESSON_PANELS, states) if state == "missing"]
    assert not missing, f"the page has no #{', #'.join(missing)}"
    return all(states)


def test_embed_view_is_compact_and_keeps_the_state_in_the_hash(widget):
    page = widget.page
    widget.open(f"#k=3&s=1&p=0&d=1&mode=max&grad=0&x={FIXTURE}", path="index.html?embed=1&lesson=0")
    assert page.evaluate("document.documentElement.dataset.embed") == "1"
    assert not chrome_shown(page)
    expect(page.get_by_role("heading", level=1)).to_have_count(1)
    for control in ("#kernel", "#stride", "#mode", "#gradient", "#preset", "#status"):
        expect(page.locator(control)).to_be_visible()
    assert lesson_panels_hidden(page)
    assert widget.values("output") == [["8", "8"], ["9", "9"]]
    widget.cell("output", 1, 0).click()
    assert widget.marked("data-argmax") == [[3, 1]]
    page.check("#gradient")
    widget.wait_settled()
    # Query parameters configure the page; the hash alone carries (and is rewritten to) the state.
    assert page.evaluate("location.search") == "?embed=1&lesson=0"
    assert widget.hash() == f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=1,0&x={FIXTURE}"
    # Not framed: nothing to size, and the page says nothing to anyone.
    assert page.evaluate("window.parent === window")


def test_lesson_shows_by_default_and_embed_is_off_without_the_query(widget):
    """Layout only: no need to wait for Python."""
    page = widget.page
    widget.open(path="index.html?embed=1", wait=False)
    assert not lesson_panels_hidden(page)
    assert not chrome_shown(page)
    widget.open(path="index.html?lesson=1", wait=False)
    assert page.evaluate("document.documentElement.dataset.embed") is None
    assert chrome_shown(page)


def displayed(page, selectors):
    """Whether each element (which must exist) takes part in the layout."""
    return page.evaluate("""selectors => selectors.map((selector) => {
        const element = document.querySelector(selector);
        return element ? getComputedStyle(element).display !== "none" : "missing";
    })""", selectors)


def test_code_0_hides_the_code_panel_and_the_formula_and_lesson_0_leaves_them(widget):
    """Layout only: each query key hides its own panels (docs/embedding.md's table)."""
    page = widget.page
    shown = ["#code", "#formula-box"]
    widget.open(path="index.html?embed=1&lesson=0", wait=False)
    assert displayed(page, shown) == [True, True]
    widget.open(path="index.html?embed=1&code=0", wait=False)
    assert displayed(page, shown) == [False, False]
    assert not lesson_panels_hidden(page)
    widget.open(path="index.html?embed=1&lesson=0&code=0", wait=False)
    assert displayed(page, shown + ["#kernel", "#stride", "#mode", '[data-grid="input"]']) == [False, False, True, True, True, True]
    assert lesson_panels_hidden(page)


def test_the_exercise_picker_uses_the_pages_own_font(widget):
    # A <select> does not inherit its font: it had the browser's smaller, unstyled one.
    widget.open(wait=False)
    fonts = widget.page.evaluate("""() => ["#exercise-pick", "#exercise-task"].map((selector) => {
        const style = getComputedStyle(document.querySelector(selector));
        return [style.fontFamily, style.fontSize];
    })""")
    assert fonts[0] == fonts[1]


def frame_heights(page):
    """[(iframe's content-box height, the embedded document's own height)] per widget."""
    heights = []
    for handle in page.query_selector_all("iframe.widget-frame"):
        inner = handle.content_frame().evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
        heights.append((handle.evaluate("frame => frame.clientHeight"), inner))
    return heights


def test_demo_host_page_sizes_each_frame_from_its_messages(page, site):
    page.goto(site.url + "embed-demo.html")
    frames = page.frame_locator("iframe.widget-frame")
    average, maximum = frames.nth(0), frames.nth(1)
    for frame in (average, maximum):
        wait_settled(frame)
    expect(average.locator('[data-grid="output"]')).to_have_text(["10.25", "8.25", "5.75", "5.75"])
    expect(average.locator('[data-grid="grad-input"][data-row="0"][data-col="0"]')).to_have_text("0.25")
    expect(maximum.locator('[data-grid="output"]')).to_have_text(["8", "8", "9", "9"])
    expect(maximum.locator('[data-argmax="true"]')).to_have_attribute("data-col", "2")
    assert lesson_panels_hidden(page.frames[1]) and not lesson_panels_hidden(page.frames[2])

    def sized():
        return all(abs(outer - inner) <= 1 for outer, inner in frame_heights(page))

    for _ in range(50):
        if sized():
            break
        page.wait_for_timeout(100)
    assert sized(), frame_heights(page)
    # The frame shrinks with its content: gradient off hides two panels.
    before = frame_heights(page)[0][0]
    average.locator("#gradient").uncheck()
    for _ in range(50):
        if frame_heights(page)[0][0] < before and sized():
            break
        page.wait_for_timeout(100)
    assert frame_heights(page)[0][0] < before and sized(), (before, frame_heights(page))
    # No frame scrolls inside: the host shows all of each widget.
    for handle in page.query_selector_all("iframe.widget-frame"):
        inner = handle.content_frame()
        assert inner.evaluate("document.scrollingElement.scrollHeight <= innerHeight + 1")
        assert inner.evaluate("location.search").startswith("?embed=1")


def no_horizontal_scroll(page):
    return page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")


@pytest.fixture
def phone(browser, site):
    """The Widget driver on a 360 x 640 touch screen (no mouse hover), with requests
    limited to the local server."""
    with page_of_its_own(browser, viewport={"width": 360, "height": 640}, has_touch=True) as page:
        yield Widget(page, site)


def test_phone_tap_selects_and_nothing_scrolls_sideways(phone):
    widget = phone
    page = widget.page
    widget.open()
    assert no_horizontal_scroll(page), "default view"
    widget.cell("output", 0, 1).tap()
    expect(widget.cell("output", 0, 1)).to_have_attribute("aria-selected", "true")
    assert widget.marked("data-argmax") == [[1, 2]]
    assert no_horizontal_scroll(page), "selected"
    states = {
        "gradient on, 3 x 3 stride 1": f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}",
        "average": f"#k=2&s=2&p=0&d=1&mode=avg&grad=1&sel=1,1&x={AVG_EXAMPLE}",
        "16 x 16 with padding and gradient": f"#k=3&s=1&p=1&d=1&mode=max&grad=1&sel=2,3&x={BIG}",
    }
    for name, hash_ in states.items():
        widget.set_hash(hash_)
        widget.wait_settled()
        assert no_horizontal_scroll(page), name
    widget.cell("output", 5, 5).tap()
    expect(widget.cell("output", 5, 5)).to_have_attribute("aria-selected", "true")
    widget.set_hash(f"#k=9&s=1&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    widget.wait_settled("error")
    assert no_horizontal_scroll(page), "error"
    widget.open(f"#k=2&s=2&p=1&d=1&mode=max&grad=1&sel=2,3&x={BIG}", path="index.html?embed=1")
    assert no_horizontal_scroll(page), "embed, 16 x 16"


# Absolute paths in markup, CSS and scripts: src="/x", href="/x", url(/x), fetch("/x"),
# new URL("/x", ...), import("/x"), and any scheme-relative or http(s) URL.
ABSOLUTE = re.compile(
    r"""(?:\b(?:src|href|action)\s*=\s*["']?|url\(\s*["']?|(?:fetch|URL|import)\(\s*["'`])(?:/|https?:)"""
)


def test_front_end_uses_relative_urls_only():
    offenders = []
    for path in sorted((ROOT / "web").rglob("*")):
        if path.suffix not in {".html", ".js", ".css"}:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ABSOLUTE.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


IMPORTS = re.compile(r"""^\s*(?:import|export)\b[^"';]*?from\s+["'](\.{1,2}/[\w/.-]+\.js)["']|^\s*import\s+["'](\.{1,2}/[\w/.-]+\.js)["']""", re.M)


def import_graph(*entries):
    """Every module of web/ that the `entries` (paths under web/) import, directly or not,
    as paths under web/ (the entries themselves only when imported)."""
    web = ROOT / "web"
    graph, pending = set(), [web / entry for entry in entries]
    while pending:
        module = pending.pop()
        for match in IMPORTS.finditer(module.read_text(encoding="utf-8")):
            imported = (module.parent / (match.group(1) or match.group(2))).resolve()
            name = imported.relative_to(web).as_posix()
            if name not in graph:
                graph.add(name)
                pending.append(imported)
    return graph


def test_every_module_app_js_imports_is_preloaded():
    """index.html preloads the whole static import graph of its module scripts, so the
    modules load in parallel rather than one import level at a time; a module added to the
    graph needs a line too, and a preload nothing imports is a wasted request."""
    html = (ROOT / "web" / "index.html").read_text(encoding="utf-8")
    preloaded = set(re.findall(r'<link rel="modulepreload" href="\./([\w./-]+\.js)">', html))
    started = set(re.findall(r'<script type="module"[^>]*src="\./([\w./-]+\.js)"', html))
    graph = import_graph(*sorted(started))
    assert started and {"app.js", "widget/mount.js"} <= started | graph
    assert graph - started == preloaded


# The pages' module entries and the workers': what the HTML pages start (element.js through
# pool-grad.js) and what the page starts a worker with.
PAGE_ENTRIES = ("app.js", "runtime/early.js", "element.js", "element-demo.js", "embed-demo.js")
WORKER_ENTRIES = ("runtime/worker.js", "runtime/shared-worker.js", "exercise/exercise-worker.js",
                  "exercise/exercise-judge.js")


def test_the_page_and_the_workers_share_no_module():
    """A module the page and a worker both import is fetched twice in WebKit (its cache
    keeps one copy per URL, and the worker's request replaces the page's), on every visit
    without the service worker: the engines test of each file once saw it with
    boot-steps.js."""
    for entry in PAGE_ENTRIES + WORKER_ENTRIES:
        assert (ROOT / "web" / entry).is_file(), entry
    workers = import_graph(*WORKER_ENTRIES) | set(WORKER_ENTRIES)
    assert "runtime/python-runtime.js" in workers
    assert (import_graph(*PAGE_ENTRIES) | set(PAGE_ENTRIES)) & workers == set()


# -- the host page's side (issue 22): the sizing script, across origins, pasted twice ----

def _sized(page, selector):
    """Wait until every frame matching `selector` is as tall as its document (within 1 px),
    each scrolled into view first: Chromium lays out no cross-origin frame off the screen,
    so such a frame tells its height once the reader gets to it."""
    for handle in page.query_selector_all(selector):
        handle.scroll_into_view_if_needed()
        page.wait_for_timeout(300)

    def check():
        pairs = []
        for handle in page.query_selector_all(selector):
            inner = handle.content_frame().evaluate(
                "Math.ceil(document.documentElement.getBoundingClientRect().height)")
            pairs.append((handle.evaluate("frame => frame.clientHeight"), inner))
        return pairs and all(abs(outer - inner) <= 1 for outer, inner in pairs), pairs

    for _ in range(100):
        ok, pairs = check()
        if ok:
            return pairs
        page.wait_for_timeout(100)
    raise AssertionError(f"frames not sized to their content: {pairs}")


def test_widgets_from_another_origin_size_themselves_in_the_demo_page(page, site, serve_directory, dist):
    # The demo page from one origin, the widgets from another (another port): a course site
    # framing a widget published elsewhere. The old script dropped every such message.
    host = serve_directory(dist)
    assert host.url != site.url
    page.goto(f"{host.url}embed-demo.html?site={site.url}")
    frames = page.frame_locator("iframe[data-poolgrad]")
    for index in (0, 1):
        wait_settled(frames.nth(index))
    origins = [handle.content_frame().evaluate("location.origin")
               for handle in page.query_selector_all("iframe[data-poolgrad]")]
    assert origins == [site.url.rstrip("/")] * 2
    expect(page.locator("#demo-origin")).to_contain_text(site.url.rstrip("/"))
    pairs = _sized(page, "iframe[data-poolgrad]")
    assert all(outer > 640 for outer, _ in pairs), pairs  # not the 640 px guess


def _copied_embed_code(page):
    """What "Copy embed code" copied: the clipboard's text after a click on #copy-embed."""
    if not page.evaluate("document.getElementById('code').open"):
        page.locator("#code > summary").click()
    page.locator("#copy-embed").click()
    expect(page.locator("#code-message")).to_have_text("Copied the embed code.")
    return page.evaluate("navigator.clipboard.readText()")


def test_the_copied_embed_code_pasted_twice_into_a_new_page_gives_two_sized_widgets(
        browser, site, serve_directory, tmp_path):
    with page_of_its_own(browser, permissions=["clipboard-read", "clipboard-write"]) as page:
        page.goto(f"{site.url}index.html#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}")
        wait_settled(page)
        first = _copied_embed_code(page)
        second = _copied_embed_code(page)
        assert first != second  # each copy is a widget of its own
        for code in (first, second):
            assert 'loading="lazy"' in code and 'allow="clipboard-write"' in code
            assert 'title="poolgrad: max pooling, 3 × 3 window, stride 1, gradient routing"' in code
            assert "Needed once per" in code and "<script>" in code
        ids = [re.search(r'<iframe id="([^"]+)"', code).group(1) for code in (first, second)]
        assert ids[0] != ids[1]
        # A teacher's new page on another origin, with both pastes and nothing else.
        (tmp_path / "lesson.html").write_text(
            "<!doctype html><meta charset=utf-8><title>A lesson</title><h1>Pooling</h1>"
            f"<p>First widget.</p>{first}<p>Second widget.</p>{second}", encoding="utf-8")
        host = serve_directory(tmp_path)
        page.goto(host.url + "lesson.html")
        frames = page.frame_locator("iframe[data-poolgrad]")
        for index in (0, 1):
            wait_settled(frames.nth(index))
            expect(frames.nth(index).locator('[data-grid="output"]')).to_have_text(["8", "8", "9", "9"])
        _sized(page, "iframe[data-poolgrad]")
        assert page.evaluate("window.poolgradFramesSized") is True
        searches = [handle.content_frame().evaluate("location.search")
                    for handle in page.query_selector_all("iframe[data-poolgrad]")]
        assert [re.search(r"[?&]id=([^&]+)", s).group(1) for s in searches] == [i.removeprefix("poolgrad-") for i in ids]


@pytest.mark.parametrize("width, height", [(360, 640), (736, 900), (1280, 800)])
def test_the_input_and_output_grids_begin_on_the_frames_first_screen(browser, site, width, height):
    # The widget with its lesson, as a frame shows it (embed=1): a 736 px course column on
    # a 900 px screen had the output 1,100 px down, below the player and the input gradient.
    with page_of_its_own(browser, viewport={"width": width, "height": height}) as page:
        page.goto(f"{site.url}index.html?embed=1#k=2&s=2&p=0&d=1&mode=max&grad=1&x={FIXTURE}")
        wait_settled(page)
        tops = page.evaluate("""() => ['#input-grid', '#output-grid', '#player'].map(
            (s) => document.querySelector(s).getBoundingClientRect().top)""")
        assert tops[0] < height and tops[1] < height, (width, tops)
        if width <= 1000:
            assert tops[2] > tops[1]  # the player follows the grids; wider, it fits above them
