// Loaded first by every page the cross-engine tests and benchmark open (their server adds
// it to the HTML copies it serves; it is not part of the site). WebKit's WebDriver has no
// log channel (its driver refuses BiDi, and MiniBrowser in automation mode prints no
// console messages), so the page itself keeps what went wrong, in window.__engine:
//   problems   console errors, uncaught errors and rejections, failed resource loads,
//              CSP violations, as text
//   readyAt    performance.now() at the first #status data-state="ready"
//   drawnAtReady  whether the output grid held output cells, not busy, at that moment
//   outputAt   the first time output cells are shown with aria-busy="false"
//   inputAt / inputFrameAt  first input cell inserted / the frame after it (first paint)
// Service workers are refused, as the Chromium tests' browser context refuses them: each
// scenario sees a first visit, and the server's log holds only what the page itself asked
// for (the service worker would save the whole build right after ready, which made the
// "each file once" count depend on timing). tests/web/test_offline.py covers the worker.
(() => {
  if (navigator.serviceWorker) {
    navigator.serviceWorker.register = () => Promise.reject(new Error("service workers are off in the cross-engine tests"));
  }
  const engine = { problems: [], readyAt: null, drawnAtReady: null, outputAt: null, inputAt: null, inputFrameAt: null };
  window.__engine = engine;
  const describe = (value) => {
    if (value instanceof Error) return `${value.name}: ${value.message}`;
    try { return typeof value === "string" ? value : JSON.stringify(value); } catch { return String(value); }
  };
  const consoleError = console.error;
  console.error = function (...args) {
    engine.problems.push(`console.error: ${args.map(describe).join(" ")}`);
    return consoleError.apply(this, args);
  };
  window.addEventListener("error", (event) => {
    // Not a script error: the browser's note that some ResizeObserver notifications (the
    // embedded page's height reports) wait for the next frame. WebKit under heavy load
    // reports it for the embed demo's frames; nothing is thrown and nothing is lost.
    if (event.message === "ResizeObserver loop completed with undelivered notifications.") return;
    const target = event.target;
    if (target && target !== window && (target.src || target.href)) {
      engine.problems.push(`failed to load ${target.src || target.href}`);
    } else {
      engine.problems.push(`uncaught error: ${event.message} (${event.filename}:${event.lineno})`);
    }
  }, true);
  window.addEventListener("unhandledrejection", (event) => {
    engine.problems.push(`unhandled rejection: ${describe(event.reason)}`);
  });
  document.addEventListener("securitypolicyviolation", (event) => {
    engine.problems.push(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
  });

  const outputDrawn = () => {
    const grid = document.getElementById("output-grid");
    return Boolean(grid && grid.getAttribute("aria-busy") === "false" && grid.querySelector('[data-grid="output"]'));
  };
  const observer = new MutationObserver(() => {
    const now = performance.now();
    if (engine.inputAt === null && document.querySelector('[data-grid="input"]')) {
      engine.inputAt = now;
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => { engine.inputFrameAt = performance.now(); };
        channel.port2.postMessage(null);
      });
    }
    const status = document.getElementById("status");
    if (engine.readyAt === null && status && status.dataset.state === "ready") {
      engine.readyAt = now;
      engine.drawnAtReady = outputDrawn();
    }
    if (engine.outputAt === null && outputDrawn()) engine.outputAt = now;
    if (engine.readyAt !== null && engine.outputAt !== null) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
})();
