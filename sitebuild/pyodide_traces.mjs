// Build-time helper for build.py, for a machine whose Python has no NumPy: runs poolgrad
// (the package's sources, as they are) under the vendored Pyodide in Node, and answers
// each request key read from stdin (a JSON list) with poolgrad.wire.run_trace, the
// function the page's worker calls. Prints the answers as one JSON list.
//
//   node sitebuild/pyodide_traces.mjs PYODIDE_DIR PACKAGE_DIR NUMPY_WHEEL < keys.json

import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, packageDir, wheel] = process.argv.slice(2);
if (!dir || !packageDir || !wheel) {
  console.error("usage: node pyodide_traces.mjs PYODIDE_DIR PACKAGE_DIR NUMPY_WHEEL < keys.json");
  process.exit(2);
}
const keys = readFileSync(0, "utf8");
const indexURL = resolve(dir) + "/";
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL, stdout: () => {}, stderr: (line) => console.error(line) });

// NumPy unpacked from its pinned wheel (as sitebuild/pyodide_snapshot.mjs does: Python's own
// dlopen then loads its libraries), poolgrad copied file by file from the repository.
pyodide.FS.writeFile(`/tmp/${basename(wheel)}`, readFileSync(wheel));
const copy = (from, to) => {
  pyodide.FS.mkdirTree(to);
  for (const name of readdirSync(from)) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) {
      if (name !== "__pycache__") copy(path, `${to}/${name}`);
    } else if (name.endsWith(".py")) {
      pyodide.FS.writeFile(`${to}/${name}`, readFileSync(path));
    }
  }
};
// Beside Python's working directory in Pyodide's own file system, put first on sys.path.
const sources = `${pyodide.FS.cwd()}/src`;
copy(resolve(packageDir), `${sources}/poolgrad`);
pyodide.globals.set("keys_json", keys);
pyodide.globals.set("sources", sources);
const answers = pyodide.runPython(`
import glob, json, sys, zipfile
site_packages = next(p for p in sys.path if p.endswith("site-packages"))
for wheel in glob.glob("/tmp/*.whl"):
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site_packages)
sys.path.insert(0, sources)
from poolgrad.wire import run_trace
json.dumps([json.loads(run_trace(key)) for key in json.loads(keys_json)])
`);
process.stdout.write(`${answers}\n`);
