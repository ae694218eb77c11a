import assert from "node:assert/strict";
import { test } from "node:test";

import {
  defaultState, FIXTURE, HASH_PROPERTIES, hashFor, InputError, MATRIX_SPELLINGS, parseCellValue, parseHash, parseMatrix, parsePair,
  matrixText, requestKey, serialiseState, traceRequest, applies, changedState, modelValues, presetChange, stateFromModel, switchMode,
} from "../../web/widget/state.js";
import { recorded } from "./traces.mjs";

const FIXTURE_TEXT = "1,2,5,6;3,4,8,7;0,-1,-3,-2;-4,9,-6,-5";
const CANONICAL = `#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x=${FIXTURE_TEXT}`;

test("an empty hash is the default view: the lesson's fixture, 2 x 2 max pooling, stride 2", () => {
  assert.deepEqual(parseHash(""), defaultState());
  assert.deepEqual(defaultState().x, FIXTURE);
  assert.equal(serialiseState(defaultState()), `#k=2&s=2&p=0&d=1&mode=max&grad=0&x=${FIXTURE_TEXT}`);
});

test("the canonical hash parses to its state and serialises back unchanged", () => {
  const state = parseHash(CANONICAL);
  assert.deepEqual(state.k, [3, 3]);
  assert.deepEqual(state.s, [1, 1]);
  assert.deepEqual(state.sel, [0, 1]);
  assert.equal(state.grad, true);
  assert.equal(serialiseState(state), CANONICAL);
});

test("a missing stride equals the kernel, as in PyTorch; pairs keep their order", () => {
  assert.deepEqual(parseHash("#k=3").s, [3, 3]);
  const state = parseHash("#k=3,2&p=1,0&ceil=1&cip=0&mode=avg");
  assert.deepEqual([state.k, state.s, state.p, state.ceil, state.cip], [[3, 2], [3, 2], [1, 0], true, false]);
  assert.match(serialiseState(state), /^#k=3,2&s=3,2&p=1,0&d=1&mode=avg&ceil=1&cip=0&grad=0&x=/);
});

test("non-finite values survive the hash and reach the worker spelled as JSON-safe words", () => {
  const state = parseHash("#x=NaN,Infinity;-Infinity,1.5&g=1");
  assert.ok(Number.isNaN(state.x[0][0]));
  assert.deepEqual(traceRequest(state).x, [["NaN", "Infinity"], ["-Infinity", 1.5]]);
  assert.deepEqual(traceRequest(state).grad_output, [[1]]);
  assert.equal(traceRequest(parseHash("")).grad_output, 1);
});

test("the request key ignores what only the view uses (selection, gradient toggle)", () => {
  assert.equal(requestKey(parseHash("#k=3&sel=0,0&grad=1")), requestKey(parseHash("#k=3")));
  assert.notEqual(requestKey(parseHash("#k=3")), requestKey(parseHash("#k=2")));
});

const REFUSED = [
  ["#k=0", /kernel \(k\) must be between 1 and 16; got 0/],
  ["#k=3,2,1", /kernel \(k\) takes one number or a pair like 3,2/],
  ["#s=two", /stride \(s\) must be a whole number or a pair like 3,2; got "two"/],
  ["#mode=min", /mode must be max, avg, adaptive_max, adaptive_avg or lp; got "min"/],
  ["#grad=yes", /grad must be 0 or 1/],
  ["#k=2&k=3", /k appears twice in the link/],
  ["#zoom=2", /unknown setting "zoom" in the link/],
  ["#sel=a", /sel must be row,col of an output cell, like 0,1/],
  ["#x=1,2;3", /the input x is ragged: row 1 has 1 values, row 0 has 2/],
  ["#x=1,abc", /the input x row 0, col 1: "abc" is not a number/],
  ["#x=1e16", /too large; values must lie between -1e15 and 1e15/],
  [`#x=${Array(17).fill("1").join(";")}`, /the input x has 17 rows; the limit is 16 x 16/],
  [`#x=${Array(17).fill("1").join(",")}`, /the input x has 17 columns; the limit is 16 x 16/],
  ["#mode=avg&d=2", /dilation applies to max pooling only/],
  ["#x=", /the input x is empty/],
];

for (const [hash, message] of REFUSED) {
  test(`refuses ${hash.slice(0, 30)} with a message saying what to fix`, () => {
    assert.throws(() => parseHash(hash), (error) => error instanceof InputError && error.source === "hash" && message.test(error.message));
  });
}

test("the first bad setting in the link's order is the one reported", () => {
  assert.throws(() => parseHash("#mode=min&k=0"), /mode must be max, avg, adaptive_max, adaptive_avg or lp/);
  assert.throws(() => parseHash("#k=0&mode=min"), /kernel \(k\) must be between 1 and 16/);
});

test("one table drives both directions: every key, in the canonical order, and what is left out", async () => {
  const poolKeys = ["k", "s", "p", "d", "mode", "o", "n", "ceil", "cip", "grad", "unpool", "sel", "x", "g", "view"];
  // The pool view's rows; a view loaded when first opened adds its own as its module loads.
  assert.deepEqual(HASH_PROPERTIES.map((p) => p.key), poolKeys);
  // Besides the hash's keys, the state knows whether its selection is the implicit one.
  assert.deepEqual(Object.keys(defaultState()).sort(), [...HASH_PROPERTIES.map((p) => p.key), "selImplicit"].sort());
  const full = "#k=3,2&s=1&p=1,0&d=2&mode=max&ceil=1&grad=1&sel=1,0&x=1,2;3,4&g=-0,NaN;Infinity,-Infinity";
  assert.equal(serialiseState(parseHash(full)), full);
  // Left out while they equal their initial value: ceil=0, cip=1, no selection, g of ones.
  assert.equal(serialiseState(parseHash("#ceil=0&cip=1&mode=avg")), `#k=2&s=2&p=0&d=1&mode=avg&grad=0&x=${FIXTURE_TEXT}`);
  assert.throws(() => parseHash("#zoom=1"), /known settings: k, s, p, d, mode, o, n, ceil, cip, grad, unpool, sel, x, g, view$/);
  // A link to a view whose module has not loaded is a host's mistake, not the learner's.
  assert.throws(() => parseHash("#view=chain"), (e) => !(e instanceof InputError) && /view=chain: its module has not loaded/.test(e.message));
  await import("../../web/chain/keys.js");
  await import("../../web/picture/keys.js");
  const viewKeys = ["cx", "cw", "cb", "relu", "cpool", "cpk", "cup", "hot", "ct", "lr", "steps", "pic", "psize", "pch", "prep", "psel"];
  assert.deepEqual(HASH_PROPERTIES.map((p) => p.key), [...poolKeys, ...viewKeys]);
  assert.throws(() => parseHash("#zoom=1"), new RegExp(`known settings: ${[...poolKeys, ...viewKeys].join(", ")}$`));
  assert.equal(serialiseState(parseHash(full)), full);
});

test("every property's written text parses back to the same value", () => {
  const state = parseHash("#k=3,2&s=1,2&p=1&d=1,2&ceil=1&cip=0&grad=1&sel=2,3&x=0.1,-0,1e-7&g=2");
  assert.deepEqual(parseHash(serialiseState(state)), state);
  assert.ok(Object.is(parseHash(serialiseState(state)).x[0][1], -0));
});

test("pairs typed in the parameter fields are refused as a field's error, with the hash's wording", () => {
  assert.deepEqual(parsePair(" 3 , 2", "k", "field"), [3, 2]);
  assert.throws(() => parsePair("9", "p", "field"), (e) => e.source === "field" && /padding \(p\) must be between 0 and 8; got 9/.test(e.message));
});

test("a field takes a pair with any separator a phone keypad has: space, ;, x, * or ×", () => {
  for (const text of ["3,2", "3 2", "3  2", " 3;2 ", "3x2", "3 X 2", "3*2", "3×2", "3 × 2", "3, 2"]) {
    assert.deepEqual(parsePair(text, "k", "field"), [3, 2], text);
  }
  assert.deepEqual(parsePair(" 4 ", "s", "field"), [4, 4]);
  assert.throws(() => parsePair("3 2 1", "k", "field"), (e) => e.source === "field" && e.message === 'kernel (k) takes one number or a pair like 3,2; got "3 2 1"');
  assert.throws(() => parsePair("3.2", "k", "field"),
    (e) => e.message === 'kernel (k) must be a whole number or a pair like 3,2 (or 3 2, 3x2); got "3.2"');
  assert.throws(() => parsePair("3,", "d", "field"), /dilation \(d\) must be a whole number or a pair like 3,2 \(or 3 2, 3x2\); got ""/);
  assert.throws(() => parsePair("3 -1", "p", "field"), /padding \(p\) must be a whole number .*; got "-1"/);
  // The link is the page's own writing: it keeps to the comma, and says so.
  assert.throws(() => parseHash("#k=3x2"), (e) => e.source === "hash" && e.message === 'kernel (k) must be a whole number or a pair like 3,2; got "3x2"');
  assert.throws(() => parseHash("#k=3%202"), /kernel \(k\) must be a whole number or a pair like 3,2; got "3 2"/);
});

test("with no sel in the link the first output is selected, implicitly: the link never writes it", () => {
  const implicit = parseHash(`#k=3&s=1&x=${FIXTURE_TEXT}`);
  assert.deepEqual([implicit.sel, implicit.selImplicit], [[0, 0], true]);
  assert.equal(serialiseState(implicit), `#k=3&s=1&p=0&d=1&mode=max&grad=0&x=${FIXTURE_TEXT}`);
  assert.deepEqual([defaultState().sel, defaultState().selImplicit], [[0, 0], true]);
  // A link's sel, even 0,0, is somebody's pick and stays in the link.
  const picked = parseHash("#sel=0,0");
  assert.deepEqual([picked.sel, picked.selImplicit], [[0, 0], false]);
  assert.match(serialiseState(picked), /&sel=0,0&/);
  // The learner's pick (what app.js's select does) is written; so is nothing after Escape:
  // a link cannot say "nothing selected", so it opens with the first output selected.
  assert.match(serialiseState({ ...implicit, sel: [1, 1], selImplicit: false }), /&sel=1,1&/);
  assert.doesNotMatch(serialiseState({ ...implicit, sel: null, selImplicit: false }), /sel=/);
});

const paste = (text) => parseMatrix(text, MATRIX_SPELLINGS.paste());

test("the paste box reads rows on lines, spaces or commas, and bracketed NumPy and list forms", () => {
  assert.deepEqual(paste("1 5 2\n3, 4, 1\n"), [[1, 5, 2], [3, 4, 1]]);
  assert.deepEqual(paste("[[1, 2], [3, 4]]"), [[1, 2], [3, 4]]);
  assert.deepEqual(paste("array([[1.5, 2. , 3. ],\n       [4. , 5. , 6. ]])"), [[1.5, 2, 3], [4, 5, 6]]);
  assert.deepEqual(paste("[[1 2]\n [3 4]]"), [[1, 2], [3, 4]]);
  assert.deepEqual(paste("NaN -Infinity"), [[NaN, -Infinity]]);
  assert.deepEqual(paste("1,2,3\n4,5,6"), [[1, 2, 3], [4, 5, 6]]); // comma-separated values
  assert.ok(Object.is(paste("-0 1")[0][0], -0));
});

test("the paste box reads NumPy's and PyTorch's printouts with their keywords, and Python's nan and inf", () => {
  assert.deepEqual(paste("array([[1, 2], [3, 4]], dtype=int8)"), [[1, 2], [3, 4]]);
  // The Code panel's own snippets print this.
  assert.deepEqual(paste("tensor([[4., 8.],\n        [9., -2.]], dtype=torch.float64)"), [[4, 8], [9, -2]]);
  assert.deepEqual(paste("tensor([[4., 8.]], dtype=torch.float64, requires_grad=True)"), [[4, 8]]);
  assert.deepEqual(paste("np.array([ 1.5,  2. ])"), [[1.5, 2]]);
  assert.deepEqual(paste("nan inf -inf\n1 2 3"), [[NaN, Infinity, -Infinity], [1, 2, 3]]);
  assert.deepEqual(paste("array([[nan, -inf]])"), [[NaN, -Infinity]]);
  assert.deepEqual(paste("1e-320 0e5"), [[1e-320, 0]]); // a subnormal is a double; 0e5 is 0
});

const AMBIGUOUS_COMMA = /could be a decimal comma \(1,5 for 1\.5\) or a thousands separator \(1,000 for 1000\); write decimals with a point \(1\.5\), thousands with no separator \(1000\), and separate values with spaces or ", "\.$/;

const PASTE_REFUSED = [
  ["1 2\n3", /^Row 1 has 1 numbers but row 0 has 2; every row needs the same count\.$/],
  ["[[1, 2], [3]]", /^Row 1 has 1 numbers but row 0 has 2/],
  ["[[1, 2], 3, 4]", /numbers outside the brackets of its rows/],
  ["1 two", /^Row 0, col 1: "two" is not a number/],
  ["", /^Paste some numbers first/],
  ["[]", /^Paste some numbers first/],
  [Array(17).fill("1").join("\n"), /^The pasted matrix has 17 rows; the limit is 16 x 16\.$/],
  [Array(17).fill("1").join(" "), /^The pasted matrix has 17 columns; the limit is 16 x 16\.$/],
  ["1e16", /too large; values must lie between -1e15 and 1e15/],
  ["1e400", /^Row 0, col 0: "1e400" is too large/],
  ["1 1e-400", /^Row 0, col 1: "1e-400" is too small for a double \(it would become 0; the smallest is about 5e-324\); write 0 if you mean 0$/],
  // Decimal commas, as a German or French spreadsheet writes them; thousands separators.
  ["1,5 2,5\n3,5 4,5", /^Row 0: the comma in "1,5"/],
  ["1,000 2,500", /^Row 0: the comma in "1,000"/],
  ["1 2\n2,5 -0,75", /^Row 1: the comma in "2,5"/],
  ["1, 2,5", /^Row 0: the comma in "2,5"/],
  ["1,000,2", AMBIGUOUS_COMMA],
  ["[[1,5 2,5]]", AMBIGUOUS_COMMA],
  ["[[[1,2],[3,4]],[[5,6],[7,8]]]", /^The pasted matrix has 3 dimensions \(brackets nested 3 deep\); the widget shows one 2-D plane/],
  ["array([[[1]]], dtype=int8)", /has 3 dimensions/],
  ["[[1, 2], [3, 4]", /brackets do not match/],
  ["tensor([[1, 2]], grad_fn=<X>) 5", /numbers outside the brackets/],
];

for (const [text, message] of PASTE_REFUSED) {
  test(`the paste box refuses ${JSON.stringify(text).slice(0, 24)} as a paste error, not a hash error`, () => {
    assert.throws(() => paste(text), (error) => error instanceof InputError && error.source === "paste" && message.test(error.message));
  });
}

test("a cell edit takes one number by the same rule as the matrices", () => {
  assert.equal(parseCellValue(" -1.5e2 ", "Input cell (0,0)"), -150);
  assert.ok(Object.is(parseCellValue("-0", "Input cell (0,0)"), -0));
  assert.throws(() => parseCellValue("1,2", "Input cell (0,1)"),
    (e) => e.source === "cell" && e.message === 'Input cell (0,1): "1,2" is not a number (use digits like 3, -1.5, 2e-3, or NaN / Infinity)');
});

test("the link drops a selection the current output does not have; the state keeps it", () => {
  const { trace } = recorded("fixture_k2_grad"); // 2 x 2 output
  const state = parseHash(`#k=2&sel=5,5&x=${FIXTURE_TEXT}`);
  assert.equal(hashFor(state, trace), `#k=2&s=2&p=0&d=1&mode=max&grad=0&x=${FIXTURE_TEXT}`);
  assert.deepEqual(state.sel, [5, 5]);
  // In range it stays; with no answer for this state yet, the link says what the state says.
  assert.match(hashFor(parseHash("#sel=1,1"), trace), /&sel=1,1&/);
  assert.match(hashFor(state, null), /&sel=5,5&/);
  assert.equal(hashFor(parseHash("#k=3"), trace), serialiseState(parseHash("#k=3")));
});

test("changedState: a change of shape resets the custom gradient, a change of view does not", () => {
  const withGradient = parseHash(`#k=2&g=1,2;3,4&x=${FIXTURE_TEXT}`);
  assert.equal(changedState(withGradient, { k: [3, 3] }).g, null);
  assert.equal(changedState(withGradient, { x: [[1, 2], [3, 4]] }).g, null);
  assert.deepEqual(changedState(withGradient, { grad: true }).g, [[1, 2], [3, 4]]);
  assert.deepEqual(changedState(withGradient, { cip: false }).g, [[1, 2], [3, 4]]);
  assert.deepEqual(changedState(withGradient, { k: [2, 2] }).g, [[1, 2], [3, 4]], "an unchanged value is no change");
  assert.deepEqual(withGradient.g, [[1, 2], [3, 4]], "the state given is left as it was");
});

test("average pooling has no dilation: switching mode sets it back to 1, and the rule says where each parameter applies", () => {
  const dilated = parseHash(`#k=2&d=2&g=1;2&x=${FIXTURE_TEXT}`);
  const state = structuredClone(dilated);
  switchMode("avg")(state);
  assert.deepEqual([state.mode, state.d, state.g], ["avg", [1, 1], null]);
  assert.deepEqual([applies("d", dilated), applies("cip", dilated), applies("d", state), applies("cip", state)], [true, false, false, true]);
  assert.throws(() => parseHash(`#mode=avg&d=2&x=${FIXTURE_TEXT}`), /dilation applies to max pooling only/);
  const preset = structuredClone(dilated);
  presetChange("distinct")(preset);
  assert.deepEqual([preset.x[0], preset.g], [[1, 2, 3, 4], null]);
});

test("the host model: modelValues and stateFromModel round-trip, text spellings included, and refuse as the hash does", () => {
  const state = parseHash(`#k=3,2&s=1&p=1&d=1&mode=max&ceil=1&grad=1&sel=0,1&x=NaN,-0,2;Infinity,1,-Infinity&g=1,2`);
  const values = modelValues(state);
  assert.deepEqual(values.x, [["NaN", "-0", 2], ["Infinity", 1, "-Infinity"]]);
  assert.deepEqual([values.kernel_size, values.selection, values.ceil_mode], [[3, 2], [0, 1], true]);
  assert.equal(serialiseState(stateFromModel((key) => JSON.parse(JSON.stringify(values))[key])), serialiseState(state));
  const fromText = stateFromModel((key) => ({ kernel_size: "3", stride: 1, gradient: true, x: FIXTURE_TEXT, selection: "0,1" })[key]);
  assert.equal(serialiseState(fromText), CANONICAL);
  assert.throws(() => stateFromModel((key) => ({ kernel_size: "abc" })[key]), (error) => error instanceof InputError
    && error.message === 'kernel (k) must be a whole number or a pair like 3,2; got "abc"');
  assert.throws(() => stateFromModel((key) => ({ x: [[1, 2], [3]] })[key]), /ragged/);
  assert.equal(modelValues(defaultState()).selection, null, "the implicit selection is nobody's");
});

// ---- the rest of the family: adaptive, LP and unpooling (o=, n=, unpool=) ----

// Links of every form the page wrote before the family's modes came, with the request each
// sent then (its exact JSON, under which the build files its shipped traces).
const OLD_LINKS = [
  `#k=2&s=2&p=0&d=1&mode=max&grad=0&x=${FIXTURE_TEXT}`,
  CANONICAL,
  "#k=3,2&s=1&p=1,0&d=2&mode=max&ceil=1&grad=1&sel=1,0&x=1,2;3,4&g=-0,NaN;Infinity,-Infinity",
  `#k=3&s=1&p=1&d=1&mode=avg&cip=0&grad=1&x=${FIXTURE_TEXT}`,
  "#k=2&s=1&p=0&d=1&mode=avg&ceil=1&grad=0&sel=0,2&x=0.1,-0,1e-7;4,5,6&g=1,2",
];
const oldRequest = (state) => JSON.stringify({
  x: state.x.map((row) => row.map((v) => (Number.isFinite(v) && !Object.is(v, -0) ? v : String(Object.is(v, -0) ? "-0" : v)))),
  kernel_size: state.k, stride: state.s, padding: state.p, dilation: state.d, ceil_mode: state.ceil,
  count_include_pad: state.cip, mode: state.mode,
  grad_output: state.g ? state.g.map((row) => row.map((v) => (Number.isFinite(v) && !Object.is(v, -0) ? v : String(Object.is(v, -0) ? "-0" : v)))) : 1,
});

test("every link of the old form parses to the state it did and writes back the same hash and request", () => {
  for (const link of OLD_LINKS) {
    const state = parseHash(link);
    assert.equal(serialiseState(state), link);
    assert.deepEqual([state.o, state.n, state.unpool], [[2, 2], 2, false], link);
    assert.equal(requestKey(state), oldRequest(state), link);
    assert.equal(Object.keys(traceRequest(state)).join(), "x,kernel_size,stride,padding,dilation,ceil_mode,count_include_pad,mode,grad_output");
  }
});

test("the adaptive modes: o= is written and sent, the window parameters are not sent", () => {
  const link = `#k=2&s=2&p=0&d=1&mode=adaptive_avg&o=1&grad=0&x=${FIXTURE_TEXT}`;
  const state = parseHash(link);
  assert.deepEqual([state.mode, state.o], ["adaptive_avg", [1, 1]]);
  assert.equal(serialiseState(state), link);
  assert.deepEqual(traceRequest(state), { x: FIXTURE, output_size: [1, 1], mode: "adaptive_avg", grad_output: 1 });
  assert.deepEqual(parseHash("#mode=adaptive_max&o=3,2&unpool=1&sel=2,1").o, [3, 2]);
  assert.equal(traceRequest(parseHash("#mode=adaptive_max&o=3&unpool=1")).unpool, true);
  assert.equal(serialiseState(parseHash("#mode=adaptive_max&o=3&unpool=1")), `#k=2&s=2&p=0&d=1&mode=adaptive_max&o=3&grad=0&unpool=1&x=${FIXTURE_TEXT}`);
  // A mode's own key is written in that mode only; the state keeps it across a switch.
  const back = structuredClone(state);
  switchMode("max")(back);
  assert.deepEqual(back.o, [1, 1]);
  assert.equal(serialiseState(back), `#k=2&s=2&p=0&d=1&mode=max&grad=0&x=${FIXTURE_TEXT}`);
});

test("LP pooling: n= is p, written and sent in mode=lp only; padding and dilation do not apply", () => {
  const state = parseHash(`#k=2&mode=lp&n=3&x=${FIXTURE_TEXT}`);
  assert.equal(state.n, 3);
  assert.equal(serialiseState(state), `#k=2&s=2&p=0&d=1&mode=lp&n=3&grad=0&x=${FIXTURE_TEXT}`);
  assert.deepEqual(traceRequest(state), { x: FIXTURE, kernel_size: [2, 2], stride: [2, 2], ceil_mode: false, mode: "lp", norm_type: 3, grad_output: 1 });
  assert.equal(traceRequest(parseHash("#mode=lp&n=Infinity")).norm_type, "Infinity");
  assert.equal(parseHash("#mode=lp&n=inf").n, Infinity);
  assert.equal(serialiseState(parseHash("#mode=lp&n=inf")).includes("n=Infinity"), true);
  assert.equal(parseHash("#mode=lp&n=0.5").n, 0.5);
  const padded = parseHash("#k=3&p=1&d=2");
  switchMode("lp")(padded);
  assert.deepEqual([padded.p, padded.d], [[0, 0], [1, 1]]);
  switchMode("adaptive_avg")(padded);
  assert.deepEqual([applies("k", padded), applies("o", padded), applies("unpool", padded), applies("n", padded)], [false, true, false, false]);
});

const FAMILY_REFUSED = [
  ["#mode=max&o=2", /o does not apply to mode=max; the output size is the adaptive modes'/],
  ["#mode=avg&n=2", /n does not apply to mode=avg; the norm type is LP pooling's/],
  ["#mode=avg&unpool=1", /unpool does not apply to mode=avg; unpooling puts back the maxima of the max modes/],
  ["#mode=lp&n=0", /norm type \(n\) must not be 0/],
  ["#mode=lp&n=two", /norm type \(n\) must be a number such as 1, 2 or 3/],
  ["#mode=lp&n=NaN", /norm type \(n\) must be a number/],
  // Issue 27, 6: words the lookup of "Infinity" inherited from Object.prototype, and a
  // spelling a double rounds to Infinity (only the word means it).
  ["#mode=lp&n=__proto__", /norm type \(n\) must be a number .*; got "__proto__"$/],
  ["#mode=lp&n=constructor", /norm type \(n\) must be a number .*; got "constructor"$/],
  ["#mode=lp&n=toString", /norm type \(n\) must be a number .*; got "toString"$/],
  ["#mode=lp&n=1e400", /norm type \(n\) must be a number .*between -1000 and 1000; got "1e400"$/],
  ["#mode=lp&n=-1e400", /norm type \(n\) must be a number .*between -1000 and 1000; got "-1e400"$/],
  ["#mode=lp&p=1", /padding does not apply to mode=lp \(LP pooling has none\); use p=0/],
  ["#mode=adaptive_avg&o=0", /output size \(o\) must be between 1 and 16; got 0/],
  ["#mode=adaptive_avg&ceil=1", /ceil does not apply to mode=adaptive_avg/],
  ["#mode=adaptive_max&d=2", /dilation applies to max pooling only; use d=1 with mode=adaptive_max/],
];

for (const [hash, message] of FAMILY_REFUSED) {
  test(`refuses ${hash} with a message saying what to fix`, () => {
    assert.throws(() => parseHash(hash), (error) => error instanceof InputError && error.source === "hash" && message.test(error.message));
  });
}

test("an element's norm_type of __proto__ is refused before it reaches Python", () => {
  for (const norm_type of ["__proto__", "constructor", "1e400"]) {
    assert.throws(() => stateFromModel((key) => ({ mode: "lp", norm_type })[key]),
      (error) => error instanceof InputError && error.message.endsWith(`got "${norm_type}"`));
  }
});

test("the host model carries output_size, norm_type and unpool, read where their mode applies", () => {
  const state = parseHash(`#mode=adaptive_max&o=3,2&unpool=1&x=${FIXTURE_TEXT}`);
  const values = modelValues(state);
  assert.deepEqual([values.output_size, values.norm_type, values.unpool], [[3, 2], 2, true]);
  assert.equal(serialiseState(stateFromModel((key) => values[key])), serialiseState(state));
  // A host sets attributes in any order: output_size under mode=max waits for its mode.
  const kept = stateFromModel((key) => ({ mode: "max", output_size: "3", norm_type: "4" })[key]);
  assert.deepEqual([kept.mode, kept.o, kept.n], ["max", [2, 2], 2]);
  assert.deepEqual(stateFromModel((key) => ({ mode: "lp", norm_type: "Infinity" })[key]).n, Infinity);
  assert.throws(() => stateFromModel((key) => ({ mode: "lp", norm_type: "0" })[key]), /must not be 0/);
});

test("a change of output size resets a custom gradient (its shape may no longer fit)", () => {
  const state = parseHash(`#mode=adaptive_avg&o=2&g=1,2;3,4&x=${FIXTURE_TEXT}`);
  assert.equal(changedState(state, { o: [3, 3] }).g, null);
  assert.deepEqual(changedState(state, { unpool: false }).g, [[1, 2], [3, 4]]);
});

test("a matrix given as rows keeps -0 and must be a 2-D grid (issue 27, 6)", () => {
  assert.equal(matrixText("x", [[-0, 1], ["NaN", -Infinity]]), "-0,1;NaN,-Infinity");
  for (const rows of [[[[1, 2]], [[3, 4]]], [[1, 2], 3], [1, 2, 3], [[1, [2]]], [["1,2"]], [[{}]], 5]) {
    assert.throws(() => matrixText("x", rows),
      (error) => error instanceof InputError && /^the input x must be a grid: rows of numbers, like \[\[1, 2\], \[3, 4\]\]; got "/.test(error.message));
  }
  assert.throws(() => stateFromModel((key) => ({ grad_output: [[[1, 2]], [[3, 4]]] })[key]),
    (error) => error instanceof InputError && error.message.startsWith("the upstream gradient g must be a grid"));
  assert.deepEqual(stateFromModel((key) => ({ x: [[-0, 1]] })[key]).x.map((row) => row.map((v) => Object.is(v, -0))), [[true, false]]);
});
