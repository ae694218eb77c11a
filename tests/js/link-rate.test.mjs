// How the worker judges the link that picks Python's start path (web/runtime/python-runtime.js).

import test from "node:test";
import assert from "node:assert/strict";

import { linkRate } from "../../web/runtime/python-runtime.js";

const RUNTIME = "https://school.example/pyodide/pyodide.asm.wasm";
const entry = (name, startTime, responseEnd, encodedBodySize) => ({ name, startTime, responseEnd, encodedBodySize });

test("every byte that crossed while the runtime came counts, over its request to its last byte", () => {
  const entries = [
    entry(RUNTIME, 100, 1100, 3.2e6), // gzipped by the host: a third of the 10 MB the page reads
    entry("https://school.example/stdlib-subset.zip", 100, 400, 0.78e6),
    entry("https://school.example/pyodide-lock.json", 100, 150, 0.02e6),
  ];
  assert.equal(linkRate(entries, RUNTIME, { received: 10.1e6, requested: 90, lastByte: 1100 }), 4e6);
});

test("a file still coming when the runtime ended counts with the share of it that crossed by then", () => {
  const entries = [entry(RUNTIME, 0, 1000, 3e6), entry("https://school.example/numpy.zip", 500, 1500, 2e6)];
  assert.equal(linkRate(entries, RUNTIME, {}), 4e6);
});

test("files fetched before or after the runtime's download do not count", () => {
  const entries = [
    entry("https://school.example/build-info.json", 0, 50, 5e3),
    entry(RUNTIME, 100, 600, 5e6),
    entry("https://school.example/numpy-snapshot.bin.gz", 700, 1500, 9.5e6),
  ];
  assert.equal(linkRate(entries, RUNTIME, {}), 10e6);
});

test("without the runtime's entry or its sizes, the bytes read count as a gzipping host sends them", () => {
  const read = { received: 9e6, requested: 0, lastByte: 1000 };
  assert.equal(linkRate([], RUNTIME, read), 3e6);
  assert.equal(linkRate([entry(RUNTIME, 0, 1000, 0)], RUNTIME, read), 3e6); // cross-origin, no Timing-Allow-Origin
});

test("an instant download gives a finite rate", () => {
  assert.ok(Number.isFinite(linkRate([entry(RUNTIME, 5, 5, 1e6)], RUNTIME, {})));
  assert.ok(Number.isFinite(linkRate([], RUNTIME, { received: 1e6, requested: 3, lastByte: 3 })));
});
