"""Starting Firefox ESR, WebKitGTK and WPE WebKit under Selenium, for the cross-engine
tests (tests/engines/) and benchmark (benchmarks/bench_engines.py).

Each engine runs through its own WebDriver: Firefox headless under geckodriver (with BiDi,
which also reports the worker's console errors); WebKitGTK's MiniBrowser in automation mode
under WebKitWebDriver, on an Xvfb display (it has no headless mode); WPE WebKit as
`cog --platform=headless` under WPEWebDriver. The paths come from build.py's
find_engine_parts(), which `python build.py test` fills by installing what is missing.

The site is served from a copy of dist/ (files linked, not copied, plus CHECK_FILE) whose
HTML pages load probe.js first: WebKit's drivers have no log channel, so the page keeps its own record of
what went wrong and of its boot milestones (see probe.js).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROBE_FILE = "engine-probe.js"
PROBED_PAGES = ("index.html", "embed-demo.html", "element-demo.html")
# A page script that goes wrong in the three ways the probe records, for the test that the
# probe does hear them (scripts that WebDriver runs are not page scripts in every engine:
# Firefox reports their errors to BiDi but not to the page's error handlers).
CHECK_FILE = "engine-check.js"
CHECK_SCRIPT = """console.error("engine check: console");
setTimeout(() => { throw new Error("engine check: thrown"); }, 0);
Promise.reject(new Error("engine check: rejected"));
"""
WINDOW = (1280, 900)


class EngineUnavailable(Exception):
    """An engine cannot be started here; the message says what to install."""


def probed_copy(dist: Path, dest: Path) -> Path:
    """`dest` serving the same files as `dist`, with probe.js loaded first by each page."""
    dest.mkdir(parents=True, exist_ok=True)
    for entry in dist.iterdir():
        if entry.name in PROBED_PAGES:
            continue
        link = dest / entry.name
        if not link.exists():
            link.symlink_to(entry.resolve())
    for page in PROBED_PAGES:
        html = (dist / page).read_text(encoding="utf-8")
        first_script = html.index("<script")
        probed = html[:first_script] + f'<script src="./{PROBE_FILE}"></script>\n  ' + html[first_script:]
        (dest / page).write_text(probed, encoding="utf-8")
    (dest / PROBE_FILE).write_bytes((HERE / "probe.js").read_bytes())
    (dest / CHECK_FILE).write_text(CHECK_SCRIPT, encoding="utf-8")
    return dest


def start_xvfb() -> tuple[subprocess.Popen, str]:
    """An Xvfb server on a free display number; returns (process, DISPLAY value)."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1600x1200x24", "-nolisten", "tcp"],
        pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    with os.fdopen(read_end) as announced:
        number = announced.readline().strip()
    if not number:
        process.kill()
        raise EngineUnavailable("Xvfb did not start (it printed no display number): check `Xvfb -displayfd 1`")
    return process, f":{number}"


# Firefox makes requests of its own (updates, telemetry, safe browsing...): every host but
# the test server goes to a proxy address where nothing listens, so they fail at once.
FIREFOX_PREFS = {
    "network.proxy.type": 1,
    "network.proxy.http": "127.0.0.1",
    "network.proxy.http_port": 9,
    "network.proxy.ssl": "127.0.0.1",
    "network.proxy.ssl_port": 9,
    "network.proxy.no_proxies_on": "127.0.0.1",
    "app.update.disabledForTesting": True,
    "browser.safebrowsing.update.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
}


def start_driver(engine: str, parts: dict, log_path: Path, display: str | None = None):
    """A Selenium WebDriver session of `engine` ("firefox", "webkit" or "wpe"), its window
    WINDOW in size. `parts` is build.find_engine_parts()[engine]. The driver gets a
    `bidi_problems` list (Firefox: console errors and JavaScript errors from every realm,
    workers included; empty for WebKit, whose drivers have no BiDi)."""
    from selenium import webdriver

    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 (closed with the driver)
    if engine == "firefox":
        from selenium.webdriver.firefox.service import Service
        options = webdriver.FirefoxOptions()
        options.binary_location = parts["firefox"]
        options.add_argument("-headless")
        options.enable_bidi = True
        for name, value in FIREFOX_PREFS.items():
            options.set_preference(name, value)
        driver = webdriver.Firefox(options=options, service=Service(executable_path=parts["geckodriver"], log_output=log))
    elif engine == "webkit":
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service
        options = Options()
        options.binary_location = parts["MiniBrowser"]
        options.add_argument("--automation")
        env = dict(os.environ, DISPLAY=display or os.environ.get("DISPLAY", ""))
        driver = webdriver.WebKitGTK(options=options,
                                     service=Service(executable_path=parts["WebKitWebDriver"], log_output=log, env=env))
    elif engine == "wpe":
        from selenium.webdriver.wpewebkit.options import Options
        from selenium.webdriver.wpewebkit.service import Service
        options = Options()
        options.binary_location = parts["cog"]
        options.add_argument("--platform=headless")
        options.add_argument("--automation")
        options.set_capability("browserName", "cog")
        driver = webdriver.WPEWebKit(options=options, service=Service(executable_path=parts["WPEWebDriver"], log_output=log))
    else:
        raise ValueError(f"engine must be one of firefox, webkit, wpe; got {engine!r}")
    driver.bidi_problems = []
    if engine == "firefox":
        driver.script.add_console_message_handler(
            lambda entry: entry.level == "error" and driver.bidi_problems.append(f"console.error: {entry.text}"))
        driver.script.add_javascript_error_handler(
            lambda entry: driver.bidi_problems.append(f"JavaScript error: {entry.text}"))
    driver.set_window_size(*WINDOW)
    return driver


def wait_for(driver, script: str, *args, timeout: float = 90.0, what: str = "a condition"):
    """Run `script` (a function body returning a value) until it returns something truthy;
    return that value, or raise AssertionError with the last value after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(script, *args)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)
