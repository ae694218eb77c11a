// The page's side of Python: one promise per request, requests held until Python reports
// ready, and a stall timeout so a stuck download (e.g. a .wasm served with the wrong MIME
// type) becomes a visible error instead of an endless spinner. Python was started earlier,
// by early.js: the site's shared worker where the browser has one (every widget of the page
// shares one Python), else a dedicated worker of the page's own.
//
// The shared worker falls back to a dedicated one, without an error, when it fails: a
// script or boot error, no progress for the stall timeout, or a request of another widget
// holding it for REQUEST_TIMEOUT_MS (nobody can stop a shared worker). A start that crashed
// inside the runtime is made once more, in a fresh dedicated worker, before the page says
// Python could not start (a WPE WebKit start once failed compiling the standard library,
// "no symtable", and the next start did not). A request of this
// page that Python does not finish within REQUEST_TIMEOUT_MS of starting it (a runaway
// computation blocks Python for good) is answered with an error, and a fresh dedicated
// worker takes over the page's other requests (a dedicated one that hung is stopped; the
// shared one is left to the other widgets, which move away too when they next wait on it).

import { adoptPython, startPython } from "./early.js";

// A slow boot is not a failed one (two widgets on a slow tablet can take a minute): the
// boot fails only when the worker has reported no progress for this long. Every progress
// message (a new step, or more of a download) restarts the clock.
const BOOT_STALL_MS = 60000;
const REQUEST_TIMEOUT_MS = 15000;

// This page among the shared worker's clients (sent with each request, for the record).
const WIDGET = `${location.pathname}${location.search} ${Math.random().toString(36).slice(2, 10)}`;

export class WorkerBridge {
  constructor({ onProgress, onReady, onFailure, stallMs = BOOT_STALL_MS }) {
    this.pending = new Map();
    this.waiting = [];
    this.nextId = 1;
    this.ready = false;
    this.failure = null;
    this.latestTickets = new Map(); // lane -> the ticket of its latest request
    this.callbacks = { onProgress, onReady, onFailure };
    this.clients = null; // how many widgets the Python serving this page had, at its last answer
    this.fellBack = null; // why this page left the shared Python, if it did
    this.crashed = null; // why a start crashed inside the runtime, once one has
    // Set before the worker is adopted: adopting replays what it already said, which may
    // be progress, or even "ready" (when the page's modules load slowly).
    // The browser tests shorten the stall and request timeouts (test hooks, like
    // window.poolgradWidget).
    this.stallMs = globalThis.poolgradBootStallMs > 0 ? globalThis.poolgradBootStallMs : stallMs;
    this.requestMs = globalThis.poolgradRequestTimeoutMs > 0 ? globalThis.poolgradRequestTimeoutMs : REQUEST_TIMEOUT_MS;
    this.step = "starting the Python worker";
    this.stallTimer = null;
    this.restarting = false;
    this.watchForStall();
    this.attach(adoptPython);
    // A page that goes leaves the shared worker, which forgets its port and queue (a page
    // kept in the back/forward cache and evicted later would never say so); one that comes
    // back from that cache connects again.
    addEventListener("pagehide", (event) => {
      if (!event.persisted || this.python.kind === "shared") this.python.close();
    });
    addEventListener("pageshow", (event) => {
      if (event.persisted && this.python.kind === "shared") this.reconnect();
    });
  }

  // Back from the back/forward cache: the same kind of Python as before, connected anew (the
  // shared worker may have gone with its last page and start again; the page stays ready).
  reconnect() {
    const python = startPython("shared");
    if (python) this.switchTo(python);
  }

  // Makes `python` (a new connection from early.js's startPython) serve this page: it gets
  // every request the old one held. A page that was ready stays so for its learner while
  // the new Python starts (its status does not go back to loading).
  switchTo(python) {
    for (const job of this.pending.values()) clearTimeout(job.deadline);
    this.waiting.unshift(...this.pending.values());
    this.pending.clear();
    this.restarting = this.restarting || this.ready;
    this.ready = false;
    this.attach((listener) => {
      python.messages.addEventListener("message", listener);
      python.errors.addEventListener("error", listener);
      return python;
    });
    this.watchForStall();
  }

  // Listens to the connection that `adopt(listener)` returns, and to no older one. Adopting
  // replays at once what the connection said before (early.js): those events are heard once
  // this.python is the connection (a shared worker whose script failed to load before the
  // page listened falls back through this.python).
  attach(adopt) {
    const token = {};
    this.current = token;
    const replayed = [];
    let adopting = true;
    this.python = adopt((event) => {
      if (adopting) replayed.push(event);
      else if (this.current === token) this.hear(event);
    });
    adopting = false;
    for (const event of replayed) if (this.current === token) this.hear(event);
  }

  hear(event) {
    if (event.type === "message") {
      this.receive(event.data);
      return;
    }
    event.preventDefault();
    this.broken(`the Python worker failed to start: ${event.message || "script error"}`);
  }

  // The connection cannot serve this page: leave a shared worker, fail a dedicated one.
  broken(text) {
    if (this.python.kind === "shared") this.useOwnPython(text);
    else this.fail(text);
  }

  // A start crashed inside the runtime: the first time, a fresh dedicated worker starts
  // again (a shared one is left, as for any failure); the second time the page fails, with
  // both reasons. A refusal (a policy) or a stall is not retried: the next start meets it too.
  crash(text) {
    if (this.crashed !== null) {
      this.fail(text === this.crashed ? `${text} (twice: it was started once more)`
        : `${text} (started once more; the first start failed too: ${this.crashed})`);
      return;
    }
    this.crashed = text;
    if (this.python.kind === "dedicated") {
      console.warn(`poolgrad: Python's start failed (${text}); starting it once more`);
      this.useOwnPython(text, "starting Python once more after a failed start");
    } else {
      this.useOwnPython(text);
    }
  }

  watchForStall() {
    clearTimeout(this.stallTimer);
    if (this.ready || this.failure) return;
    this.stallTimer = setTimeout(
      () => this.broken(`Python's start stalled: no progress for ${Math.round(this.stallMs / 1000)} s at "${this.step}"; check that the site is served over HTTP with .wasm as application/wasm`),
      this.stallMs,
    );
  }

  receive(message) {
    if (message.type === "progress") {
      this.step = message.message;
      this.watchForStall();
      if (!this.restarting) this.callbacks.onProgress?.(message);
    } else if (message.type === "ready") {
      clearTimeout(this.stallTimer);
      this.ready = true;
      if (!this.restarting) this.callbacks.onReady?.(message);
      this.restarting = false;
      for (const job of this.waiting.splice(0)) this.post(job);
    } else if (message.type === "boot-error") {
      if (message.crashed) this.crash(message.error);
      else this.broken(message.error);
    } else if (message.type === "running") {
      // Python has started this request: its deadline counts from now.
      const job = this.pending.get(message.id);
      if (!job) return;
      job.started = true;
      clearTimeout(job.deadline);
      job.deadline = setTimeout(() => this.expire(job), this.requestMs);
    } else if (message.type === "result") {
      const job = this.pending.get(message.id);
      if (!job) return;
      clearTimeout(job.deadline);
      this.pending.delete(message.id);
      // The wire's own fields stay here: the page gets {trace, ms}, {picture, planes, ms},
      // {error} or {superseded}.
      const { type, id, widget, clients, ...answer } = message;
      this.clients = clients ?? this.clients;
      job.resolve(answer);
    }
  }

  fail(text) {
    if (this.failure) return;
    clearTimeout(this.stallTimer);
    this.failure = text;
    this.callbacks.onFailure?.(text);
    const error = new Error(text);
    for (const job of [...this.waiting.splice(0), ...this.pending.values()]) job.reject(error);
    this.pending.clear();
  }

  post(job) {
    this.pending.set(job.id, job);
    job.started = false;
    job.deadline = setTimeout(() => this.expire(job), this.requestMs);
    this.python.post({ type: "trace", id: job.id, widget: WIDGET, request: job.request, latest: job.latest ?? false, shown: job.shown ?? false });
  }

  // Leaves the current Python (a dedicated one is stopped) for a new dedicated worker of this
  // page's own.
  useOwnPython(why, step = "starting a Python worker for this page") {
    if (this.failure) return;
    if (this.python.kind === "shared") {
      this.fellBack = why;
      console.warn(`poolgrad: leaving the shared Python worker (${why}); this page starts its own`);
    }
    this.python.close();
    this.step = step;
    this.switchTo(startPython("dedicated"));
  }

  // No answer to `job` within REQUEST_TIMEOUT_MS. If Python started it, it is this page's
  // runaway: answer it with an error and move the page's other requests to a fresh worker.
  // If it never started, another widget's request holds the shared Python: nothing is wrong
  // with this one, which goes to the fresh worker with the others.
  expire(job) {
    if (this.failure || !this.pending.has(job.id)) return;
    if (this.python.kind === "shared" && !job.started) {
      this.useOwnPython(`another widget's request has held the shared Python for over ${this.requestMs / 1000} s`);
      return;
    }
    const what = this.python.kind === "shared" ? "this widget left the Python it shared and started its own" : "it was stopped and restarted";
    this.pending.delete(job.id);
    this.useOwnPython(`this page's request ran for over ${this.requestMs / 1000} s`);
    job.resolve({
      timedOut: true,
      error: `Python did not answer within ${this.requestMs / 1000} s, so ${what}. Change a setting to go on; this one may be too costly for the browser.`,
    });
  }

  // Which Python serves this page (a test hook, through window.poolgradWidget.python()):
  // {kind: "shared" | "dedicated", clients (widgets it served at its last answer), fellBack}.
  describe() {
    return { kind: this.python.kind, clients: this.clients, fellBack: this.fellBack };
  }

  // Resolves with {trace} or {error} (Python's message for a refused state).
  request(request) {
    return new Promise((resolve, reject) => {
      if (this.failure) {
        reject(new Error(this.failure));
        return;
      }
      const job = { id: this.nextId++, request, resolve, reject };
      if (this.ready) this.post(job);
      else this.waiting.push(job);
    });
  }

  // Latest wins, per `lane` (each widget of the page has its own): while booting, a newer
  // state replaces the lane's queued one; an answer that arrives after a newer request of
  // the same lane was made resolves to {superseded: true}. `shown`: the page shows this
  // view's shipped trace already (Python serves other views first).
  latest(request, lane = "page", { shown = false } = {}) {
    const ticket = {};
    this.latestTickets.set(lane, ticket);
    const queued = this.waiting.findIndex((job) => job.latest === lane);
    if (queued >= 0) {
      const [replaced] = this.waiting.splice(queued, 1);
      replaced.resolve({ superseded: true });
    }
    return new Promise((resolve, reject) => {
      if (this.failure) {
        reject(new Error(this.failure));
        return;
      }
      const settle = (message) => resolve(this.latestTickets.get(lane) === ticket ? message : { superseded: true });
      const job = { id: this.nextId++, request, resolve: settle, reject, latest: lane, shown };
      if (this.ready) this.post(job);
      else this.waiting.push(job);
    });
  }
}
