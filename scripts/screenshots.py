"""Retakes the documentation's screenshots (docs/*.png) from the built site in headless Chromium.

Run it with `python scripts/screenshots.py [NAME ...]` after `python build.py test` has
installed Playwright and Chromium once. It builds dist/ (quick when nothing changed),
serves it on a free port of 127.0.0.1 and writes each picture named on the command line
(all of them by default) into docs/:

* widget.png: the page at 1280 px wide, from the top down to the grids, on the lesson's
  4 x 4 fixture with 3 x 3 windows, stride 1, the gradient on and output (0,1) selected.
* lesson.png: the same view at 1200 px wide down to the lesson and the "Try it" guide, the
  player at step 6 of 8 (the backward pass), the guide's first experiment done by a tap.
* embed-demo.png: the top of embed-demo.html (the host page with two widget iframes).
* exercise-panel.png and exercise-marks.png: the exercise panel after a real failing Run
  of the backward exercise ("last max wins" from tests/exercise_solutions.py), and the
  grids with the case it loaded and the wrong input-gradient cells marked.
* exercise-chain.png: the exercise panel in the chain view after a real failing Run of
  conv2d_backward (dL/dW "unweighted", tests/exercise_solutions.py): the lesson's conv
  example drawn in the panel, the nine wrong dL/dW cells marked.
* phone-dark.png: the default view's first screen on a 390 x 844 touch phone in the
  dark scheme.
* picture-1280.png, picture-736.png, picture-360.png: the picture view on Chelsea the cat,
  max pooling 2 x 2 repeated twice with the gradient on and a pixel selected (its window
  and zoom), at three widths; the 360 px one in the dark scheme, on a touch phone.

Every picture is deterministic: fixed viewports, device scale 1, light scheme unless
dark is the point, CSS animations finished, no random preset, service workers off, each view
settled (#status data-state="ready", the output grid not aria-busy) before it is taken,
with the pointer parked outside the page and nothing focused, so neither a caret nor a
hover or focus outline shows.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from exercise_solutions import BACKWARD, CONV  # noqa: E402  (tests/ holds the answers the tests type)
from lesson_fixture import FIXTURE  # noqa: E402
from widget_driver import BOOT_TIMEOUT_MS  # noqa: E402  (the widget's stall timeout and a margin)
RUN_TIMEOUT_MS = 120_000  # the first exercise Run starts the exercise worker's Python

OVERLAP = f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}&g=1,2;3,4"
LESSON_STEP = 6  # "Step 6 of 8, backward": output (0,1)'s gradient joins output (0,0)'s
MARGIN = 8  # px of page below the last panel a picture frames: half the gap to the next one


def context_options(**overrides):
    options = {
        "viewport": {"width": 1280, "height": 900},
        "device_scale_factor": 1,
        "color_scheme": "light",
        # Not "reduce": under it the player disables Play and says why, which is not the page
        # most people see. Screenshots are taken with CSS animations finished instead.
        "reduced_motion": "no-preference",
        "locale": "en-US",
        "timezone_id": "UTC",
        "service_workers": "block",
    }
    options.update(overrides)
    return options


def new_page(browser, **overrides):
    """A page in a fresh context that only reaches 127.0.0.1 (the site needs no other host)."""
    context = browser.new_context(**context_options(**overrides))
    context.route("**/*", lambda route: route.continue_()
                  if urlsplit(route.request.url).hostname == "127.0.0.1" else route.abort())
    page = context.new_page()
    page.set_default_timeout(30_000)
    return page


def wait_settled(frame):
    """Boot finished and the output grid shows the current state's trace."""
    from playwright.sync_api import expect

    status = frame.locator("#status")
    expect(status).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
    expect(frame.locator("#output-grid")).to_have_attribute("aria-busy", "false", timeout=BOOT_TIMEOUT_MS)
    expect(status).to_have_attribute("data-state", "ready")


def calm(page, has_mouse=True):
    """No hover outline (pointer parked at the page's corner), no focus ring or caret, and
    two frames drawn since the last change."""
    if has_mouse:
        page.mouse.move(0, 0)
    page.evaluate("document.activeElement?.blur()")
    page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def bottom_of(page, selectors):
    """The page y (px) of the lowest bottom edge among `selectors`, plus MARGIN."""
    return page.evaluate(
        """([selectors, margin]) => Math.ceil(Math.max(...selectors.map((selector) =>
            document.querySelector(selector).getBoundingClientRect().bottom)) + scrollY + margin)""",
        [selectors, MARGIN],
    )


def shoot_top(page, path, selectors):
    """The page from its top down to the lowest of `selectors`, at the viewport's width."""
    width = page.viewport_size["width"]
    height = bottom_of(page, selectors)
    page.screenshot(path=path, full_page=True, animations="disabled",
                    clip={"x": 0, "y": 0, "width": width, "height": height})


def widget_png(browser, site, path):
    page = new_page(browser, viewport={"width": 1280, "height": 900})
    page.goto(site + "index.html" + OVERLAP)
    wait_settled(page)
    calm(page)
    shoot_top(page, path, ["#stage"])
    page.context.close()


def lesson_png(browser, site, path):
    page = new_page(browser, viewport={"width": 1200, "height": 900})
    page.goto(site + "index.html" + OVERLAP)
    wait_settled(page)
    # The learner's own tap ticks the guide's first experiment (a link's view ticks nothing).
    page.locator('[data-grid="output"][data-row="0"][data-col="1"]').click()
    page.locator('#guide [data-guide-step="shared"][data-done="true"]').wait_for()
    for _ in range(LESSON_STEP + 1):  # step 0 is "nothing computed yet"
        page.click("#player-forward")
    page.locator("#player-caption").filter(has_text=f"Step {LESSON_STEP} of 8, backward").wait_for()
    calm(page)
    shoot_top(page, path, ["#lesson", "#guide"])
    page.context.close()


def embed_demo_png(browser, site, path):
    page = new_page(browser, viewport={"width": 1100, "height": 900})
    page.goto(site + "embed-demo.html")
    for index in range(2):
        wait_settled(page.frame_locator("iframe.widget-frame").nth(index))
    # The host sizes each frame from the height its widget posts: wait until they agree.
    page.wait_for_function("""() => [...document.querySelectorAll('iframe.widget-frame')].every((frame) =>
        Math.abs(frame.clientHeight - frame.contentDocument.documentElement.getBoundingClientRect().height) <= 1)""")
    calm(page)
    # Down to the second widget's player, as the picture has always been framed.
    height = page.evaluate("""(margin) => {
        const frame = document.querySelectorAll('iframe.widget-frame')[1];
        const player = frame.contentDocument.querySelector('#player').getBoundingClientRect();
        return Math.ceil(frame.getBoundingClientRect().top + frame.clientTop + player.bottom + scrollY + margin);
    }""", MARGIN)
    page.screenshot(path=path, full_page=True, animations="disabled",
                    clip={"x": 0, "y": 0, "width": 1100, "height": height})
    page.context.close()


def run_failing(page, exercise, code):
    """Runs `code` for `exercise` in the panel and waits for its failing result."""
    from playwright.sync_api import expect

    page.select_option("#exercise-pick", exercise)
    page.fill("#exercise-code", code)
    page.click("#exercise-run")
    result = page.locator("#exercise-result")
    expect(result).not_to_have_attribute("data-state", "running", timeout=RUN_TIMEOUT_MS)
    expect(result).to_have_attribute("data-state", "fail")


def exercise_pngs(browser, site, panel_path, marks_path):
    from playwright.sync_api import expect

    page = new_page(browser, viewport={"width": 1100, "height": 900})
    page.goto(site + "index.html")
    wait_settled(page)
    run_failing(page, "backward", BACKWARD["last_max_wins"])
    wait_settled(page)
    expect(page.locator("[data-mismatch]")).to_have_count(2)
    # Start the editor's view at its first line, as a learner reading the result sees it.
    page.evaluate("document.querySelector('#exercise-code').scrollTo(0, 0)")
    calm(page)
    page.locator("#exercise").screenshot(path=panel_path, animations="disabled")
    page.locator("#stage").screenshot(path=marks_path, animations="disabled")
    page.context.close()


def exercise_chain_png(browser, site, path):
    from playwright.sync_api import expect

    page = new_page(browser, viewport={"width": 1100, "height": 900})
    page.goto(site + "index.html#view=chain")
    expect(page.locator("#status")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
    run_failing(page, "conv2d_backward", CONV["unweighted"])
    expect(page.locator("#exercise-case [data-mismatch]")).to_have_count(9)
    page.evaluate("document.querySelector('#exercise-code').scrollTo(0, 0)")
    calm(page)
    page.locator("#exercise").screenshot(path=path, animations="disabled")
    page.context.close()


def phone_dark_png(browser, site, path):
    page = new_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                    color_scheme="dark")
    page.goto(site + "index.html")
    wait_settled(page)
    calm(page, has_mouse=False)
    page.screenshot(path=path, animations="disabled")
    page.context.close()


PICTURE_VIEW = "#k=2&s=2&p=0&d=1&mode=max&grad=1&view=picture&pic=chelsea&prep=2&psel=9,20"


def picture_pngs(browser, site, paths):
    from playwright.sync_api import expect

    for width, path in paths.items():
        phone = width < 520
        page = new_page(browser, viewport={"width": width, "height": 900}, is_mobile=phone, has_touch=phone,
                        color_scheme="dark" if phone else "light")
        page.goto(site + "index.html" + PICTURE_VIEW)
        expect(page.locator("#status")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
        expect(page.locator('td[data-grid="zoom-output"]')).to_have_count(1, timeout=BOOT_TIMEOUT_MS)
        expect(page.locator("#picture-row")).to_have_attribute("aria-busy", "false")
        calm(page, has_mouse=not phone)
        page.locator("#picture").screenshot(path=path, animations="disabled")
        page.context.close()


SHOTS = {
    "widget": lambda browser, site: widget_png(browser, site, DOCS / "widget.png"),
    "lesson": lambda browser, site: lesson_png(browser, site, DOCS / "lesson.png"),
    "embed-demo": lambda browser, site: embed_demo_png(browser, site, DOCS / "embed-demo.png"),
    "exercise": lambda browser, site: exercise_pngs(browser, site, DOCS / "exercise-panel.png",
                                                    DOCS / "exercise-marks.png"),
    "exercise-chain": lambda browser, site: exercise_chain_png(browser, site, DOCS / "exercise-chain.png"),
    "phone-dark": lambda browser, site: phone_dark_png(browser, site, DOCS / "phone-dark.png"),
    "picture": lambda browser, site: picture_pngs(browser, site, {
        1280: DOCS / "picture-1280.png", 736: DOCS / "picture-736.png", 360: DOCS / "picture-360.png"}),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"which pictures to retake (default: all): {', '.join(SHOTS)}")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in SHOTS]
    if unknown:
        parser.error(f"unknown picture {', '.join(unknown)}: choose from {', '.join(SHOTS)}")
    names = args.names or list(SHOTS)

    import sitebuild

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("screenshots: Playwright for Python is missing: run `python build.py test` once "
              "(or pip install playwright)", file=sys.stderr)
        return 2
    executable = sitebuild.find_chromium()
    if not executable:
        print("screenshots: no Chromium: run `python build.py test` once as root (it installs "
              "Debian's chromium) or set POOLGRAD_CHROMIUM", file=sys.stderr)
        return 2
    try:
        dist = Path(sitebuild.build(quiet=True))
    except sitebuild.BuildError as error:
        print(f"screenshots: build failed: {error}", file=sys.stderr)
        return 1

    # A request log: no line printed per request.
    with sitebuild.serving(dist, request_log=[]) as site, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=sitebuild.CHROMIUM_ARGS)
        try:
            for name in names:
                SHOTS[name](browser, site)
                print(f"screenshots: {name} done", flush=True)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
