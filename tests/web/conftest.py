"""Fixtures for the browser tests: the built site, a local server, headless Chromium.

The dist/ folder is built once per session with build.build(); set POOLGRAD_SKIP_BUILD=1
to reuse an existing dist/ (it must hold build-info.json). Chromium comes from
POOLGRAD_CHROMIUM or the `chromium` on PATH (Playwright's own browser download does not
work on these machines); without it the browser tests fail with a message saying what to
install.
"""

import contextlib
import functools
import http.server
import threading
import time

import pytest

from widget_driver import DEDICATED_WORKER, Widget, context_of_its_own, page_of_its_own, watched_page


@pytest.fixture(scope="session")
def page_policy(dist):
    """The Content-Security-Policy that the built index.html sets in its meta tag."""
    html = (dist / "index.html").read_text(encoding="utf-8")
    return html.split('http-equiv="Content-Security-Policy" content="')[1].split('"')[0]


@pytest.fixture
def route_with_policy():
    """route_with_policy(context, pattern, policy) serves the responses matching `pattern`
    with `policy` as their CSP header, as a host that sets the page's policy on every file
    would (a worker takes its CSP from its own response, not from the page), and returns
    the list of URLs served this way."""

    def route(context, pattern, policy):
        served = []

        def fulfil(request_route):
            served.append(request_route.request.url)
            response = request_route.fetch()
            request_route.fulfill(response=response, headers={**response.headers, "content-security-policy": policy})

        context.route(pattern, fulfil)
        return served

    return route


class Site:
    """A running static server: `url` ends with "/", `requests` is its access log."""

    def __init__(self, server, requests):
        self.server = server
        self.requests = requests
        host, port = server.server_address[:2]
        self.origin_host = f"{host}:{port}"
        self.url = f"http://{host}:{port}/"

    def requests_for(self, path, since=0):
        """The logged requests for `path` (a site path, or a file name: the file wherever the
        build published it), from the `since`-th request of the log on (the session's site
        serves every test)."""
        def wanted(request):
            return request == path if path.startswith("/") else request.rpartition("/")[2] == path
        return [request for request in self.requests[since:] if wanted(request)]

    def foreign_requests(self):
        return [r for r in self.requests if r.host and r.host != self.origin_host]


def serve(build_module, root, site_headers=True, errors_cached=False):
    requests = []
    server = build_module.make_server(root, request_log=requests, site_headers=site_headers)
    if errors_cached:
        server.RequestHandlerClass = functools.partial(_errors_cached(server.RequestHandlerClass.func),
                                                       **server.RequestHandlerClass.keywords)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return Site(server, requests)


def _errors_cached(handler):
    """A handler that answers an error as some hosts do: cacheable for a year."""

    class ErrorsCached(handler):
        def send_error(self, code, message=None, explain=None):
            self.send_response(code, message)
            self.send_header("Cache-Control", "public, max-age=31536000, immutable")
            self.send_header("Content-Length", "0")
            http.server.BaseHTTPRequestHandler.end_headers(self)

    return ErrorsCached


def stop(running):
    running.server.shutdown()
    running.server.server_close()


@pytest.fixture(scope="session")
def site(build_module, dist):
    running = serve(build_module, dist)
    yield running
    stop(running)


@pytest.fixture
def plain_host(build_module, dist):
    """dist/ on a server that sends no headers of its own, as GitHub Pages does: no _headers
    rules, so no Content-Security-Policy for the exercise worker."""
    running = serve(build_module, dist, site_headers=False)
    yield running
    stop(running)


@pytest.fixture
def serve_directory(build_module):
    """Serve another folder (e.g. one that puts dist/ under a sub-path) for one test;
    `errors_cached=True` serves it as a host that lets the HTTP cache keep its errors."""
    started = []

    def start(root, errors_cached=False):
        started.append(serve(build_module, root, errors_cached=errors_cached))
        return started[-1]

    yield start
    for running in started:
        stop(running)


@pytest.fixture
def slow_host(build_module):
    """slow_host(root, mbit, rtt_ms=0, gzip=True): serve `root` as a static host does, through
    one paced link (sitebuild.static_host), for one test; returns its HostServer (.url,
    .traffic). gzip=False: a host that compresses nothing."""
    with contextlib.ExitStack() as hosts:
        yield lambda root, mbit, rtt_ms=0, gzip=True: hosts.enter_context(
            build_module.static_host.hosting(root, build_module.static_host.LinkSpeed(mbit, rtt_ms), gzip=gzip))


@pytest.fixture
def sub_path_host(dist, tmp_path):
    """sub_path_host(src) -> a folder to serve (tmp_path) that holds dist/ as course/pooling/
    and host.html, a lesson page whose iframe opens `src` (relative to the folder, e.g.
    "course/pooling/index.html?embed=1#k=2")."""

    def make(src):
        (tmp_path / "course").mkdir()
        (tmp_path / "course" / "pooling").symlink_to(dist, target_is_directory=True)
        (tmp_path / "host.html").write_text(
            '<!doctype html><title>lesson</title><h1>A lesson page</h1>'
            f'<iframe title="pooling widget" width="1100" height="800" src="{src}"></iframe>',
            encoding="utf-8",
        )
        return tmp_path

    return make


@pytest.fixture(scope="session")
def published(dist):
    """published("worker.js") -> the path under dist/ where the build published that file
    (in a content-hashed folder, e.g. "app/<hash>/worker.js")."""

    def find(name):
        found = [p.relative_to(dist).as_posix() for p in dist.rglob(name) if p.is_file()]
        assert len(found) == 1, f"{name}: {found}"
        return found[0]

    return find


@pytest.fixture
def context(browser):
    """A fresh context for one test, without service workers: each test sees a first visit,
    and the server's log holds only what the page asked for (tests/web/test_offline.py
    covers the worker)."""
    with context_of_its_own(browser, service_workers="block") as fresh:
        yield fresh


@pytest.fixture
def page(context):
    """A fresh page whose uncaught errors and CSP violations fail the test."""
    fresh = watched_page(context)
    yield fresh
    assert fresh.problems == [], fresh.problems


@pytest.fixture
def prefix_worker(context):
    """prefix_worker(js, policy=None): the page's Python worker runs `js` before its own
    script (worker.js), served with `policy` as its Content-Security-Policy when one is
    given; returns the URLs served so. Routes reach a dedicated worker's requests only, so
    the page is given one."""

    def prefix(js, policy=None):
        context.add_init_script(DEDICATED_WORKER)
        served = []

        def fulfil(route):
            served.append(route.request.url)
            response = route.fetch()
            headers = {**response.headers, "content-security-policy": policy} if policy else response.headers
            route.fulfill(response=response, body=js + response.text(), headers=headers)

        context.route("**/worker.js", fulfil)
        return served

    return prefix


@pytest.fixture
def hold_back(context):
    """hold_back(patterns, seconds=0) holds every request matching one of `patterns` (the
    page is given a dedicated worker, whose requests routes reach) and returns release():
    it lets through those held for `seconds` by now (routes are answered from the test's
    thread) and returns how many requests were held in all."""

    def hold(patterns, seconds=0):
        context.add_init_script(DEDICATED_WORKER)
        held = []
        for pattern in patterns:
            context.route(pattern, lambda route: held.append([time.monotonic() + seconds, route]))

        def release():
            for entry in held:
                due, route = entry
                if route is not None and time.monotonic() >= due:
                    route.continue_()
                    entry[1] = None
            return len(held)

        return release

    return hold


@pytest.fixture(scope="module")
def shared_page(browser):
    """One page for a whole test module, booted by its first test: for tests that need no
    fresh page (no request counts, routes, init scripts or storage of their own)."""
    with page_of_its_own(browser) as shared:
        yield shared


@pytest.fixture
def booted(shared_page, site):
    """The widget on the module's shared page: ``open`` changes the hash of the booted page
    instead of loading it again (Python starts once per module). Each test still fails on
    its own page errors, and leaves no emulated media and no hover behind."""
    shared_page.problems.clear()
    yield Widget(shared_page, site, reuse=True)
    shared_page.emulate_media(color_scheme="no-preference", reduced_motion="no-preference")
    shared_page.mouse.move(0, 0)
    assert shared_page.problems == [], shared_page.problems


@pytest.fixture
def widget(page, site):
    return Widget(page, site)
