// Offline after one visit: registers the service worker (sw.js at the site's root, which
// keeps one whole build; see sw.js) and tells the learner when a newer build is ready.
// Registered once the page is ready, so saving the site for later never competes with
// Python's first start; the files the page has just loaded are then taken from the
// browser's HTTP cache.
//
// The notice (#update-notice, a polite live region) appears while a newer build waits;
// its button hands over to it, and every page of the site then reloads into the new build
// (the URL hash keeps each view).

const WORKER_SCRIPT = "./sw.js"; // relative to the page, which is at the site's root

function offerUpdate(notice, waiting) {
  if (notice.childElementCount > 0) return;
  const text = document.createElement("span");
  text.textContent = "A new version of this lesson is ready.";
  const button = document.createElement("button");
  button.type = "button";
  button.id = "update-reload";
  button.textContent = "Reload to use it";
  button.addEventListener("click", () => {
    button.disabled = true;
    waiting.postMessage({ type: "poolgrad:take-over" });
  });
  notice.append(text, " ", button);
}

// Over plain http from another machine (a classroom's LAN) the page is no secure context:
// the browser offers no service worker, so the lesson cannot be saved. Say so where it
// happens, and what to do instead (docs/classroom.md).
function explainNoOfflineCopy() {
  const note = document.getElementById("insecure-note");
  note.textContent = "This lesson comes over plain http from another computer, so your browser will not "
    + "save it for offline use: it needs that computer's server while you work. To keep it, open it "
    + "from an https address, or run the offline copy (serve.py) on this computer.";
  note.hidden = false;
}

// Said at once, before Python starts: it holds whatever happens next.
if (!window.isSecureContext && location.protocol === "http:") explainNoOfflineCopy();

export async function keepOffline(notice) {
  if (!("serviceWorker" in navigator)) return;
  const wasControlled = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    // Another build took over: this page's files are the older build's.
    if (wasControlled) location.reload();
  });
  let registration;
  try {
    registration = await navigator.serviceWorker.register(WORKER_SCRIPT, { scope: "./" });
  } catch (error) {
    console.warn(`poolgrad: no offline copy (${error?.message ?? error})`);
    return;
  }
  if (!registration) return; // a browser that blocks service workers may answer nothing
  const watch = (worker) => {
    const check = () => {
      if (worker.state === "installed" && navigator.serviceWorker.controller) offerUpdate(notice, worker);
    };
    worker.addEventListener("statechange", check);
    check();
  };
  if (registration.waiting) watch(registration.waiting);
  if (registration.installing) watch(registration.installing);
  registration.addEventListener("updatefound", () => watch(registration.installing));
}
