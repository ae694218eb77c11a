import assert from "node:assert/strict";
import { test } from "node:test";

import { cellName, decodeNumber, describeSpan, encodeNumber, formatNumber, formatSum } from "../../web/widget/format.js";

test("cells show up to 4 decimals, trailing zeros dropped, integers exactly", () => {
  const shown = [3, -2, 0.25, 10.25, 1 / 3, -0.00004, 123456789, 2.5e-5, 0.1 + 0.2].map(formatNumber);
  assert.deepEqual(shown, ["3", "-2", "0.25", "10.25", "0.3333", "0", "123456789", "0", "0.3"]);
  // -0 is a value of its own (the input may hold it); a tiny negative only rounds to 0.
  assert.deepEqual([-0, 0, -0.00004].map(formatNumber), ["-0", "0", "0"]);
});

test("non-finite values from trace() decode to numbers and display as symbols", () => {
  assert.ok(Number.isNaN(decodeNumber("NaN")));
  assert.equal(decodeNumber("-Infinity"), -Infinity);
  assert.deepEqual(["NaN", "Infinity", "-Infinity"].map(formatNumber), ["NaN", "∞", "-∞"]);
  assert.throws(() => decodeNumber("12"), TypeError);
});

test("the hash spelling round-trips every double", () => {
  for (const value of [0.1, -1.5e-7, 1e15, NaN, Infinity, -Infinity]) {
    const back = Number(encodeNumber(value));
    assert.ok(Object.is(back, value), `${value} came back as ${back}`);
  }
});

test("sums and spans read as the lesson writes them", () => {
  assert.equal(formatSum([1, 2], 3), "1 + 2 = 3");
  assert.equal(formatSum([0.25, "Infinity"], "Infinity"), "0.25 + ∞ = ∞");
  assert.equal(cellName([1, 2]), "(1,2)");
  assert.equal(describeSpan("row", [0, 1, 2]), "rows 0–2");
  assert.equal(describeSpan("col", [-1, 0, 1]), "cols -1 to 1");
  assert.equal(describeSpan("row", [0, 2, 4]), "rows 0, 2, 4");
  assert.equal(describeSpan("col", [3]), "col 3");
});
