"""Fixtures for the cross-engine tests: Firefox ESR, WebKitGTK and WPE WebKit (the old
Safari's engine) under Selenium, each test parametrised by engine ("firefox", "webkit",
"wpe"; `-k firefox` runs one engine).

Booting Pyodide is what takes time (5-10 s per page in WebKit), so each engine opens
index.html once and its scenarios share that page (`widget`, module-scoped per engine;
pytest groups the tests by engine). A scenario leaves the page on index.html; `widget`
reopens it if a scenario could not.

A missing engine fails with what to install (`python build.py test` installs them).
"""

from __future__ import annotations

import threading

import pytest

from engines import drivers  # tests/ is on the import path (tests/conftest.py)
from lesson_fixture import FIXTURE
from widget_driver import GRID_ROWS

ENGINES = ["firefox", "webkit", "wpe"]


class EngineSite:
    """The probed copy of dist/ on a local server: `url` ends with "/", `requests` is the
    server's log (RequestRecord: the path, with .status and .host)."""

    def __init__(self, server, requests):
        self.server = server
        self.requests = requests
        host, port = server.server_address[:2]
        self.host = f"{host}:{port}"
        self.url = f"http://{host}:{port}/"


@pytest.fixture(scope="session")
def engine_root(dist, tmp_path_factory):
    return drivers.probed_copy(dist, tmp_path_factory.mktemp("engine-site"))


def _serve(build_module, root, site_headers=True):
    requests = []
    server = build_module.make_server(root, request_log=requests, site_headers=site_headers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return EngineSite(server, requests)


@pytest.fixture(scope="session")
def engine_site(build_module, engine_root):
    site = _serve(build_module, engine_root)
    yield site
    site.server.shutdown()
    site.server.server_close()


@pytest.fixture(scope="session")
def plain_engine_site(build_module, engine_root):
    """The same probed copy on a server that sends no headers of its own, as GitHub Pages
    does: no _headers rules, so no Content-Security-Policy for the exercise worker."""
    site = _serve(build_module, engine_root, site_headers=False)
    yield site
    site.server.shutdown()
    site.server.server_close()


@pytest.fixture(scope="session")
def display(build_module):
    """An Xvfb display for WebKitGTK, started on first use."""
    started = []

    def get():
        if not started:
            if not build_module.find_engine_parts()["webkit"]["Xvfb"]:
                pytest.fail("no Xvfb for WebKitGTK: run `python build.py test` (it installs Debian's xvfb "
                            "when run as root) or apt-get install xvfb")
            started.append(drivers.start_xvfb())
        return started[0][1]

    yield get
    for process, _ in started:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module", params=ENGINES)
def engine(request):
    return request.param


@pytest.fixture(scope="module")
def driver(engine, build_module, display, tmp_path_factory):
    parts = build_module.find_engine_parts()[engine]
    missing = build_module.engine_missing_message(engine, parts)
    if missing:
        # An engine that cannot run has not passed: say what to do instead of skipping.
        pytest.fail(missing)
    log = tmp_path_factory.mktemp(f"{engine}-driver") / "driver.log"
    started = drivers.start_driver(engine, parts, log, display=display() if engine == "webkit" else None)
    yield started
    started.quit()


class EngineWidget:
    """Drives the widget through its DOM contract with WebDriver, as a user would."""

    BOOT_TIMEOUT_S = 120

    def __init__(self, driver, site, engine):
        self.driver = driver
        self.site = site
        self.engine = engine
        self.opened_at = 0  # how many requests the server had logged when the page was opened
        self.boot_requests = []  # what the first boot of index.html requested

    def open(self, page="index.html", hash_=""):
        self.opened_at = len(self.site.requests)
        self.driver.get(self.site.url + page + hash_)
        return self

    def wait(self, script, *args, timeout=30, what="a condition"):
        return drivers.wait_for(self.driver, script, *args, timeout=timeout, what=f"{what} ({self.engine})")

    def on_index(self):
        return self.driver.execute_script(
            "return location.pathname.endsWith('/index.html') && location.search === ''")

    def settled(self, state="ready", timeout=BOOT_TIMEOUT_S):
        """Wait until boot is over, the output matches the state and #status is `state`."""
        try:
            got = drivers.wait_for(self.driver, """
                const status = document.getElementById("status");
                const output = document.getElementById("output-grid");  // null while a frame is still blank
                if (!status || !output || status.dataset.state === "loading" || output.getAttribute("aria-busy") !== "false") return null;
                return [status.dataset.state, document.getElementById("status-text").textContent];
            """, timeout=timeout, what=f"#status to leave loading with the output drawn ({self.engine})")
        except AssertionError as timed_out:
            raise AssertionError(f"{timed_out}; #status says {self.status()}, problems {self.problems()}") from None
        assert got[0] == state, f"#status is {got[0]!r} ({got[1]!r}), expected {state!r}"
        return got[1]

    def status(self):
        return self.driver.execute_script(
            "return [document.getElementById('status').dataset.state, document.getElementById('status-text').textContent]")

    def set_hash(self, hash_):
        """Navigate to another hash and return once the widget's hashchange handler ran."""
        self.driver.execute_async_script("""
            const [hash, done] = arguments;
            if (location.hash === hash) { done(); return; }
            window.addEventListener("hashchange", () => setTimeout(done, 0), { once: true });
            location.hash = hash;
        """, hash_)

    def values(self, grid):
        return self.driver.execute_script(f"return ({GRID_ROWS})(arguments[0]);", grid)

    def wait_values(self, grid, expected, what):
        """Wait until the grid's cell texts, row by row, are `expected` and the output is not busy."""
        try:
            self.wait(f"""
                const [grid, expected] = arguments;
                const output = document.getElementById("output-grid");  // null while a frame is still blank
                if (!output || output.getAttribute("aria-busy") !== "false") return null;
                return JSON.stringify(({GRID_ROWS})(grid)) === JSON.stringify(expected);
            """, grid, expected, what=f"{what}: {grid} values {expected}")
        except AssertionError as timed_out:
            raise AssertionError(f"{timed_out}; they are {self.values(grid)}, #status says {self.status()}") from None

    def marked(self, attribute, grid="input"):
        return self.driver.execute_script("""
            return [...document.querySelectorAll(`[data-grid="${arguments[0]}"]`)]
                .filter((cell) => cell.getAttribute(arguments[1]) === "true")
                .map((cell) => [Number(cell.dataset.row), Number(cell.dataset.col)]);
        """, grid, attribute)

    def cell(self, grid, row, col):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.CSS_SELECTOR, f'[data-grid="{grid}"][data-row="{row}"][data-col="{col}"]')

    def control(self, control_id):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.ID, control_id)

    def click(self, element):
        """Scroll `element` into view and click it, as a user does (WebKitWebDriver does not
        scroll an element below the fold into view, and then refuses to click it)."""
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def type_into(self, control_id, text):
        """Select the field's text and type over it, as a user does (WebDriver's clear()
        fires no input event)."""
        from selenium.webdriver.common.keys import Keys
        field = self.control(control_id)
        self.click(field)
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(text)

    def problems(self):
        """What went wrong in the page (probe.js, this document and its frames) and, in
        Firefox, in any realm (BiDi)."""
        return self.driver.execute_script("""
            const windows = [window, ...[...document.querySelectorAll("iframe")].map((frame) => frame.contentWindow)];
            return windows.flatMap((w) => (w.__engine ? w.__engine.problems : ["no probe in " + w.location.href]));
        """) + list(self.driver.bidi_problems)

    def forget_problems(self):
        self.driver.execute_script("window.__engine.problems.length = 0")
        self.driver.bidi_problems.clear()

    def requests_since_open(self):
        return self.site.requests[self.opened_at:]


@pytest.fixture(scope="module")
def booted(driver, engine_site, engine):
    """The engine's one booted index.html, shared by its scenarios."""
    widget = EngineWidget(driver, engine_site, engine)
    widget.open()
    widget.settled()
    widget.boot_requests = widget.requests_since_open()
    return widget


@pytest.fixture
def widget(booted):
    """The shared page, back on index.html with the default view, and with no problem
    recorded by the scenario that used it."""
    if not booted.on_index():
        booted.open()
    booted.set_hash(f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    booted.settled()
    yield booted
    assert booted.problems() == []
