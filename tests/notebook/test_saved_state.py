"""The notebook's front end with no kernel: py/poolgrad/widget.js, loaded as anywidget loads
it (one module from a blob URL) in a blank page with no network, draws the view a saved
notebook's widget state holds, taps work, and a view the state does not hold says it needs
the kernel. This is what a notebook opened from its saved state, or its HTML export, shows."""

import json

import pytest
from playwright.sync_api import expect

from lesson_fixture import FIXTURE_ROWS
from widget_driver import GRID_ROWS, shown

pytest.importorskip("anywidget")

import poolgrad  # noqa: E402
from poolgrad.widget import BUNDLE, STYLESHEET  # noqa: E402

pytestmark = pytest.mark.notebook

# A model of anywidget's shape holding a saved widget state; what the front end sends goes
# nowhere (no kernel), and is counted.
MOUNT = """async ([bundle, css, state]) => {
  const style = document.createElement("style");
  style.textContent = css;
  document.head.append(style);
  const url = URL.createObjectURL(new Blob([bundle], { type: "text/javascript" }));
  const module = await import(url);
  const values = { ...state };
  const handlers = new Map();
  window.sent = [];
  const model = {
    get: (key) => values[key],
    set: (key, value) => { values[key] = value; },
    save_changes() {},
    send: (message) => window.sent.push(message),
    on(event, handler) {
      if (!handlers.has(event)) handlers.set(event, new Set());
      handlers.get(event).add(handler);
    },
    off: (event, handler) => handlers.get(event)?.delete(handler),
  };
  window.model = model;
  window.notebook = module;
  const el = document.createElement("div");
  document.body.append(el);
  window.cleanup = await module.default.render({ model, el });
}"""


@pytest.fixture
def saved_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, offline=True)
    page = context.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda m: m.type == "error" and problems.append(m.text))
    page.set_content("<!doctype html><html><head><meta charset='utf-8'></head><body></body></html>")

    def open_(widget):
        state = json.loads(json.dumps({k: v for k, v in widget.get_state().items() if not k.startswith("_")}))
        page.evaluate(MOUNT, [BUNDLE.read_text(encoding="utf-8"), STYLESHEET.read_text(encoding="utf-8"), state])
        return page

    yield open_, requests, problems
    context.close()


def test_the_saved_view_draws_with_no_kernel_and_no_network(saved_page):
    open_, requests, problems = saved_page
    page = open_(poolgrad.Widget(FIXTURE_ROWS, kernel_size=3, stride=1, gradient=True))
    widget = page.locator(".poolgrad-notebook")
    expect(widget.locator("#status")).to_have_attribute("data-state", "ready")
    assert page.evaluate(f"({GRID_ROWS})('output')") == [["8", "8"], ["9", "9"]]
    assert page.evaluate(f"({GRID_ROWS})('grad-input')")[1] == ["0", "0", "2", "0"]
    widget.locator('[data-grid="output"][data-row="1"][data-col="0"]').click()
    expect(widget.locator('[data-grid="output"][aria-selected="true"]')).to_have_attribute("data-col", "0")
    assert widget.locator('[data-grid="input"][data-argmax="true"]').evaluate(
        "(c) => [c.dataset.row, c.dataset.col]") == ["3", "1"]
    # The saved view needed no kernel: nothing was asked, nothing fetched.
    assert page.evaluate("() => window.sent") == []
    assert [url for url in requests if not url.startswith("blob:")] == [] and problems == []


def test_a_view_the_state_does_not_hold_says_it_needs_the_kernel(saved_page):
    open_, _, problems = saved_page
    page = open_(poolgrad.Widget(FIXTURE_ROWS))
    answer = page.evaluate("""async () => {
      const traces = window.notebook.kernelTraces(window.model, 200);
      const other = JSON.parse(JSON.stringify(window.model.get("trace_settings")));
      const held = await traces.latest(window.notebook.viewKey(other), "a");
      other.kernel_size = [3, 3];
      const first = traces.latest(window.notebook.viewKey(other), "b");
      other.kernel_size = [1, 1];
      const second = traces.latest(window.notebook.viewKey(other), "b");
      return [held.trace.output, await first, await second, window.sent.map((m) => m.type)];
    }""")
    held, superseded, unanswered, sent = answer
    assert held == [[4, 8], [9, -2]]
    assert superseded == {"superseded": True}
    assert unanswered["timedOut"] is True and "needs the notebook's kernel" in unanswered["error"]
    assert sent == ["trace", "trace"]
    assert problems == []


def test_a_saved_chain_view_draws_from_its_trace_with_no_kernel(saved_page):
    # The kernel's trace_settings give the very request key the chain view asks for, so
    # the saved chain_trace answers it: nothing is sent.
    open_, requests, problems = saved_page
    w = poolgrad.Widget(view="chain", steps=2)
    page = open_(w)
    widget = page.locator(".poolgrad-notebook")
    expect(widget.locator("#chain-loss")).to_have_text(shown(w.chain["loss"]))
    expect(widget.locator("#status")).to_have_attribute("data-state", "ready")
    assert page.evaluate("() => window.sent") == []
    assert [url for url in requests if not url.startswith("blob:")] == [] and problems == []
