"""Offline after one visit (web/sw.js, web/offline/offline.js, build.py's publish step): the service
worker keeps the build's files every start uses and those of the path this browser's Python
took (the NumPy snapshot on a fast link, the NumPy subset on a slow one), no other, answers a
reload with the network off on either path, replaces a build with
the next one as a whole, is scoped to the folder the site is hosted in (also inside an
iframe), and makes the site installable; a page opened from disk says how to serve it.

These tests make their own contexts with service workers allowed (the shared `context`
fixture blocks them), one per test, so no saved build outlives its test."""

import json
import shutil
import time
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from exercise_solutions import FORWARD
from lesson_fixture import FIXTURE
from widget_driver import BOOT_TIMEOUT_MS, build_info, context_of_its_own, wait_settled, watched_page

from sitebuild.pins import LAZY_VIEW_DIRS as LAZY_VIEWS  # the views loaded when first opened


REFERENCE = f"#k=2&s=2&p=0&d=1&mode=max&grad=1&x={FIXTURE}&g=1,2;3,4"

# The saved builds of the page's site: {cache name: [saved URLs]}.
SAVED = """async () => {
  const saved = {};
  for (const name of await caches.keys()) {
    saved[name] = (await (await caches.open(name)).keys()).map((request) => request.url).sort();
  }
  return saved;
}"""


def kept_offline(dist, path=None):
    """What the service worker keeps: every published file but the worker itself and the
    files only hosts read, of the on-demand files (sw.js's BUILD) only those of ``path``
    ("snapshot" or "wheels"; None: every file)."""
    skip = {"sw.js", "_headers", ".nojekyll", ".poolgrad-dist"}
    files = sorted(p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file() and p.name not in skip)
    if path is None:
        return files
    info = build_info(dist)
    used = {"snapshot": info["numpy_snapshot"], "wheels": info["numpy_subset"]}[path]
    return [rel for rel in files if rel not in on_demand(dist) or rel == used]


def on_demand(dist):
    """The files the service worker saves only once a page used them (sw.js's BUILD)."""
    return {rel for rel, _, _, flag in build_description(dist)["files"] if flag}


def path_taken(host, dist):
    """The path ("snapshot" or "wheels") the starts served by `host` (a test's own server)
    took: the worker chooses by how fast the first bytes arrive, which a loaded machine can
    slow even on loopback."""
    return "snapshot" if host.requests_for(build_info(dist)["numpy_snapshot"].rpartition("/")[2]) else "wheels"


def build_description(dist):
    """The BUILD that build.py prepends to sw.js."""
    line = next(line for line in (dist / "sw.js").read_text(encoding="utf-8").splitlines()
                if line.startswith("const BUILD = "))
    return json.loads(line.removeprefix("const BUILD = ").rstrip(";"))


def wait_saved(where, expected):
    """Wait until the service worker holds exactly ``expected`` ({cache: [URLs]}): the page
    names the files its Python used once the worker is active, and it saves them then."""
    deadline = time.monotonic() + 60
    while (saved := where.evaluate(SAVED)) != expected and time.monotonic() < deadline:
        time.sleep(0.2)
    return saved


def build_id(dist):
    return build_info(dist)["build_id"]


@pytest.fixture
def offline_context(browser):
    """A fresh context with service workers allowed that refuses any host but 127.0.0.1."""
    with context_of_its_own(browser, service_workers="allow") as context:
        yield context


def new_page(context):
    """A page whose uncaught errors and CSP violations fail the test (kept on the context)."""
    return watched_page(context, context.problems)


def outputs(where):
    """The output and input-gradient grids' texts, row-major."""
    return {grid: where.locator(f'[data-grid="{grid}"]:not([data-pad])').all_inner_texts()
            for grid in ("output", "grad-input")}


def saved_build(where):
    """Wait until the service worker has saved the build and is active; return its scope."""
    return where.evaluate("navigator.serviceWorker.ready.then((registration) => registration.scope)")


def answered(host, since):
    """What the server answered from its `since`-th request on, but the browser's own checks
    for a newer service worker: on each navigation the browser asks for sw.js, beyond the
    reach of Playwright's offline mode (truly offline that check fails, and nothing changes)."""
    return [path for path in host.requests[since:] if not path.endswith("/sw.js")]


def test_a_reload_with_the_network_off_needs_nothing_from_the_server(offline_context, dist, serve_directory,
                                                                     page_policy, route_with_policy):
    site = serve_directory(dist)
    # As a host that sends the page's CSP with every file would: the service worker too
    # runs under it (its fetches are connect-src 'self').
    with_csp = route_with_policy(offline_context, "**/*", page_policy)
    page = new_page(offline_context)
    page.goto(site.url + "index.html" + REFERENCE)
    wait_settled(page)
    first = outputs(page)
    assert first["output"] == ["4", "8", "9", "-2"]
    assert saved_build(page) == site.url
    assert site.url + "sw.js" in with_csp
    # One cache, named after this build, holding the files every start uses and the NumPy
    # files of the path this start took (on loopback the snapshot, unless the machine is
    # loaded), not those of the path it did not take.
    expected = {f"poolgrad {site.url} {build_id(dist)}": sorted(site.url + rel for rel in kept_offline(dist, path_taken(site, dist)))}
    assert wait_saved(page, expected) == expected

    before = len(site.requests)
    offline_context.set_offline(True)
    page.reload()
    wait_settled(page)
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    assert outputs(page) == first
    expect(page.locator("#status")).to_contain_text("Ready: max pooling")
    expect(page.locator("#update-notice")).to_be_empty()
    page.locator('[data-grid="output"][data-row="1"][data-col="0"]').click()
    expect(page.locator('[data-argmax="true"]')).to_have_count(1)
    # The embedded view and the embed demo are kept too.
    page.goto(site.url + "index.html?embed=1" + REFERENCE)
    wait_settled(page)
    assert outputs(page) == first
    page.goto(site.url + "embed-demo.html")
    for frame in (page.frame_locator("iframe").first, page.frame_locator("iframe").last):
        wait_settled(frame)
    assert answered(site, before) == []
    # And with no server at all.
    site.server.shutdown()
    site.server.server_close()
    page.goto(site.url + "index.html" + REFERENCE)
    wait_settled(page)
    assert outputs(page) == first


def test_on_a_slow_link_the_wheels_path_is_saved_and_works_offline(offline_context, dist, slow_host):
    """A first visit through a paced link takes the wheels' path: the service worker saves
    the NumPy subset it used and neither the snapshot nor the official wheel, and an offline
    reload starts from what it saved, with nothing crossing the link."""
    host = slow_host(dist, 10, 40)
    page = new_page(offline_context)
    page.goto(host.url + "index.html" + REFERENCE)
    wait_settled(page)
    first = outputs(page)
    assert first["output"] == ["4", "8", "9", "-2"]
    saved_build(page)
    expected = {f"poolgrad {host.url} {build_id(dist)}": sorted(host.url + rel for rel in kept_offline(dist, "wheels"))}
    assert wait_saved(page, expected) == expected
    names = [crossing.path.rpartition("/")[2] for crossing in host.traffic.since(0)]
    assert "numpy-snapshot.bin.gz" not in names and not any(name.endswith(".whl") and name.startswith("numpy") for name in names)
    assert "python_stdlib.zip" not in names and "stdlib-subset.zip" in names

    mark = host.traffic.mark()
    offline_context.set_offline(True)
    page.reload()
    wait_settled(page)
    assert outputs(page) == first
    assert [c.path for c in host.traffic.since(mark) if not c.path.endswith("/sw.js")] == []
    # The official standard library was never used, so it was not saved: offline, an import
    # of a module its subset lacks says why it fails.
    page.fill("#exercise-code", "import unittest\n" + FORWARD["numpy"])
    page.click("#exercise-run")
    expect(page.locator("#exercise-result")).to_contain_text(
        "unittest is not in the part of Python's standard library this page loads at start, and the full "
        "standard library could not be fetched", timeout=120_000)


def swap_site(root, new_dist):
    shutil.rmtree(root)
    shutil.copytree(new_dist, root)


def test_a_new_build_replaces_the_saved_one_whole(offline_context, build_module, tmp_path, serve_directory, monkeypatch):
    """Build, visit, rebuild with a code change, visit again: the page offers the new
    version, and taking it gives the new build's files, all of them, none of the old."""
    first = build_module.build(tmp_path / "first", quiet=True)
    web = tmp_path / "web"
    shutil.copytree(build_module.WEB, web)
    index = web / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace("<h1>Pooling, traced</h1>", "<h1>Pooling, traced again</h1>"),
                     encoding="utf-8")
    (web / "widget" / "format.js").write_text((web / "widget" / "format.js").read_text(encoding="utf-8") + "\n// the second build\n", encoding="utf-8")
    monkeypatch.setattr(build_module.paths, "WEB", web)
    second = build_module.build(tmp_path / "second", quiet=True)
    old_files, new_files = set(kept_offline(first)), set(kept_offline(second))
    changed = new_files - old_files
    assert build_id(first) != build_id(second)
    assert changed and all(rel.startswith("app/") for rel in changed)  # the other groups kept their names

    root = tmp_path / "site"
    shutil.copytree(first, root)
    host = serve_directory(root)
    page = new_page(offline_context)
    page.goto(host.url + "index.html" + REFERENCE)
    wait_settled(page)
    saved_build(page)
    # The NumPy files of the path this start took are saved after the install, once the page
    # names them: the new build carries over what the old one had saved, so wait for them.
    first_saved = {f"poolgrad {host.url} {build_id(first)}": sorted(host.url + rel for rel in kept_offline(first, path_taken(host, first)))}
    assert wait_saved(page, first_saved) == first_saved
    notice = page.locator("#update-notice")
    expect(notice).to_be_empty()

    swap_site(root, second)
    before = len(host.requests)
    page.reload()  # the old build, from the service worker, which finds the new one
    wait_settled(page)
    expect(page.locator("h1")).to_have_text("Pooling, traced")
    expect(notice).to_have_attribute("role", "status")
    expect(notice).to_contain_text("A new version of this lesson is ready.", timeout=BOOT_TIMEOUT_MS)
    button = notice.get_by_role("button", name="Reload to use it")
    expect(button).to_be_visible()
    button.click()
    expect(page.locator("h1")).to_have_text("Pooling, traced again", timeout=BOOT_TIMEOUT_MS)
    wait_settled(page)
    assert outputs(page)["output"] == ["4", "8", "9", "-2"]
    expect(notice).to_be_empty()

    # Only the new build is saved, whole; the page loaded its files and no file of the old.
    expected = {f"poolgrad {host.url} {build_id(second)}": sorted(host.url + rel for rel in kept_offline(second, path_taken(host, second)))}
    assert wait_saved(page, expected) == expected
    assert page.evaluate("fetch('build-info.json').then((r) => r.json()).then((info) => info.build_id)") == build_id(second)
    loaded = {urlsplit(url).path.lstrip("/") for url in page.evaluate(
        "performance.getEntriesByType('resource').map((entry) => entry.name)")}
    app_folder = {rel.rsplit("/", 1)[0] for rel in changed}
    assert loaded & changed and not loaded & (old_files - new_files)
    # Every folder of the app but the views loaded when first opened (the pool view is shown).
    opened_later = {folder for folder in app_folder if set(folder.split("/")[2:3]) & set(LAZY_VIEWS)}
    assert opened_later and {rel.rsplit("/", 1)[0] for rel in loaded if rel.startswith("app/")} == app_folder - opened_later
    # The server was asked for the new build's changed files and its fixed names only: the
    # unchanged folders (Pyodide, the wheel) came from the saved build.
    asked = {path.split("?")[0].lstrip("/") for path in host.requests[before:]}
    fixed_names = {rel for rel in kept_offline(second) if "/" not in rel}  # the pages, the loader, build-info.json
    assert asked <= changed | fixed_names | {"", "sw.js"}
    assert changed - on_demand(second) <= asked  # a chain or picture file only once the view opens
    assert all(request.status in (200, 304) for request in host.requests[before:])


def test_under_a_sub_path_in_an_iframe_the_worker_keeps_that_folder(offline_context, dist, sub_path_host, serve_directory):
    host = serve_directory(sub_path_host(f"course/pooling/index.html?embed=1{REFERENCE}"))
    page = new_page(offline_context)
    page.goto(host.url + "host.html")
    frame = page.frame_locator("iframe")
    wait_settled(frame)
    first = outputs(frame)
    inner = page.frames[1]
    assert saved_build(inner) == host.url + "course/pooling/"
    assert inner.evaluate("navigator.serviceWorker.ready.then((r) => r.active.scriptURL)") == host.url + "course/pooling/sw.js"
    # Saved whole, the files of the path this start took included, before the network goes.
    scope = f"{host.url}course/pooling/"
    expected = {f"poolgrad {scope} {build_id(dist)}": sorted(scope + rel for rel in kept_offline(dist, path_taken(host, dist)))}
    assert wait_saved(inner, expected) == expected

    before = len(host.requests)
    offline_context.set_offline(True)
    inner.evaluate("location.reload()")
    wait_settled(frame)
    assert outputs(frame) == first
    assert page.frames[1].evaluate("navigator.serviceWorker.controller.scriptURL") == host.url + "course/pooling/sw.js"
    assert answered(host, before) == []


def _visible_widget_parts(page):
    """The widget's parts a learner would see: ids of the visible controls and panels."""
    return page.evaluate("""() => ['controls-body', 'preset', 'kernel', 'stage', 'player', 'lesson',
        'exercise', 'code', 'output-grid'].filter((id) => {
            const element = document.getElementById(id);
            return element && element.getClientRects().length > 0;
        })""")


def test_opened_from_disk_the_page_shows_only_how_to_serve_it(browser, dist, tmp_path):
    # A copy laid out as the offline bundle is (poolgrad-offline/site/index.html) and the
    # build's own dist/index.html: each page names the file opened and the command for it.
    offline = tmp_path / "poolgrad-offline"
    offline.mkdir()
    (offline / "site").symlink_to(dist, target_is_directory=True)
    context = browser.new_context()
    try:
        page = context.new_page()
        for opened, command, not_said in (
                (offline / "site" / "index.html", "python serve.py", "build.py"),
                (dist / "index.html", "python build.py serve", "serve.py")):
            page.goto(opened.as_uri())
            status = page.locator("#status")
            expect(status).to_have_attribute("data-state", "error", timeout=10_000)
            expect(status).to_contain_text(f"You opened {opened} as a file")
            expect(status).to_contain_text(command)
            expect(status).not_to_contain_text(not_said)
            expect(status).not_to_contain_text("poolgrad-offline" if opened.parent == dist else "dist/")
            expect(page.locator("#boot-progress")).to_be_hidden()
            # No dead widget below the explanation: no empty preset list, fields or panels.
            assert _visible_widget_parts(page) == []
        page.add_init_script("Object.defineProperty(navigator, 'platform', {get: () => 'Win32'})")
        page.goto((dist / "index.html").as_uri())
        expect(page.locator("#status")).to_contain_text("py build.py serve")
    finally:
        context.close()


def test_over_plain_http_from_another_machine_the_page_says_it_keeps_no_offline_copy(browser, site):
    # A classroom: the page comes from the teacher's laptop by its LAN name over http, which
    # is no secure context (127.0.0.1 is one). Stood in for by a routed host name, so no
    # request leaves this machine.
    context = browser.new_context(service_workers="block")
    try:
        lan = "http://classroom.test:8000/"
        context.route(f"{lan}**", lambda route: route.fulfill(
            response=route.fetch(url=site.url + route.request.url[len(lan):])))
        page = context.new_page()
        page.goto(f"{lan}index.html")
        assert page.evaluate("window.isSecureContext") is False
        note = page.locator("#insecure-note")
        expect(note).to_be_visible()
        expect(note).to_contain_text("plain http")
        expect(note).to_contain_text("will not save it for offline use")
        page.goto(f"{site.url}index.html")
        assert page.evaluate("window.isSecureContext") is True
        expect(page.locator("#insecure-note")).to_be_hidden()
    finally:
        context.close()


def test_a_host_caught_halfway_through_an_update_is_not_saved(offline_context, dist, tmp_path, serve_directory):
    """One fixed name already of the next build: the install fails on its sha256, no
    worker takes control, and the page keeps working from the network."""
    root = tmp_path / "site"
    shutil.copytree(dist, root)
    demo = root / "embed-demo.html"
    demo.write_text(demo.read_text(encoding="utf-8") + "<!-- the next build -->\n", encoding="utf-8")
    host = serve_directory(root)
    page = new_page(offline_context)
    page.goto(host.url + "index.html" + REFERENCE)
    wait_settled(page)
    settled = page.evaluate("""async () => {
      const registration = await navigator.serviceWorker.register("./sw.js");
      const worker = registration.installing ?? registration.waiting ?? registration.active;
      while (!["redundant", "activated"].includes(worker.state)) {
        await new Promise((resolve) => worker.addEventListener("statechange", resolve, { once: true }));
      }
      return worker.state;
    }""")
    assert settled == "redundant"
    page.reload()
    wait_settled(page)
    assert page.evaluate("navigator.serviceWorker.controller") is None
    assert outputs(page)["output"] == ["4", "8", "9", "-2"]
    expect(page.locator("#update-notice")).to_be_empty()


def older_build(root, without):
    """Turn the site in `root` into another build, as far as a service worker can tell: a
    build id of its own, and no file `without` (so that the next build must download it)."""
    lines = (root / "sw.js").read_text(encoding="utf-8").split("\n")
    build = json.loads(lines[1].removeprefix("const BUILD = ").removesuffix(";"))
    old_id = build["id"]
    build["id"] = "older" + old_id[5:]
    build["files"] = [entry for entry in build["files"] if entry[0] != without]
    lines[1] = f"const BUILD = {json.dumps(build)};"
    (root / "sw.js").write_text("\n".join(lines), encoding="utf-8")
    info = root / "build-info.json"
    info.write_text(info.read_text(encoding="utf-8").replace(old_id, build["id"]), encoding="utf-8")


SETTLE_UPDATE = """async () => {
  const registration = await navigator.serviceWorker.getRegistration();
  await registration.update().catch(() => null);
  const worker = registration.installing ?? registration.waiting;
  while (worker && !["redundant", "installed", "activated"].includes(worker.state)) {
    await new Promise((resolve) => worker.addEventListener("statechange", resolve, { once: true }));
  }
  return worker?.state ?? null;
}"""


@pytest.mark.parametrize("errors", ["no-store", "cached"])
def test_a_save_that_failed_on_a_missing_file_succeeds_once_the_file_is_back(offline_context, dist, tmp_path,
                                                                            serve_directory, errors):
    """Issue 19, 3: a build deployed while one of its files is briefly missing fails to
    install; once the host serves it whole, the next update check saves it and the notice
    offers it. Against the project's server (which never lets an error be cached) and a
    host whose 404 carries the year-long immutable header: the service worker's second try
    goes past the HTTP cache, which would otherwise replay that 404 for good."""
    missing = next(rel for rel in kept_offline(dist) if rel.endswith("/embed-demo.css"))
    root = tmp_path / "site"
    shutil.copytree(dist, root)
    older_build(root, without=missing)
    host = serve_directory(root, errors_cached=errors == "cached")
    page = new_page(offline_context)
    page.goto(host.url + "index.html" + REFERENCE)
    wait_settled(page)
    saved_build(page)
    page.reload()  # now from the saved (older) build, which shows the notice for a newer one
    wait_settled(page)

    swap_site(root, dist)
    (root / missing).unlink()
    assert page.evaluate(SETTLE_UPDATE) == "redundant"
    assert [r.status for r in host.requests_for("/" + missing)] == [404, 404]  # the second past the HTTP cache
    expect(page.locator("#update-notice")).to_be_empty()

    shutil.copy2(dist / missing, root / missing)
    assert page.evaluate(SETTLE_UPDATE) == "installed"
    expect(page.locator("#update-notice")).to_contain_text("A new version of this lesson is ready.")
    saved = page.evaluate(SAVED)
    # The new build saves the files every start uses and its namesakes of the on-demand
    # files the older build had saved: those of the path this browser's start took.
    assert saved[f"poolgrad {host.url} {build_id(dist)}"] == sorted(host.url + rel for rel in kept_offline(dist, path_taken(host, dist)))


def test_the_site_is_installable_as_an_app(browser, build_module, site, tmp_path):
    """Chromium's own checks: the manifest parses without errors and, once the service
    worker controls the page, nothing stands in the way of installing it. A profile on
    disk, since an incognito-like context is never installable."""
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=build_module.find_chromium(), args=build_module.CHROMIUM_ARGS,
        service_workers="allow")
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(site.url + "index.html")
        wait_settled(page)
        saved_build(page)
        page.reload()
        wait_settled(page)
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == []
        assert urlsplit(manifest["url"]).path.endswith("/manifest.webmanifest")
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    finally:
        context.close()
