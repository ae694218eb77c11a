// The default trace source of mount(): the page's one Python (bridge.js: the site's shared
// worker, else one dedicated worker for the document), shared by every widget mounted in
// the document, with the build's shipped traces answering the landing views while it
// starts. A trace source is any object of this shape (docs/design.md, "mount"):
//   latest(key, lane, {shown}) -> Promise of {trace} | {error} | {superseded: true}: `key`
//     is the request key (state.js requestKey), the JSON text of poolgrad.trace()'s keyword
//     arguments, sent as it is; a newer one of the same lane supersedes one still waiting;
//     `shown`: the widget shows the key's shipped trace already (a source may serve it last);
//   request(request) -> Promise of {trace} | {error} (a raw request, never superseded);
//   shipped(key) -> a ready trace for the request key (requestKey), or null;
//   onShipped(callback): callback() each time shipped() can answer more (the landing
//     views' file, then the first minute's);
//   shippedAvailable() -> whether shipped() holds the landing views' traces;
//   shippedFor(view) -> Promise: shipped() holds the traces of `view` ("chain");
//   subscribe({onProgress({step, steps, message}), onReady(message), onFailure(text)}) -> unsubscribe:
//     the boot's news, replayed at once to a late subscriber (onReady's message is the
//     runtime's ready message: its startup.files are the files the boot's path used);
//   describe() -> which Python serves the page (a test hook).

import { WorkerBridge } from "./bridge.js";
import { firstMinuteLoaded, shippedAvailable, shippedLoaded, shippedTrace, viewTracesLoaded } from "./shipped.js";

let pageSource = null;

export function pageTraces() {
  pageSource ??= makePageTraces();
  return pageSource;
}

function makePageTraces() {
  const listeners = new Set();
  const news = { progress: [], ready: null, failure: null };
  const tell = (name, ...args) => {
    for (const listener of listeners) listener[name]?.(...args);
  };
  const bridge = new WorkerBridge({
    onProgress(progress) {
      news.progress.push(progress);
      tell("onProgress", progress);
    },
    onReady(message) {
      news.ready = message ?? {};
      tell("onReady", message);
    },
    onFailure(text) {
      news.failure = text;
      tell("onFailure", text);
    },
  });
  return {
    latest: (request, lane, options) => bridge.latest(request, lane, options),
    request: (request) => bridge.request(request),
    shipped: shippedTrace,
    onShipped(callback) {
      shippedLoaded.then(() => callback());
      firstMinuteLoaded.then(() => callback());
    },
    shippedAvailable,
    shippedFor: viewTracesLoaded,
    describe: () => bridge.describe(),
    subscribe(listener) {
      listeners.add(listener);
      for (const progress of news.progress) listener.onProgress?.(progress);
      if (news.ready) listener.onReady?.(news.ready);
      if (news.failure) listener.onFailure?.(news.failure);
      return () => listeners.delete(listener);
    },
  };
}
