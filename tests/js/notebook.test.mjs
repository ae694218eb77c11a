// web/notebook.js without a browser: the adapter from anywidget's model to mount's, and the
// trace source the kernel answers (tests/notebook drives both in JupyterLab).
import assert from "node:assert/strict";
import { test } from "node:test";

import { chainRequestKey } from "../../web/chain/request.js";
import { kernelPicture, kernelTraces, notebookModel, viewKey } from "../../web/notebook.js";
import { FIXTURE, defaultState, requestKey } from "../../web/widget/state.js";

// anywidget's model, as the kernel's settings arrive in it (one message: set, then events).
function fakeModel(values) {
  const handlers = new Map();
  const sent = [];
  return {
    sent,
    get: (key) => values[key],
    set(key, value) {
      values[key] = value;
    },
    save_changes() {},
    send: (message, _callbacks, buffers) => sent.push(buffers === undefined ? message : { ...message, buffers }),
    on(event, handler) {
      if (!handlers.has(event)) handlers.set(event, new Set());
      handlers.get(event).add(handler);
    },
    off: (event, handler) => handlers.get(event)?.delete(handler),
    // The kernel's message: its values, then change:key for each, then change.
    receive(changes) {
      Object.assign(values, changes);
      for (const key of Object.keys(changes)) for (const handler of handlers.get(`change:${key}`) ?? []) handler();
      for (const handler of handlers.get("change") ?? []) handler();
    },
    message(content, buffers) {
      for (const handler of handlers.get("msg:custom") ?? []) handler(content, buffers);
    },
  };
}

const SETTINGS = {
  x: FIXTURE, kernel_size: [2, 2], stride: null, padding: [0, 0], dilation: [1, 1],
  ceil_mode: false, count_include_pad: true, mode: "max", grad_output: null,
};
const TRACE = { output: [[4, 8], [9, -2]] };

test("the trace_settings' key is the page's request key of the same view", () => {
  assert.equal(viewKey(SETTINGS), requestKey(defaultState()));
  assert.equal(viewKey({ ...SETTINGS, x: [[1, 2], [3, "NaN"]] }), requestKey({ ...defaultState(), x: [[1, 2], [3, NaN]] }));
  assert.equal(viewKey({ ...SETTINGS, kernel_size: [0, 0] }), null);
  assert.equal(viewKey(null), null);
});

test("the model adapter: error is null when empty, stride None reads as the kernel and is pinned when the view changes the kernel", () => {
  const model = fakeModel({ ...SETTINGS, error: "" });
  const adapted = notebookModel(model);
  assert.equal(adapted.get("error"), null);
  adapted.set("error", null);
  assert.equal(model.get("error"), "");
  assert.deepEqual(adapted.get("stride"), [2, 2]);
  adapted.set("kernel_size", [3, 3]);
  assert.deepEqual([model.get("kernel_size"), model.get("stride")], [[3, 3], [2, 2]]);
});

test("a refusal from the kernel is seen as its good settings first, then its error", () => {
  const model = fakeModel({ ...SETTINGS, error: "" });
  const adapted = notebookModel(model);
  const seen = [];
  const listener = () => seen.push([adapted.get("padding"), adapted.get("error")]);
  adapted.on("change", listener);
  model.receive({ padding: [0, 0], error: "padding should be at most half of kernel_size" });
  assert.deepEqual(seen, [[[0, 0], null], [[0, 0], "padding should be at most half of kernel_size"]]);
  model.receive({ error: "" });
  assert.equal(seen.length, 3);
  adapted.off("change", listener);
  model.receive({ error: "x" });
  assert.equal(seen.length, 3);
});

test("the view the kernel holds is answered from its synced trace, any other by the kernel's message", async () => {
  const model = fakeModel({ ...SETTINGS, trace: TRACE, trace_settings: SETTINGS });
  const traces = kernelTraces(model);
  assert.deepEqual(await traces.latest(viewKey(SETTINGS), "a"), { trace: TRACE });
  assert.equal(model.sent.length, 0);
  const other = viewKey({ ...SETTINGS, kernel_size: [3, 3], stride: [1, 1] });
  const answer = traces.latest(other, "a");
  assert.deepEqual(model.sent.map(({ type, key }) => [type, key]), [["trace", other]]);
  model.message({ type: "trace", id: "someone else's", answer: "{}" });
  model.message({ type: "trace", id: model.sent[0].id, answer: JSON.stringify({ trace: { output: [[8, 8], [9, 9]] } }) });
  assert.deepEqual(await answer, { trace: { output: [[8, 8], [9, 9]] } });
  traces.close();
});

test("a newer request of a lane supersedes an older one, and a synced view answers a request waiting for it", async () => {
  const model = fakeModel({ ...SETTINGS, trace: TRACE, trace_settings: SETTINGS });
  const traces = kernelTraces(model);
  const three = { ...SETTINGS, kernel_size: [3, 3] };
  const older = traces.latest(viewKey({ ...SETTINGS, padding: [1, 1] }), "a");
  const newer = traces.latest(viewKey(three), "a");
  const elsewhere = traces.latest(viewKey({ ...SETTINGS, padding: [1, 1] }), "b");
  assert.deepEqual(await older, { superseded: true });
  model.receive({ kernel_size: [3, 3], trace: { output: [[8]] }, trace_settings: three });
  assert.deepEqual(await newer, { trace: { output: [[8]] } });
  traces.close();
  assert.deepEqual(await elsewhere, { superseded: true });
});

test("a request no kernel answers ends in an error that says it needs the kernel", async () => {
  const model = fakeModel({ ...SETTINGS, trace: TRACE, trace_settings: SETTINGS });
  const answer = await kernelTraces(model, 20).latest(viewKey({ ...SETTINGS, padding: [1, 1] }), "a");
  assert.equal(answer.timedOut, true);
  assert.match(answer.error, /needs the notebook's kernel/);
  const throwing = fakeModel({ ...SETTINGS, trace: TRACE, trace_settings: SETTINGS });
  throwing.send = () => {
    throw new Error("no comm");
  };
  assert.equal((await kernelTraces(throwing, 60000).latest(viewKey({ ...SETTINGS, padding: [1, 1] }), "a")).timedOut, true);
});

test("the chain view's key is the chain's request key, and a picture view has none to sync", () => {
  const chain = { ...SETTINGS, view: "chain", chain_pool: "avg", steps: 2 };
  const state = defaultState();
  Object.assign(state, { view: "chain", cpool: "avg", steps: 2 });
  assert.equal(viewKey(chain), chainRequestKey(state));
  assert.equal(viewKey({ ...SETTINGS, view: "picture" }), null);
});

test("a picture request goes with its pixels as the message's buffer, and its planes come back as an ArrayBuffer", async () => {
  const model = fakeModel({ ...SETTINGS, trace: {}, trace_settings: {} });
  const traces = kernelTraces(model);
  const pixels = new Uint8Array([1, 2, 3, 255]);
  const answered = traces.latest({ json: '{"kind": "picture"}', pixels }, "lane");
  const [sent] = model.sent;
  assert.deepEqual([sent.type, sent.key, sent.buffers], ["picture", '{"kind": "picture"}', [pixels]]);
  // The kernel's buffer arrives as a view into a larger buffer: the planes are its bytes alone.
  const wire = new Uint8Array([9, 9, 7, 8, 9, 10, 9]);
  model.message({ type: "picture", id: sent.id, answer: '{"picture": {"planes": []}}' }, [new DataView(wire.buffer, 2, 4)]);
  const answer = await answered;
  assert.deepEqual([...new Uint8Array(answer.planes)], [7, 8, 9, 10]);
  // The kernel's own picture: no pixels, no buffer; a refusal has no planes.
  const own = traces.latest({ json: "{}", pixels: null }, "lane");
  assert.deepEqual(model.sent[1].buffers, []);
  model.message({ type: "picture", id: model.sent[1].id, answer: '{"error": "no"}' }, []);
  assert.deepEqual(await own, { error: "no" });
  traces.close();
});

test("the kernel's picture at a size: the sides the kernel gave, or why there is none", () => {
  const picture = kernelPicture(fakeModel({ picture_source: { name: "The kernel's picture", shape: [300, 200], sizes: { 128: [128, 85], 256: [256, 171] } } }));
  assert.deepEqual(picture.at(128), { name: "The kernel's picture", width: 85, height: 128, original: [300, 200], scaled: true });
  assert.match(kernelPicture(fakeModel({ picture_source: {} })).at(128).error, /poolgrad\.Widget\(image\)/);
});
