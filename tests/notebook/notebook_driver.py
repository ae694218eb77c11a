"""Drives a notebook in JupyterLab 4 or Notebook 7 through the app both expose in the page
(`window.jupyterapp`, with expose_app_in_browser): run cell i, read its output, find the
widget it shows. The grids are read through the widget's DOM contract, as the page's tests
read them (widget_driver.GRID_ROWS), inside the cell's output."""

from playwright.sync_api import expect

from widget_driver import GRID_ROWS

KERNEL_TIMEOUT_MS = 60_000

# The open notebook's panel, in JupyterLab (the shell's current widget) and Notebook 7.
PANEL = "(() => window.jupyterapp.shell.currentWidget)()"

RUN_CELL = f"""async (index) => {{
  const panel = {PANEL};
  panel.content.activeCellIndex = index;
  const started = performance.now();
  await window.jupyterapp.commands.execute("notebook:run-cell");
  return started;
}}"""

CELL_TEXT = f"""(index) => {{
  const cell = {PANEL}.content.widgets[index];
  return [...cell.node.querySelectorAll(".jp-OutputArea-output")].map((o) => o.innerText).join("\\n");
}}"""

# Resolves with the time of the next draw of the widget in cell `index` after `since`
# (web/notebook.js stamps each draw on its element as data-drawn).
NEXT_DRAW = f"""async ([index, since]) => {{
  const cell = {PANEL}.content.widgets[index];
  for (let waited = 0; waited < 20000; waited += 5) {{
    const drawn = Number(cell.node.querySelector(".poolgrad-notebook")?.dataset.drawn ?? 0);
    if (drawn > since) return drawn;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }}
  throw new Error("the widget did not redraw within 20 s");
}}"""


class JupyterPage:
    def __init__(self, page, server, name):
        self.page, self.server, self.name = page, server, name
        self.problems = []
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error} {error.stack or ''}"))
        page.on("console", lambda m: m.type == "error" and self.problems.append(f"console error: {m.text}"))

    def open(self, url):
        self.page.goto(url)
        self.page.wait_for_function("() => window.jupyterapp?.shell?.currentWidget?.sessionContext", timeout=KERNEL_TIMEOUT_MS)
        self.page.wait_for_function(
            f"() => {PANEL}.sessionContext.session?.kernel?.connectionStatus === 'connected'"
            f" && {PANEL}.sessionContext.session.kernel.status === 'idle'", timeout=KERNEL_TIMEOUT_MS)
        # What the app itself reports while it starts is not the widget's: Notebook 7.6 logs a
        # settings TypeError ("reading 'schema'") from its own core on every start, with no
        # notebook open or an empty one. The tests look at what happens from here on.
        self.startup_problems, self.problems = self.problems, []

    def run(self, index):
        """Run cell `index`; wait for its output; the time (performance.now()) it was started."""
        started = self.page.evaluate(RUN_CELL, index)
        self.page.wait_for_function(f"() => {PANEL}.content.widgets[{index}].model.executionCount !== null"
                                    f" && {PANEL}.sessionContext.session.kernel.status === 'idle'",
                                    timeout=KERNEL_TIMEOUT_MS)
        return started

    def text(self, index):
        return self.page.evaluate(CELL_TEXT, index)

    def widget(self, index):
        """The widget's element in cell `index`'s output, once drawn."""
        found = self.page.locator(f".jp-Cell >> nth={index}").locator(".poolgrad-notebook")
        expect(found.locator('[data-grid="output"]').first).to_be_attached(timeout=KERNEL_TIMEOUT_MS)
        return found

    def grid(self, index, name):
        return self.widget(index).evaluate(f"(el) => ({GRID_ROWS.replace('document', 'el')})({name!r})")

    def next_draw(self, index, since):
        return self.page.evaluate(NEXT_DRAW, [index, since])
