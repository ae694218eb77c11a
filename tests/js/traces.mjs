// Traces recorded from poolgrad.trace() by scripts/record_traces.py (tests/js/traces.json),
// so the pure front-end modules are tested on Python's real answers, without Pyodide.
import { readFileSync } from "node:fs";

const RECORDED = JSON.parse(readFileSync(new URL("./traces.json", import.meta.url), "utf8"));

export function recorded(name) {
  if (!(name in RECORDED)) throw new Error(`no recorded trace ${name}: add it to scripts/record_traces.py`);
  return structuredClone(RECORDED[name]);
}
