"""Drives a notebook in JupyterLab 4 or Notebook 7 through the app both expose in the page
(`window.jupyterapp`, with expose_app_in_browser): run cell i, read its output, find the
widget it shows. The grids are read through the widget's DOM contract, as the page's tests
read them (widget_driver.GRID_ROWS), inside the cell's output."""

from playwright.sync_api import expect

from widget_driver import GRID_ROWS

KERNEL_TIMEOUT_MS = 60_000
#: A command of the app (saving, a theme change) that has not finished by then has hung.
COMMAND_TIMEOUT_MS = 30_000

# The open notebook's panel, in JupyterLab (the shell's current widget) and Notebook 7.
PANEL = "(() => window.jupyterapp.shell.currentWidget)()"

# A JupyterLab dialog (a kernel chooser, "save your changes?", "file changed on disk")
# waits for a click that no test gives: every wait fails at once, with its text, instead.
DIALOG_CHECK = """(() => {
  const dialog = document.querySelector(".jp-Dialog");
  if (dialog) throw new Error(`a JupyterLab dialog is open: ${dialog.innerText.replace(/\\s+/g, " ").slice(0, 300)}`);
})()"""

# Runs the async function `body` on an argument, raced against a timeout: Playwright's
# evaluate of a promise has no timeout of its own. An open dialog ends the wait too.
BOUNDED = """async ([arg, ms, what]) => {
  const run = (%s);
  let timer;
  let poll;
  try {
    return await Promise.race([
      run(arg),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
        poll = setInterval(() => {
          try {
            %s;
          } catch (error) {
            reject(new Error(`${what}: ${error.message}`));
          }
        }, 250);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    clearInterval(poll);
  }
}"""

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
# (web/notebook.js stamps each redraw for a new trace on its element as data-drawn).
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

    def evaluate(self, body, arg=None, timeout_ms=COMMAND_TIMEOUT_MS, what="the page's promise"):
        """page.evaluate of the async function `body`, failing after `timeout_ms` or as soon
        as a dialog opens."""
        return self.page.evaluate(BOUNDED % (body, DIALOG_CHECK), [arg, timeout_ms, what])

    def wait_for(self, condition, timeout_ms=KERNEL_TIMEOUT_MS, arg=None):
        """Waits for the JS expression `condition` (a function of `arg`), failing at once if a
        dialog opens."""
        self.page.wait_for_function(f"(arg) => {{ {DIALOG_CHECK}; return ({condition})(arg); }}",
                                    arg=arg, timeout=timeout_ms)

    def command(self, name, args=None):
        """Runs an app command (docmanager:save, apputils:change-theme) to its end, bounded."""
        return self.evaluate("([name, args]) => window.jupyterapp.commands.execute(name, args ?? {})",
                             [name, args], what=f"the command {name}")

    def open(self, url):
        self.page.goto(url)
        self.wait_for("() => window.jupyterapp?.shell?.currentWidget?.sessionContext")
        self.wait_for(f"() => {PANEL}.sessionContext.session?.kernel?.connectionStatus === 'connected'"
                      f" && {PANEL}.sessionContext.session.kernel.status === 'idle'")
        # Cells are found inside this notebook's panel (another tab's would match too).
        self.panel = self.page.locator(f"#{self.page.evaluate(f'() => {PANEL}.id')}")
        # What the app itself reports while it starts is not the widget's: Notebook 7.6 logs a
        # settings TypeError ("reading 'schema'") from its own core on every start, with no
        # notebook open or an empty one. The tests look at what happens from here on.
        self.startup_problems, self.problems = self.problems, []

    def run(self, index):
        """Run cell `index`; wait for its output; the time (performance.now()) it was started."""
        count = self.page.evaluate(f"() => {PANEL}.content.widgets.length")
        assert index < count, f"cell {index} asked for, the notebook has {count} cells"
        started = self.evaluate(RUN_CELL, index, KERNEL_TIMEOUT_MS, f"running cell {index}")
        self.wait_for(f"() => {PANEL}.content.widgets[{index}].model.executionCount !== null"
                      f" && {PANEL}.sessionContext.session.kernel.status === 'idle'")
        return started

    def text(self, index):
        return self.page.evaluate(CELL_TEXT, index)

    def cell(self, index):
        return self.panel.locator(".jp-Cell").nth(index)

    def widget(self, index):
        """The widget's element in cell `index`'s output, once drawn."""
        found = self.cell(index).locator(".poolgrad-notebook")
        expect(found.locator('[data-grid="output"]').first).to_be_attached(timeout=KERNEL_TIMEOUT_MS)
        return found

    def grid(self, index, name):
        return self.widget(index).evaluate(f"(el) => ({GRID_ROWS.replace('document', 'el')})({name!r})")

    def next_draw(self, index, since):
        return self.evaluate(NEXT_DRAW, [index, since], 25_000, "the widget's redraw")
