"""The browser tests' driver of the widget: opens views and reads the grids through the
widget's DOM contract (docs/design.md, "The widget's DOM contract"). Importable by any test
(tests/conftest.py puts this folder on the path); tests/web/conftest.py's fixtures hand one
out per test (``widget``: a fresh page; ``booted``: the module's shared, booted page).
The benchmarks and scripts/screenshots.py take its timeouts: importing it needs no
Playwright."""

import json
import math
import re
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

# The widget's boot fails by itself, naming the step, once its worker has reported no
# progress for this long: read from its one home, the page's side of the worker.
BOOT_STALL_MS = int(re.search(r"^const BOOT_STALL_MS = (\d+);$", (
    Path(__file__).resolve().parents[1] / "web" / "runtime" / "bridge.js").read_text(), re.M).group(1))
# How long a test, a benchmark or a screenshot waits for a boot: the stall timeout and a
# margin, so a boot that stalls ends in the page's own error rather than in the wait's.
BOOT_TIMEOUT_MS = BOOT_STALL_MS + 30_000

# A grid's cell texts, row by row (padding left out): a JavaScript function of the grid's
# name, for Playwright's evaluate and, in the engines suite, Selenium's execute_script.
GRID_ROWS = """(grid) => {
    const rows = new Map();
    for (const cell of document.querySelectorAll(`[data-grid="${grid}"]:not([data-pad])`)) {
        const row = Number(cell.dataset.row);
        if (!rows.has(row)) rows.set(row, []);
        rows.get(row).push(cell.textContent);
    }
    return [...rows.keys()].sort((a, b) => a - b).map((row) => rows.get(row));
}"""

# Reports CSP violations to the console, where watched_page collects them.
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
});
"""

# A JavaScript expression: the first stride of a worker request, which the page sends as
# its key text (state.js requestKey, a JSON object of poolgrad.trace()'s arguments) and a
# raw request (window.poolgradWidget.trace) as an object; for test doubles of the worker.
REQUEST_STRIDE = "((request) => [(typeof request === 'string' ? JSON.parse(request) : request)?.stride].flat()[0])"


# For an init script: the page runs a dedicated Python worker (as where the browser has no
# SharedWorker). Playwright neither sees nor routes a shared worker's requests in Chromium
# (playwright#33917, #36690), so a test that routes the worker's script or the files it
# fetches uses it.
DEDICATED_WORKER = "delete window.SharedWorker;"

# For conftest's hold_back: held back, Pyodide's runtime keeps Python from starting.
PYTHON_RUNTIME = ["**/pyodide.asm.wasm"]


def build_info(root):
    """A built site's build-info.json (`root` is its folder, e.g. dist/) as a dict."""
    return json.loads((root / "build-info.json").read_text(encoding="utf-8"))


def shown(value):
    """A number as the grids show it (web/widget/format.js formatNumber): up to 4 decimals,
    trailing zeros dropped, integers exactly (-0 as -0), a value rounding to zero as 0, the
    infinities as ∞ and -∞."""
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == 0 and math.copysign(1, value) < 0:
        return "-0"
    if value == int(value):
        return str(int(value))
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def wait_settled(where, state="ready"):
    """Wait until the widget in `where` (a page, a frame or a frame locator) has booted and
    its output matches the current state, then check that its status is `state`."""
    from playwright.sync_api import expect

    status = where.locator("#status")
    expect(status).not_to_have_attribute("data-state", "loading", timeout=BOOT_TIMEOUT_MS)
    expect(where.locator("#output-grid")).to_have_attribute("aria-busy", "false")
    expect(status).to_have_attribute("data-state", state)


def guarded_context(browser, **options):
    """A new browser context (Playwright ``new_context`` options; a 1280 x 900 viewport
    unless given) that refuses any request not aimed at 127.0.0.1 and records it in
    ``context.foreign_requests``: the site must need no other host."""
    options.setdefault("viewport", {"width": 1280, "height": 900})
    context = browser.new_context(**options)
    foreign = []

    def guard(route):
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    context.foreign_requests = foreign
    return context


@contextmanager
def context_of_its_own(browser, **options):
    """A new guarded context (``guarded_context`` options), closed afterwards, when it must
    have asked no other host and its pages made with ``watched_page(context, context.problems)``
    must have had no uncaught errors or CSP violations."""
    context = guarded_context(browser, **options)
    context.problems = []
    try:
        yield context
    finally:
        context.close()
    assert context.foreign_requests == [], f"requests to other hosts: {context.foreign_requests}"
    assert context.problems == [], context.problems


@contextmanager
def page_of_its_own(browser, **options):
    """A watched page in a ``context_of_its_own`` (service workers blocked unless given):
    closed afterwards, when it must have asked no other host and had no problems."""
    options.setdefault("service_workers", "block")
    with context_of_its_own(browser, **options) as context:
        yield watched_page(context, context.problems)


def watched_page(context, problems=None):
    """A new page that keeps its uncaught errors and CSP violations in ``page.problems``
    (the given list, to share one between pages)."""
    page = context.new_page()
    page.problems = [] if problems is None else problems
    page.add_init_script(CSP_LISTENER)
    page.on("pageerror", lambda error: page.problems.append(f"page error: {error}"))
    page.on("console", lambda message: message.text.startswith("CSP violation") and page.problems.append(message.text))
    return page


def axe_violations(page):
    """axe-core's violations on `page` (every rule axe runs by default: WCAG 2.0/2.1 A and AA
    and best practices), one readable line per failing node. axe-core comes bundled with
    axe-playwright-python, injected by DevTools evaluation, which the page's CSP does not govern."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {node['target']} {node['failureSummary']}" for v in found for node in v["nodes"]]


class Widget:
    """Drives the widget through its DOM contract (docs/design.md, "The widget's DOM contract")."""

    def __init__(self, page, site, reuse=False):
        self.page = page
        self.site = site
        self.reuse = reuse  # keep a booted page and change its hash (the `booted` fixture)

    def open(self, hash_="", path="index.html", wait=True):
        url = self.site.url + path
        if self.reuse and wait and self.page.url.split("#")[0] == url:
            # Through the default view first, so the view state a previous test left (a
            # step-through position, an open editor, a focused field) goes with the state
            # it belonged to.
            self.page.evaluate("document.activeElement?.blur()")
            self.set_hash("#")
            self.wait_settled()
            self.set_hash(hash_ or "#")
        else:
            self.page.goto(url + hash_)
        if wait:
            self.wait_settled()
        return self

    def wait_settled(self, state="ready"):
        """Wait for boot to finish and for the output to match the current state."""
        wait_settled(self.page, state)

    def cell(self, grid, row, col):
        return self.page.locator(f'[data-grid="{grid}"][data-row="{row}"][data-col="{col}"]')

    def values(self, grid):
        """The grid's cell texts as a list of rows (padding left out)."""
        return self.page.evaluate(GRID_ROWS, grid)

    def marked(self, attribute, value="true", grid="input"):
        """[row, col] of every cell of `grid` whose `attribute` equals `value`."""
        return self.page.evaluate(
            """([grid, attribute, value]) => [...document.querySelectorAll(`[data-grid="${grid}"]`)]
                .filter((cell) => cell.getAttribute(attribute) === value)
                .map((cell) => [Number(cell.dataset.row), Number(cell.dataset.col)])""",
            [grid, attribute, value],
        )

    def set_hash(self, hash_):
        """Navigate to another hash and return once the widget's hashchange handler ran."""
        self._navigate("location.hash = hash", hash_)

    def go_back(self):
        """Go back in history and return once the widget's hashchange handler ran."""
        self._navigate("history.back()")

    def _navigate(self, navigation, hash_=None):
        self.page.evaluate(
            f"""hash => new Promise((resolve) => {{
                window.addEventListener("hashchange", () => setTimeout(resolve, 0), {{ once: true }});
                setTimeout(resolve, 2000);
                {navigation};
            }})""",
            hash_,
        )

    def hash(self):
        return self.page.evaluate("location.hash")

    def expect_hash(self, wanted, timeout_ms=10_000):
        """Wait until the page has written `wanted` as its hash (the page writes the
        canonical link once the view's trace is shown, a moment after the grids)."""
        try:
            self.page.wait_for_function("(wanted) => location.hash === wanted", arg=wanted, timeout=timeout_ms)
        except Exception:
            assert self.hash() == wanted

    def status(self):
        status = self.page.locator("#status")
        return status.get_attribute("data-state"), status.inner_text()


def rgb(text):
    """The red, green and blue of a computed colour ("rgb(1, 2, 3)" or "rgba(...)")."""
    return [float(v) for v in text[text.index("(") + 1:text.index(")")].split(",")[:3]]


def contrast(first, second):
    """WCAG contrast ratio of two computed colours."""

    def luminance(colour):
        channels = [v / 255 for v in rgb(colour)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted([luminance(first), luminance(second)], reverse=True)
    return (high + 0.05) / (low + 0.05)
