"""sitebuild.static_host: the static host behind one paced link that `build.py bench --link`
serves the site through (gzip made on the fly, ETag and 304, max-age, one shared link)."""

import gzip
import time
import urllib.error
import urllib.request

import pytest

from sitebuild.static_host import MAX_AGE_S, LinkSpeed, hosting


def get(url, **headers):
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def crossings(host, count, since=0):
    """The link's first `count` crossings from `since` on: a response is counted once its
    handler has finished, which may be just after the client read the last byte."""
    deadline = time.monotonic() + 10
    while len(host.traffic.since(since)) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return host.traffic.since(since)


@pytest.fixture
def root(tmp_path):
    (tmp_path / "app.js").write_text("console.log('poolgrad');\n" * 400, encoding="utf-8")
    (tmp_path / "data.zip").write_bytes(bytes(range(256)) * 40)
    return tmp_path


def test_compressible_files_are_gzipped_for_a_browser_that_asks_and_archives_never(root):
    with hosting(root, LinkSpeed(None)) as host:
        status, headers, body = get(host.url + "app.js", **{"Accept-Encoding": "gzip, br"})
        assert status == 200 and headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
        assert gzip.decompress(body) == (root / "app.js").read_bytes()
        assert headers["Cache-Control"] == f"max-age={MAX_AGE_S}"
        status, headers, body = get(host.url + "app.js")
        assert "Content-Encoding" not in headers and body == (root / "app.js").read_bytes()
        status, headers, body = get(host.url + "data.zip", **{"Accept-Encoding": "gzip"})
        assert "Content-Encoding" not in headers and body == (root / "data.zip").read_bytes()
        # What crossed the link is counted as sent: compressed where it was.
        sent = crossings(host, 3)
        assert [(c.path, c.status, c.encoding) for c in sent] == [
            ("/app.js", 200, "gzip"), ("/app.js", 200, ""), ("/data.zip", 200, "")]
        assert sent[0].bytes < len((root / "app.js").read_bytes()) / 5


def test_a_host_without_compression_sends_every_file_as_it_is(root):
    with hosting(root, LinkSpeed(None), gzip=False) as host:
        status, headers, body = get(host.url + "app.js", **{"Accept-Encoding": "gzip, br"})
        assert status == 200 and "Content-Encoding" not in headers and body == (root / "app.js").read_bytes()
        assert [(c.path, c.encoding, c.bytes) for c in crossings(host, 1)] == [
            ("/app.js", "", len((root / "app.js").read_bytes()))]


def test_a_matching_etag_is_answered_304_with_no_body(root):
    with hosting(root, LinkSpeed(None)) as host:
        _, headers, _ = get(host.url + "data.zip")
        status, again, body = get(host.url + "data.zip", **{"If-None-Match": headers["ETag"]})
        assert status == 304 and body == b"" and again["ETag"] == headers["ETag"]
        assert get(host.url + "data.zip", **{"If-None-Match": '"other"'})[0] == 200
        # Each crossing is recorded as its handler ends, which may be after the client has
        # read the response and sent the next request: the three are recorded in any order.
        size = len((root / "data.zip").read_bytes())
        assert sorted(c.bytes for c in crossings(host, 3)) == [0, size, size]


def test_what_is_not_a_file_of_the_root_is_a_404(root, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.txt"
    outside.write_text("no", encoding="utf-8")
    with hosting(root, LinkSpeed(None)) as host:
        assert get(host.url + "missing.js")[0] == 404
        assert get(host.url + f"../{outside.parent.name}/secret.txt")[0] == 404
        assert get(host.url + "%2e%2e/" + outside.parent.name + "/secret.txt")[0] == 404


def test_the_link_paces_every_byte_and_waits_its_round_trip(root):
    # 40 kB at 1 Mbit/s take about 0.33 s, plus 100 ms before the response.
    size = len((root / "data.zip").read_bytes())
    with hosting(root, LinkSpeed(1, 100)) as host:
        started = time.monotonic()
        assert len(get(host.url + "data.zip")[2]) == size
        took = time.monotonic() - started
    assert took >= size * 8 / 1e6 + 0.1 - 0.05
