"""The notebook widget's front end: web/'s ES modules bundled into one module.

anywidget loads a widget's front end as ONE ES module (from a blob URL: its relative
imports cannot resolve), so `python build.py widget-bundle` writes web/notebook.js and
every module it imports, transitively, into py/poolgrad/widget.js, which the wheel
ships as package data. The bundler is ours and small, because our modules keep to a
small subset of the module syntax, which it checks and refuses to go beyond:

- imports: `import { a, b as c } from "./x.js";`, `import * as x from "./x.js";`;
- exports: `export function|async function|class|const|let name`, `export { a, b };`.

Each imported module becomes a function scope returning its exports, in dependency
order (so two modules' private names never meet); the entry stays at the top level,
with its own exports. A dynamic `import("./x.js")` (the views a page loads when first
opened: the chain, the picture) resolves to the bundled module. The modules of LEFT_OUT
are the page's alone (its Python workers): the notebook host never calls them, so each
becomes a stand-in whose every export throws, saying why, and a dynamic `import()` of one
resolves to its stand-in. A module's stylesheet beside it, `new URL("./x.css",
import.meta.url).href`, joins widget.css (a blob URL has no neighbours), and the expression
becomes null, so the module adds no link; a folder beside it (`new URL("./dir/",
import.meta.url).href`) is not in the bundle and becomes null too. The output depends only
on the sources, so it is reproducible: tests/test_widget_bundle.py rebuilds it and
compares bytes with the shipped file.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .common import BuildError, say
from . import paths

#: The entry, in web/, and where the bundle goes (py/poolgrad/, the package).
ENTRY_NAME = "notebook.js"
OUTPUT = paths.ROOT / "py" / "poolgrad" / "widget.js"
CSS_OUTPUT = OUTPUT.with_name("widget.css")

#: The page's modules a notebook has no use for, each with the reason: the host passes
#: mount() its own trace source and leaves the exercise panel out, so none is ever called.
LEFT_OUT = {
    "runtime/page-traces.js": "the page's Python in a worker: in a notebook the kernel computes every trace",
    "exercise/exercise.js": "the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check",
}

#: The class the notebook host gives its element: the page's style.css applies inside it only.
SCOPE = ".poolgrad-notebook"
#: style.css's dark set, which the notebook host applies when the notebook's theme is dark
#: (web/notebook.js sets data-scheme) rather than when the system's is.
_DARK_SET = re.compile(r"@media \(prefers-color-scheme: dark\) \{\s*:root(?:, :host)? \{(?P<set>[^{}]*)\}\s*\}")

#: A static import: named, a namespace, or for its side effect alone (a module that registers
#: something as it runs, evaluated before the importer as any import is).
_IMPORT = re.compile(r'^import\s+(?:(?:\{(?P<names>[^}]*)\}|\*\s+as\s+(?P<star>\w+))\s+from\s+)?"(?P<path>\.[^"]+)";[ \t]*\n?',
                     re.MULTILINE)
_DYNAMIC_IMPORT = re.compile(r'\bimport\(\s*"(?P<path>\.[^"]+)"\s*\)')
#: A module's neighbour: its stylesheet (which joins widget.css) or a folder of files.
_NEIGHBOUR = re.compile(r'new URL\("\./(?P<path>[\w-]+\.css|[\w-]+/)", import\.meta\.url\)\.href')
_EXPORT_LIST = re.compile(r"^export\s*\{(?P<names>[\w\s,]*)\};?[ \t]*\n?", re.MULTILINE)
_EXPORT = re.compile(r"^export\s+(?=(?:async\s+)?(?:function\*?|class|const|let)\s+(\w+))", re.MULTILINE)
_UNSUPPORTED = [
    (re.compile(r"^export\s+(?!(?:async\s+)?(?:function\*?|class|const|let)\s)", re.MULTILINE),
     "an export other than `export function|class|const|let name` or `export { names }`"),
    (re.compile(r"^import\s+'", re.MULTILINE), "an import quoted with '"),
    (re.compile(r'^import\s+(?!\{|\*)\w+\s*(?:,|from)', re.MULTILINE), "a default import"),
    (re.compile(r"\bimport\s*\("), "a dynamic import()"),
    (re.compile(r"\bimport\.meta\b"), "import.meta (the bundle's URL is a blob's)"),
]


def _name(path: Path) -> str:
    return "$" + re.sub(r"\W", "_", path.relative_to(paths.WEB).as_posix().removesuffix(".js"))


def _bindings(names: str, module: str) -> str:
    parts = []
    for item in filter(None, (part.strip() for part in names.split(","))):
        m = re.fullmatch(r"(\w+)(?:\s+as\s+(\w+))?", item)
        if not m:
            raise BuildError(f"widget bundle: cannot read the import `{item}` from {module}")
        parts.append(m.group(1) if not m.group(2) else f"{m.group(1)}: {m.group(2)}")
    return "{ " + ", ".join(parts) + " }"


def _left_out(path: Path) -> str | None:
    return LEFT_OUT.get(path.relative_to(paths.WEB).as_posix())


def _exports(source: str) -> list[str]:
    listed = [name.strip() for m in _EXPORT_LIST.finditer(source) for name in m.group("names").split(",") if name.strip()]
    return _EXPORT.findall(source) + listed


def _stand_in(path: Path) -> str:
    """A left-out module: its exports, each a function that throws why it is not here."""
    where = path.relative_to(paths.ROOT).as_posix()
    message = f"{where} is not in the notebook bundle ({_left_out(path)})"
    names = _exports(path.read_text(encoding="utf-8"))
    members = ", ".join(f"{name}() {{ throw new Error({message!r}); }}" for name in names)
    return f"\n// {where}: left out\nconst {_name(path)} = Object.freeze({{ {members} }});\n"


def _parse(path: Path, entry: bool, styles: list[Path]):
    """The module's source less its imports, its imports [(binding, module path)], its
    export names, the modules it imports dynamically. The entry keeps its exports, `export
    default` among them (anywidget's widget object). A dynamic import becomes the bundled
    module (a left-out one's stand-in); a stylesheet beside the module is added to
    `styles` and becomes null."""
    where = path.relative_to(paths.ROOT).as_posix()
    source = path.read_text(encoding="utf-8")
    dynamic = []

    def bundled(m):
        target = (path.parent / m.group("path")).resolve()
        if not target.is_file() or paths.WEB not in target.parents:
            return m.group(0)
        dynamic.append(target)
        return f"Promise.resolve({_name(target)})"

    def neighbour(m):
        if m.group("path").endswith(".css"):
            styles.append((path.parent / m.group("path")).resolve())
        return "null"

    source = _DYNAMIC_IMPORT.sub(bundled, source)
    source = _NEIGHBOUR.sub(neighbour, source)
    imports = []
    for m in _IMPORT.finditer(source):
        target = (path.parent / m.group("path")).resolve()
        if not target.is_file() or paths.WEB not in target.parents:
            raise BuildError(f"widget bundle: {where} imports {m.group('path')}, which is not a module of web/")
        binding = m.group("star") or (None if m.group("names") is None else _bindings(m.group("names"), where))
        imports.append((binding, target))
    body = _IMPORT.sub("", source)
    # `export { a, b };` (a re-export of imported names): its names join the exports.
    exports = _exports(body)
    body = _EXPORT_LIST.sub("", body)
    for pattern, what in _UNSUPPORTED[1 if entry else 0:]:
        if pattern.search(body):
            raise BuildError(f"widget bundle: {where} uses {what}, which the bundler does not handle")
    return body, imports, exports, dynamic


def bundle(entry: Path | None = None) -> str:
    """The bundle's text: every module `entry` (web/notebook.js) imports, then `entry` itself."""
    return _bundled(entry)[0]


def _bundled(entry: Path | None = None) -> tuple[str, list[Path]]:
    """The bundle's text, and the stylesheets its modules load beside them, in bundle order."""
    entry = entry or paths.WEB / ENTRY_NAME
    order: list[Path] = []
    parsed = {}
    visiting: list[Path] = []
    styles: list[Path] = []

    def visit(path):
        if path in parsed:
            return
        if path in visiting:
            cycle = " -> ".join(p.name for p in [*visiting, path])
            raise BuildError(f"widget bundle: circular import {cycle}")
        visiting.append(path)
        if _left_out(path):
            parsed[path] = None
        else:
            parsed[path] = _parse(path, entry=not visiting[:-1], styles=styles)
            for target in [target for _, target in parsed[path][1]] + parsed[path][3]:
                visit(target)
        visiting.pop()
        order.append(path)

    visit(entry.resolve())
    chunks = [f"// poolgrad's notebook widget: {entry.relative_to(paths.ROOT).as_posix()} and the modules it imports,\n"
              "// bundled by `python build.py widget-bundle` (sitebuild/widget_bundle.py). Do not edit.\n"]
    for path in order:
        if parsed[path] is None:
            chunks.append(_stand_in(path))
            continue
        body, imports, exports, _ = parsed[path]
        lines = "".join(f"const {binding} = {_name(target)};\n" for binding, target in imports if binding)
        where = path.relative_to(paths.ROOT).as_posix()
        if path == order[-1]:
            chunks.append(f"\n// {where}\n{lines}{body}")
        else:
            chunks.append(f"\n// {where}\nconst {_name(path)} = (() => {{\n{lines}{_EXPORT.sub('', body)}"
                          f"return Object.freeze({{ {', '.join(exports)} }});\n}})();\n")
    return "".join(chunks), list(dict.fromkeys(styles))


def stylesheet() -> str:
    """web/style.css for a notebook: inside SCOPE only (a notebook is someone else's page),
    its root's properties on the widget's element, its dark set under data-scheme; then
    the stylesheets the bundled modules load beside them (the chain's, the picture's)."""
    css = (paths.WEB / "style.css").read_text(encoding="utf-8")
    for style in _bundled()[1]:
        css += f"\n/* {style.relative_to(paths.WEB).as_posix()} */\n" + style.read_text(encoding="utf-8")
    css, found = _DARK_SET.subn(lambda m: f':scope[data-scheme="dark"] {{{m.group("set")}}}', css)
    if found != 1:
        raise BuildError("widget bundle: style.css no longer has one `@media (prefers-color-scheme: dark) "
                         "{ :root { ... } }` set for the notebook's dark theme")
    css = re.sub(r"^:root(?:, :host)?(?= \{)", ":scope", css, flags=re.MULTILINE)
    return (f"/* web/style.css and the views' stylesheets inside {SCOPE}, by `python build.py widget-bundle`. Do not edit. */\n"
            f"@scope ({SCOPE}) {{\n{css}}}\n")


def write_bundle(quiet: bool = False) -> dict[str, str]:
    """Write the bundle and its stylesheet; {path: sha256}, which it also prints."""
    digests = {}
    for output, text in ((OUTPUT, bundle()), (CSS_OUTPUT, stylesheet())):
        output.write_text(text, encoding="utf-8", newline="\n")
        where = output.relative_to(paths.ROOT).as_posix()
        digests[where] = hashlib.sha256(text.encode("utf-8")).hexdigest()
        say(f"widget-bundle: wrote {where} ({len(text)} bytes, sha256 {digests[where]})", quiet)
    return digests
