"""The notebook widget's front end (py/poolgrad/widget.js, widget.css) is in step with
web/: rebuilding it from the sources gives the shipped bytes, and the wheel ships both."""

import hashlib
import re
import subprocess
import zipfile

import pytest

import sitebuild
from sitebuild import paths, widget_bundle
from sitebuild.wheel import poolgrad_wheel


def test_the_shipped_bundle_is_the_bundle_of_web():
    assert widget_bundle.OUTPUT.read_text(encoding="utf-8") == widget_bundle.bundle(), (
        "py/poolgrad/widget.js is out of step with web/: run `python build.py widget-bundle`")
    assert widget_bundle.CSS_OUTPUT.read_text(encoding="utf-8") == widget_bundle.stylesheet(), (
        "py/poolgrad/widget.css is out of step with web/style.css: run `python build.py widget-bundle`")


def test_the_bundle_is_one_module_whose_default_export_renders(tmp_path):
    text = widget_bundle.bundle()
    assert not re.search(r'^import\s', text, re.MULTILINE)
    script = tmp_path / "probe.mjs"
    script.write_text(f"const m = await import({str(widget_bundle.OUTPUT.as_uri())!r});\n"
                      "console.log(typeof m.default.render);\n", encoding="utf-8")
    out = subprocess.run(["node", str(script)], capture_output=True, text=True, check=True).stdout
    assert out == "function\n"


@pytest.mark.parametrize("source, what", [
    ('export default 1;\n', "an export other than"),
    ("import './format.js';\n", "an import quoted with '"),
    ('const m = await import(where);\nexport const a = m;\n', "a dynamic import()"),
    ('export const here = import.meta.url;\n', "import.meta"),
])
def test_the_bundler_refuses_what_it_does_not_handle(tmp_path, monkeypatch, source, what):
    web = tmp_path / "web"
    web.mkdir()
    (web / "format.js").write_text("export const one = 1;\n", encoding="utf-8")
    (web / "odd.js").write_text(source, encoding="utf-8")
    (web / "notebook.js").write_text('import { one } from "./format.js";\nimport * as odd from "./odd.js";\n'
                                     "export default { one, odd };\n", encoding="utf-8")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    monkeypatch.setattr(paths, "WEB", web)
    with pytest.raises(sitebuild.BuildError, match=re.escape(what)):
        widget_bundle.bundle()


def bundled_output(tmp_path, monkeypatch, files):
    """What Node prints running the bundle of `files` (name -> source under web/, with
    notebook.js the entry)."""
    web = tmp_path / "web"
    web.mkdir()
    for name, source in files.items():
        (web / name).write_text(source, encoding="utf-8")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    monkeypatch.setattr(paths, "WEB", web)
    out = tmp_path / "out.mjs"
    out.write_text(widget_bundle.bundle(), encoding="utf-8")
    return subprocess.run(["node", str(out)], capture_output=True, text=True, check=True).stdout


def test_imported_modules_keep_their_private_names_apart(tmp_path, monkeypatch):
    assert bundled_output(tmp_path, monkeypatch, {
        "a.js": "const secret = 1;\nexport function a() { return secret; }\n",
        "b.js": "const secret = 2;\nexport const b = () => secret;\n",
        "notebook.js": 'import { a } from "./a.js";\nimport { b as bee } from "./b.js";\nconsole.log(a() + bee() * 10);\n',
    }) == "21\n"


def test_a_side_effect_import_runs_its_module_first(tmp_path, monkeypatch):
    # The notebook host imports the chain's and the picture's keys for what they register.
    assert bundled_output(tmp_path, monkeypatch, {
        "table.js": "export const table = [];\n",
        "keys.js": 'import { table } from "./table.js";\ntable.push("chain");\n',
        "notebook.js": 'import "./keys.js";\nimport { table } from "./table.js";\nconsole.log(table.join());\n',
    }) == "chain\n"


def test_the_wheel_ships_the_bundle(tmp_path):
    wheel = poolgrad_wheel(tmp_path, quiet=True)
    with zipfile.ZipFile(wheel) as zf:
        for name in ("widget.js", "widget.css"):
            shipped = (paths.ROOT / "py" / "poolgrad" / name).read_bytes()
            assert hashlib.sha256(zf.read(f"poolgrad/{name}")).digest() == hashlib.sha256(shipped).digest()


def test_a_view_imported_when_first_opened_is_bundled_and_its_stylesheet_joins_widget_css(tmp_path, monkeypatch):
    web = tmp_path / "web"
    web.mkdir()
    (web / "view.js").write_text('const STYLE = new URL("./view.css", import.meta.url).href;\n'
                                 'export const shown = () => `${STYLE} 7`;\n', encoding="utf-8")
    (web / "view.css").write_text(".view { color: red; }\n", encoding="utf-8")
    (web / "notebook.js").write_text('const view = await import("./view.js");\nconsole.log(view.shown());\n',
                                     encoding="utf-8")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    monkeypatch.setattr(paths, "WEB", web)
    text, styles = widget_bundle._bundled()
    assert styles == [web / "view.css"]
    out = tmp_path / "out.mjs"
    out.write_text(text, encoding="utf-8")
    assert subprocess.run(["node", str(out)], capture_output=True, text=True, check=True).stdout == "null 7\n"


def test_the_shipped_stylesheet_holds_the_chain_and_picture_views_styles_in_scope():
    css = widget_bundle.CSS_OUTPUT.read_text(encoding="utf-8")
    for style in ("chain/chain.css", "picture/picture.css"):
        assert (paths.WEB / style).read_text(encoding="utf-8") in css
    assert css.startswith("/* web/style.css and the views' stylesheets inside .poolgrad-notebook")
    assert css.rstrip().endswith("}") and css.count("@scope (.poolgrad-notebook) {") == 1
