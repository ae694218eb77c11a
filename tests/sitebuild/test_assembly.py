"""sitebuild/assembly.py: the shipped lock file, the built site against its pins and
build-info.json, and publishing (content-hashed folders, the service worker's build)."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
import struct
import zipfile
from pathlib import Path

import pytest

import sitebuild as B  # on the path through tests/conftest.py
from built_site import FIXED_NAMES, build_info, published_files


def _fake_release_lock():
    pkgs = {}
    for name, (fname, sha) in B.PYODIDE_WHEELS.items():
        pkgs[name] = {"name": name, "file_name": fname, "sha256": sha, "imports": [name],
                      "depends": ["packaging"] if name == "micropip" else [],
                      "install_dir": "site", "package_type": "package", "unvendored_tests": True}
    pkgs["scipy"] = {"name": "scipy", "file_name": "scipy.whl", "sha256": "0" * 64, "depends": ["numpy"]}
    pkgs["numpy-tests"] = {"name": "numpy-tests", "file_name": "numpy-tests.tar", "sha256": "1" * 64}
    return {"info": {"version": "0.27.7", "arch": "wasm32"}, "packages": pkgs}


def test_make_lock_lists_exactly_the_shipped_packages():
    original = _fake_release_lock()
    lock = B.make_lock(original)
    assert lock["info"] == original["info"]
    assert set(lock["packages"]) == {"numpy", "micropip", "packaging"}
    for name, entry in lock["packages"].items():
        fname, sha = B.PYODIDE_WHEELS[name]
        assert entry["file_name"] == fname and "/" not in entry["file_name"]
        assert entry["sha256"] == sha
        assert entry["unvendored_tests"] is False
        assert all(dep in lock["packages"] for dep in entry["depends"])


def test_make_lock_refuses_a_release_entry_that_differs_from_the_pin():
    original = _fake_release_lock()
    original["packages"]["numpy"]["sha256"] = "f" * 64
    with pytest.raises(B.BuildError, match="numpy"):
        B.make_lock(original)


def test_make_lock_refuses_an_unshipped_dependency():
    original = _fake_release_lock()
    shipped = {"micropip": B.PYODIDE_WHEELS["micropip"]}
    with pytest.raises(B.BuildError, match="packaging"):
        B.make_lock(original, shipped)


def test_built_lock_lists_exactly_the_shipped_wheels(dist):
    pdir = dist / build_info(dist)["pyodide"]
    lock = json.loads((pdir / "pyodide-lock.json").read_text())
    assert lock["info"]["version"] == B.PYODIDE_VERSION
    listed = {e["file_name"] for e in lock["packages"].values()}
    shipped = {p.name for p in pdir.iterdir() if p.suffix in (".whl", ".tar", ".zip")
               and p.name not in ("python_stdlib.zip", B.pins.NUMPY_SUBSET_FILE, B.pins.STDLIB_SUBSET_FILE)}
    assert listed == shipped
    for entry in lock["packages"].values():
        assert B.sha256_of(pdir / entry["file_name"]) == entry["sha256"]


def test_built_site_matches_its_pins_and_build_info(dist, node):
    info = build_info(dist)
    assert re.fullmatch(r"pyodide/[0-9a-f]{12}/", info["pyodide"])
    assert info["numpy_wheel"] == f"{info['pyodide']}{B.PYODIDE_WHEELS['numpy'][0]}"
    B.verify_file(dist / info["numpy_wheel"], B.PYODIDE_WHEELS["numpy"][1])
    # The subsets: derived from the pinned wheels (and poolgrad's), their own sha256 recorded.
    assert info["derived"] == [{"file": info[name], "sha256": B.sha256_of(dist / info[name])}
                               for name in ("numpy_subset", "poolgrad_subset", "stdlib_subset")]
    with zipfile.ZipFile(dist / info["numpy_wheel"]) as wheel, zipfile.ZipFile(dist / info["numpy_subset"]) as subset:
        kept = subset.namelist()
        assert kept == [n for n in wheel.namelist() if not n.endswith("/") and not B.subset.left_out(n)]
        assert all(subset.read(n) == wheel.read(n) for n in kept)
    assert "numpy/_core/_multiarray_umath.cpython-312-wasm32-emscripten.so" in kept
    assert not any(n.startswith(("numpy/fft/", "numpy/f2py/")) or "/tests/" in n for n in kept)
    assert B.subset.subset_bytes(dist / info["numpy_wheel"]) == (dist / info["numpy_subset"]).read_bytes()
    # The standard library's subset (Node is here): the official zip's files the site's
    # Python read, unchanged, in its order; the modules it lacks are listed once each.
    official = dist / info["pyodide"] / "python_stdlib.zip"
    with zipfile.ZipFile(official) as whole, zipfile.ZipFile(dist / info["stdlib_subset"]) as part:
        kept = part.namelist()
        assert kept == [n for n in whole.namelist() if n in set(kept)]
        assert all(part.read(n) == whole.read(n) for n in kept)
    for needed in ("encodings/__init__.py", "encodings/utf_8.py", "json/__init__.py", "traceback.py", "zipfile/__init__.py",
                   "pyodide/ffi/__init__.py", "tokenize.py", "linecache.py", "warnings.py"):
        assert needed in kept, needed
    assert not any(n.startswith(("unittest/", "xml/", "multiprocessing/", "http/")) for n in kept)
    assert {"unittest", "xml", "multiprocessing", "http", "encodings.cp1252"} <= set(info["stdlib_left_out"])
    assert not any(name.startswith(("unittest.", "xml.")) for name in info["stdlib_left_out"])
    assert B.subset.left_out_modules(official, (dist / info["stdlib_subset"]).read_bytes()) == info["stdlib_left_out"]
    assert (dist / info["stdlib_subset"]).stat().st_size < official.stat().st_size / 2
    assert re.fullmatch(r"wheels/[0-9a-f]{12}/poolgrad-[^/]+-py3-none-any\.whl", info["poolgrad_wheel"])
    assert (dist / info["poolgrad_wheel"]).is_file()
    with zipfile.ZipFile(dist / info["poolgrad_wheel"]) as zf:
        wheel_files = zf.namelist()
        assert "poolgrad/__init__.py" in wheel_files
    # What a start installs of poolgrad: the wheel's files but the notebook widget's, each
    # with the fixed date, so the same wheel gives the same bytes.
    assert re.fullmatch(r"wheels/[0-9a-f]{12}/poolgrad-subset\.zip", info["poolgrad_subset"])
    assert info["poolgrad_subset"].rpartition("/")[0] == info["poolgrad_wheel"].rpartition("/")[0]
    with zipfile.ZipFile(dist / info["poolgrad_subset"]) as zf:
        assert zf.namelist() == [n for n in wheel_files if n not in ("poolgrad/widget.py", "poolgrad/widget.js", "poolgrad/widget.css")]
        assert {entry.date_time for entry in zf.infolist()} == {B.subset.FIXED_TIME}
    pdir = dist / info["pyodide"]
    for name in B.PYODIDE_SHIPPED:
        B.verify_file(pdir / name, B.PYODIDE_CORE_SHA256[name])
    # What the site does not load is not shipped: the classic-script loader, source maps.
    assert not [p.name for p in dist.rglob("*") if p.suffix == ".map" or p.name == "pyodide.js"]
    # Node is here (the `node` fixture), so the build made the snapshot, with the NumPy
    # subset and poolgrad installed inside it.
    build_id = B.pyodide_build_id(pdir)
    assert info["numpy_snapshot"] == f"{info['pyodide']}{B.NUMPY_SNAPSHOT_FILE}"
    raw = gzip.decompress((dist / info["numpy_snapshot"]).read_bytes())
    assert len(raw) == info["numpy_snapshot_bytes"]
    manifest = B.check_numpy_snapshot(raw, build_id, [dist / info["numpy_subset"], dist / info["poolgrad_subset"]])
    # What `import numpy` loads: its core (first, at the runtime's first free table slot)
    # and the libraries that core imports; numpy.random's are left for later.
    loaded = [lib["name"].split("/site-packages/")[1] for lib in manifest["libs"]]
    assert loaded[0] == "numpy/_core/_multiarray_umath.cpython-312-wasm32-emscripten.so"
    assert not any(name.startswith("numpy/random/") for name in loaded)
    assert not any("micropip" in entry["path"] for entry in manifest["files"])
    assert not any("micropip" in entry["path"] for entry in manifest["files"])
    assert len({lib["handle"] for lib in manifest["libs"]}) == len(loaded)
    for before, after in zip(manifest["libs"], manifest["libs"][1:]):
        assert before["table_base"] + before["table_size"] <= after["table_base"]
        assert before["memory_base"] != after["memory_base"]
    assert manifest["table_length"] >= manifest["libs"][-1]["table_base"] + manifest["libs"][-1]["table_size"]
    assert {slot["lib"] for slot in manifest["table_slots"]} <= {lib["name"] for lib in manifest["libs"]}
    assert any(slot["symbol"] == "PyInit__multiarray_umath" for slot in manifest["table_slots"])


def test_warm_build_into_a_fresh_directory_is_complete_and_prunes_strays(dist, tmp_path):
    # `dist` (the suite's build) warms the cache; this test builds its own site.
    site = tmp_path / "site"
    B.build(site, quiet=True)
    (site / "stray.txt").write_text("left over")
    B.build(site, quiet=True)
    assert not (site / "stray.txt").exists()
    lock = json.loads((site / build_info(site)["pyodide"] / "pyodide-lock.json").read_text())
    assert {e["file_name"] for e in lock["packages"].values()} == {f for f, _ in B.PYODIDE_WHEELS.values()}
    [app] = site.glob("app/*/")
    for rel in (p.relative_to(B.WEB) for p in B.WEB.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        if rel.suffix == ".html" or rel.name == B.assembly.ELEMENT_LOADER:  # entries: their name kept, links rewritten
            assert (site / rel).is_file()
        elif rel.name == "sw.js":  # at the root, after the build's description
            assert (site / rel).read_text().endswith((B.WEB / rel).read_text())
        else:
            assert (app / rel).read_bytes() == (B.WEB / rel).read_bytes()


def test_build_refuses_a_foreign_non_empty_directory(tmp_path):
    (tmp_path / "precious.txt").write_text("mine")
    with pytest.raises(B.BuildError, match="not made by build.py"):
        B.build(tmp_path, quiet=True)
    assert (tmp_path / "precious.txt").exists()


def _service_worker_build(dist):
    """The build description that build.py prepends to sw.js."""
    line = next(l for l in (dist / "sw.js").read_text().splitlines() if l.startswith("const BUILD = "))
    return json.loads(line[len("const BUILD = "):].rstrip(";"))


def test_every_file_but_the_fixed_names_is_under_its_groups_content_hash(dist):
    published = published_files(dist)
    assert FIXED_NAMES <= set(published)
    hashed = [rel for rel in published if rel not in FIXED_NAMES]
    # The front end keeps web/'s folders inside its one hashed folder (the picture view's
    # samples two deep: picture/samples/); the others are flat.
    assert all(re.fullmatch(r"app/[0-9a-f]{12}/[^/]+(/[^/]+){0,2}|(pyodide|wheels)/[0-9a-f]{12}/[^/]+", rel)
               for rel in hashed), hashed
    assert any(rel.startswith("app/") and rel.count("/") == 3 for rel in hashed)
    groups = {}
    for rel in hashed:
        group, digest, name = rel.split("/", 2)
        groups.setdefault((group, digest), []).append(name)
    assert sorted(group for group, _ in groups) == ["app", "pyodide", "wheels"]  # one folder each
    others = sorted(digest for group, digest in groups if group != "app")
    for (group, digest), names in groups.items():
        h = hashlib.sha256()
        for name in sorted(names):
            h.update(f"{name}\0{B.sha256_of(dist / group / digest / name)}\n".encode())
        # The front end's folder also changes with the runtime and the wheel it loads (its
        # shared worker, keyed by its URL, must not serve another build's Python).
        for loaded in others if group == "app" else []:
            h.update(f"loads {loaded}\n".encode())
        assert h.hexdigest()[:12] == digest, group


def test_entry_pages_and_build_info_name_files_that_exist(dist):
    info = build_info(dist)
    for key in ("poolgrad_wheel", "poolgrad_subset", "numpy_snapshot", "numpy_wheel", "numpy_subset"):
        assert (dist / info[key]).is_file(), key
    assert (dist / info["pyodide"] / "pyodide.mjs").is_file()
    for page in ("index.html", "embed-demo.html"):
        html = (dist / page).read_text()
        links = re.findall(r'\b(?:src|href)="([^"#?:]+)', html)
        assert links
        for link in links:
            assert (dist / link).is_file(), f"{page}: {link}"
            assert link in ("index.html",) or link.startswith("./app/"), link
    index = (dist / "index.html").read_text()
    manifest_link = re.search(r'<link rel="manifest" href="\./([^"]+)">', index).group(1)
    manifest = json.loads((dist / manifest_link).read_text())
    where = Path(manifest_link).parent
    assert (dist / where / manifest["start_url"]).resolve() == (dist / "index.html").resolve()
    assert (dist / where / manifest["scope"]).resolve() == dist.resolve()
    assert manifest["display"] == "standalone" and manifest["name"] and manifest["short_name"] == "poolgrad"
    pngs = [icon for icon in manifest["icons"] if icon["type"] == "image/png"]
    assert {icon["sizes"] for icon in pngs} >= {"192x192", "512x512"}
    for icon in pngs:
        data = (dist / where / icon["src"]).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert "%dx%d" % struct.unpack(">II", data[16:24]) == icon["sizes"]


def test_the_service_worker_keeps_exactly_the_published_site(dist):
    build = _service_worker_build(dist)
    info = build_info(dist)
    assert build["id"] == info["build_id"] and re.fullmatch(r"[0-9a-f]{16}", build["id"])
    kept = {path: (sha, hashed, on_demand) for path, sha, hashed, on_demand in build["files"]}
    assert sorted(kept) == sorted(rel for rel in published_files(dist) if rel not in {"sw.js", "_headers", ".nojekyll"})
    # The files only one way of starting Python uses are saved once a browser used them.
    # The official standard library is fetched when code imports a module its subset lacks.
    # The chain's and the picture's files (modules, styles, the samples and their sources,
    # the chain's shipped traces) are saved once the view was opened: a first visit to the
    # pool view never needs them.
    views = {f"{folder}/{p.relative_to(B.WEB / folder).as_posix()}" for folder in B.pins.LAZY_VIEW_DIRS
             for p in (B.WEB / folder).rglob("*") if p.is_file()}
    assert {"chain/chain-view.js", "picture/picture-view.js", "picture/samples/camera.png"} <= views
    # poolgrad's wheel is a notebook kernel's to install; the site's starts install its subset.
    assert {path for path, (_, _, on_demand) in kept.items() if on_demand} == {
        *(path for path in kept if path.rpartition("/")[2] in {
            B.NUMPY_SNAPSHOT_FILE, B.pins.NUMPY_SUBSET_FILE, *(fname for fname, _ in B.PYODIDE_WHEELS.values()),
            "python_stdlib.zip"}),
        info["poolgrad_wheel"], info["chain_traces_file"],
        *(path for path in kept if path.startswith("app/") and path.split("/", 2)[2] in views)}
    for path, (sha, hashed, _) in kept.items():
        assert hashed == (path not in FIXED_NAMES)
        # build-info.json carries the build id instead (its "built" time changes every build).
        assert sha == (None if path == "build-info.json" else B.sha256_of(dist / path))
    assert (dist / "sw.js").read_text().endswith((B.WEB / "sw.js").read_text())


def test_a_code_change_renames_only_its_group_and_a_rebuild_changes_nothing(dist, tmp_path, monkeypatch):
    first = B.build(tmp_path / "first", quiet=True)
    again = B.build(tmp_path / "again", quiet=True)
    # Identical sources: the same names and the same service worker, so learners are not
    # told of a "new version" that is not one.
    assert published_files(first) == published_files(again)
    assert (first / "sw.js").read_bytes() == (again / "sw.js").read_bytes()
    web = tmp_path / "web"
    shutil.copytree(B.WEB, web)
    (web / "widget" / "render.js").write_text((web / "widget" / "render.js").read_text() + "\n// changed\n")
    monkeypatch.setattr(B.paths, "WEB", web)
    second = B.build(tmp_path / "second", quiet=True)
    before, after = set(published_files(first)), set(published_files(second))
    assert {rel.split("/")[1] for rel in before ^ after if rel.startswith("app/")} and all(
        rel.startswith("app/") for rel in before ^ after)
    assert build_info(first)["pyodide"] == build_info(second)["pyodide"]
    assert build_info(first)["poolgrad_wheel"] == build_info(second)["poolgrad_wheel"]
    assert build_info(first)["build_id"] != build_info(second)["build_id"]
