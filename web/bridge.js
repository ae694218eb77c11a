// The page's side of the Pyodide worker: one promise per request, requests held until the
// worker reports ready, and a stall timeout so a stuck download (e.g. a .wasm served with
// the wrong MIME type) becomes a visible error instead of an endless spinner. The worker
// itself was started earlier, by early.js. A request the worker does not answer within
// REQUEST_TIMEOUT_MS (a runaway computation blocks it for good) is answered with an
// error, and a fresh worker takes over the other requests.

import { adoptWorker, startWorker } from "./early.js";

// A slow boot is not a failed one (two widgets on a slow tablet can take a minute): the
// boot fails only when the worker has reported no progress for this long. Every progress
// message (a new step, or more of a download) restarts the clock.
const BOOT_STALL_MS = 60000;
const REQUEST_TIMEOUT_MS = 15000;

export class WorkerBridge {
  constructor({ onProgress, onReady, onFailure, stallMs = BOOT_STALL_MS }) {
    this.pending = new Map();
    this.waiting = [];
    this.nextId = 1;
    this.ready = false;
    this.failure = null;
    this.latestTicket = null;
    this.callbacks = { onProgress, onReady, onFailure };
    // Set before the worker is adopted: adopting replays what it already said, which may
    // be progress, or even "ready" (when the page's modules load slowly).
    // The browser tests shorten the stall timeout (a test hook, like window.poolgradWidget).
    this.stallMs = globalThis.poolgradBootStallMs > 0 ? globalThis.poolgradBootStallMs : stallMs;
    this.step = "starting the Python worker";
    this.stallTimer = null;
    this.watchForStall();
    this.listener = (event) => {
      if (event.type === "message") {
        this.receive(event.data);
        return;
      }
      event.preventDefault();
      this.fail(`the Python worker failed to start: ${event.message || "script error"}`);
    };
    this.worker = adoptWorker(this.listener);
    this.restarting = false;
  }

  watchForStall() {
    clearTimeout(this.stallTimer);
    if (this.ready || this.failure) return;
    this.stallTimer = setTimeout(
      () => this.fail(`Python's start stalled: no progress for ${Math.round(this.stallMs / 1000)} s at "${this.step}"; check that the site is served over HTTP with .wasm as application/wasm`),
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
      this.fail(message.error);
    } else if (message.type === "result") {
      const job = this.pending.get(message.id);
      if (!job) return;
      clearTimeout(job.deadline);
      this.pending.delete(message.id);
      job.resolve(message);
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
    job.deadline = setTimeout(() => this.expire(job), REQUEST_TIMEOUT_MS);
    this.worker.postMessage({ id: job.id, request: job.request });
  }

  // The worker is stuck on `job`: answer it with an error, replace the worker, and queue
  // the other requests it held for the new one.
  expire(job) {
    if (this.failure || !this.pending.has(job.id)) return;
    this.pending.delete(job.id);
    this.worker.terminate();
    for (const other of this.pending.values()) clearTimeout(other.deadline);
    this.waiting.unshift(...this.pending.values());
    this.pending.clear();
    this.ready = false;
    this.restarting = true;
    this.step = "restarting the Python worker";
    this.watchForStall();
    this.worker = startWorker();
    this.worker.addEventListener("message", this.listener);
    this.worker.addEventListener("error", this.listener);
    job.resolve({
      timedOut: true,
      error: `Python did not answer within ${REQUEST_TIMEOUT_MS / 1000} s, so it was stopped and restarted. Change a setting to go on; this one may be too costly for the browser.`,
    });
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

  // Latest wins: while booting, a newer state replaces the queued one; an answer that
  // arrives after a newer request was made resolves to {superseded: true}.
  latest(request) {
    const ticket = {};
    this.latestTicket = ticket;
    const queued = this.waiting.findIndex((job) => job.latest);
    if (queued >= 0) {
      const [replaced] = this.waiting.splice(queued, 1);
      replaced.resolve({ superseded: true });
    }
    return new Promise((resolve, reject) => {
      if (this.failure) {
        reject(new Error(this.failure));
        return;
      }
      const settle = (message) => resolve(this.latestTicket === ticket ? message : { superseded: true });
      const job = { id: this.nextId++, request, resolve: settle, reject, latest: true };
      if (this.ready) this.post(job);
      else this.waiting.push(job);
    });
  }
}
