import assert from "node:assert/strict";
import { test } from "node:test";

import { TraceService } from "../../web/runtime/trace-service.js";

// A service whose Python answers {trace: request.k} (or {error} for k < 1), whose boot the
// test finishes with boot(), and whose hand-backs the test runs with turn(): nothing
// happens between two requests unless the test says so.
function harness() {
  let finish;
  let reportProgress;
  const ran = [];
  const handBacks = [];
  const service = new TraceService(
    (progress) => {
      reportProgress = progress;
      return new Promise((resolve) => { finish = resolve; });
    },
    { handBack: (next) => handBacks.push(next) },
  );
  const run = (request) => {
    ran.push(request.k);
    return request.k < 1 ? { error: "kernel_size must be at least 1" } : { trace: request.k };
  };
  const client = (name) => {
    const heard = [];
    service.connect(name, (message) => heard.push(message));
    return heard;
  };
  const ask = (name, id, k, latest = true) => service.receive(name, { type: "trace", id, widget: name, request: { k }, latest });
  return {
    service, ran, client, ask,
    progress: (message) => reportProgress({ type: "progress", message }),
    boot: async () => {
      finish({ run, startup: { snapshot: "numpy" } });
      await new Promise((resolve) => setImmediate(resolve));
    },
    turn: () => handBacks.shift()?.(),
    results: (heard) => heard.filter((m) => m.type === "result").map(({ id, trace, error, superseded }) => ({ id, trace, error, superseded })),
  };
}

test("progress and ready go to every client, and at once to one that connects later", async () => {
  const h = harness();
  const first = h.client("a");
  h.progress("Downloading Python");
  const second = h.client("b"); // mid-boot: hears the step it missed
  assert.deepEqual(second.map((m) => m.message), ["Downloading Python"]);
  await h.boot();
  const late = h.client("c");
  for (const heard of [first, second, late]) assert.equal(heard.at(-1).type, "ready");
  assert.deepEqual(late.map((m) => m.type), ["ready"]);
  assert.deepEqual(late[0].startup, { snapshot: "numpy" });
});

test("a boot error reaches every client, later ones too, and nothing runs", async () => {
  let fail;
  const service = new TraceService(() => new Promise((_, reject) => { fail = reject; }));
  const heard = [];
  service.connect("a", (m) => heard.push(m));
  fail(new Error("build-info.json answered HTTP 404"));
  await new Promise((resolve) => setImmediate(resolve));
  const late = [];
  service.connect("b", (m) => late.push(m));
  assert.deepEqual(heard, [{ type: "boot-error", error: "Python could not start: build-info.json answered HTTP 404", crashed: true }]);
  assert.deepEqual(late, heard);
});

test("a policy's refusal is not a crash: the page does not start Python again for it", () => {
  const service = new TraceService(() => new Promise(() => {}));
  const heard = [];
  service.connect("a", (m) => heard.push(m));
  service.fail("the Content-Security-Policy blocked script-src in the Python worker");
  assert.deepEqual(heard, [{ type: "boot-error", error: "the Content-Security-Policy blocked script-src in the Python worker", crashed: false }]);
});

test("clients are served in turn, each request announced to its sender before it runs", async () => {
  const h = harness();
  const a = h.client("a");
  const b = h.client("b");
  h.ask("a", 1, 2, false);
  h.ask("a", 2, 3, false);
  h.ask("b", 1, 4, false);
  await h.boot();
  while (h.ran.length < 3) h.turn();
  assert.deepEqual(h.ran, [2, 4, 3]); // a, b, then a again: b does not wait for all of a's
  assert.deepEqual(a.filter((m) => m.type !== "ready").map((m) => [m.type, m.id]), [["running", 1], ["result", 1], ["running", 2], ["result", 2]]);
  assert.deepEqual(h.results(b), [{ id: 1, trace: 4, error: undefined, superseded: undefined }]);
});

test("a newer request replaces its client's waiting one before Python runs it; other clients keep theirs", async () => {
  const h = harness();
  const a = h.client("a");
  const b = h.client("b");
  await h.boot();
  h.ask("b", 1, 9); // runs at once; Python is busy until the hand-back
  h.ask("a", 1, 2);
  h.ask("b", 2, 5);
  h.ask("a", 2, 3);
  h.ask("a", 3, 4);
  for (let turns = 0; turns < 5; turns += 1) h.turn(); // more than it needs
  assert.deepEqual(h.ran, [9, 4, 5]);
  assert.deepEqual(h.results(a), [
    { id: 1, trace: undefined, error: undefined, superseded: true },
    { id: 2, trace: undefined, error: undefined, superseded: true },
    { id: 3, trace: 4, error: undefined, superseded: undefined },
  ]);
  assert.deepEqual(h.results(b).map((r) => r.trace), [9, 5]);
});

test("one client's error is answered to it alone and the next client is served", async () => {
  const h = harness();
  const a = h.client("a");
  const b = h.client("b");
  await h.boot();
  h.ask("a", 1, 0);
  h.ask("b", 1, 2);
  h.turn();
  assert.deepEqual(h.results(a), [{ id: 1, trace: undefined, error: "kernel_size must be at least 1", superseded: undefined }]);
  assert.deepEqual(h.results(b), [{ id: 1, trace: 2, error: undefined, superseded: undefined }]);
});

test("a client that says bye is forgotten with its waiting requests", async () => {
  const h = harness();
  const a = h.client("a");
  h.client("b");
  h.ask("a", 1, 2, false);
  h.ask("b", 1, 3, false);
  h.service.receive("a", { type: "bye" });
  assert.equal(h.service.clientCount, 1);
  await h.boot();
  h.turn();
  assert.deepEqual(h.ran, [3]);
  assert.equal(h.results(a).length, 0);
  h.ask("a", 2, 4); // a port that left is not served again
  h.turn();
  assert.deepEqual(h.ran, [3]);
});

test("the answer says how many clients the Python serves", async () => {
  const h = harness();
  const a = h.client("a");
  h.client("b");
  h.client("c");
  await h.boot();
  h.ask("a", 1, 2);
  assert.equal(a.find((m) => m.type === "result").clients, 3);
});

test("a view a page already shows (shipped) waits while another view waits for Python", async () => {
  const h = harness();
  for (const name of ["a", "b", "c"]) h.client(name);
  const shown = (name, id, k) => h.service.receive(name, { type: "trace", id, widget: name, request: { k }, latest: "lane", shown: true });
  shown("a", 1, 2);
  shown("b", 1, 3);
  h.ask("c", 1, 4);
  h.service.receive("a", { type: "trace", id: 2, widget: "a", request: { k: 5 }, latest: "other" });
  await h.boot();
  while (h.ran.length < 4) h.turn();
  // a's second view and c's need Python; the shown ones, confirmations, come after, in turn.
  assert.deepEqual(h.ran, [5, 4, 3, 2]);
});

test("a picture's planes are handed over with its answer, a pool answer hands nothing over", async () => {
  const planes = new ArrayBuffer(8);
  const service = new TraceService(() => ({ run: (request) => (request.pixels ? { picture: {}, planes } : { trace: 1 }) }),
    { handBack: (next) => next() });
  const sent = [];
  service.connect("a", (message, transfer) => sent.push({ message, transfer }));
  await new Promise((resolve) => setImmediate(resolve));
  service.receive("a", { type: "trace", id: 1, request: { json: "{}", pixels: new Uint8Array(4) } });
  service.receive("a", { type: "trace", id: 2, request: "{}" });
  const results = sent.filter(({ message }) => message.type === "result");
  assert.equal(results[0].message.planes, planes);
  assert.deepEqual(results[0].transfer, [planes]);
  assert.deepEqual(results[1].transfer, []);
});
