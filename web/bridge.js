// The page's side of the Pyodide worker: one promise per request, requests held until the
// worker reports ready, and a boot timeout so a stuck download (e.g. a .wasm served with
// the wrong MIME type) becomes a visible error instead of an endless spinner. The worker
// itself was started earlier, by early.js. A request the worker does not answer within
// REQUEST_TIMEOUT_MS (a runaway computation blocks it for good) is answered with an
// error, and a fresh worker takes over the other requests.

import { adoptWorker } from "./early.js";

const BOOT_TIMEOUT_MS = 60000;
const REQUEST_TIMEOUT_MS = 15000;

export class WorkerBridge {
  constructor({ onProgress, onReady, onFailure, timeoutMs = BOOT_TIMEOUT_MS }) {
    this.pending = new Map();
    this.waiting = [];
    this.nextId = 1;
    this.ready = false;
    this.failure = null;
    this.latestTicket = null;
    this.callbacks = { onProgress, onReady, onFailure };
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
    this.bootTimer = setTimeout(
      () => this.fail(`Python did not start within ${Math.round(timeoutMs / 1000)} s; check that the site is served over HTTP with .wasm as application/wasm`),
      timeoutMs,
    );
  }

  receive(message) {
    if (message.type === "progress") {
      if (!this.restarting) this.callbacks.onProgress?.(message);
    } else if (message.type === "ready") {
      clearTimeout(this.bootTimer);
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
    clearTimeout(this.bootTimer);
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
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
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
