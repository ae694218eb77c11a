// The service worker: keeps one whole build of the site, so the lesson works with no
// network after the first visit. build.py publishes it at the site's root (its scope is the
// site's folder, wherever that is hosted) with the build's description prepended:
//   const BUILD = { id, files: [[path, sha256 or null, content-hashed path?, on demand?], ...] };
//
// Install saves every file of the build that every start uses, each checked against its
// sha256 (build-info.json against the build id), in a cache named after the build: a file of
// another build (the host updated while we were saving) fails the install, and the worker
// that is running keeps serving its own build. A file "on demand" belongs to one way of
// starting Python (the NumPy snapshot, the NumPy wheel; python-runtime.js chooses) and is
// saved only once this browser used it: when the page names it ("poolgrad:keep", with the
// files its Python started from), when it passes through this worker, or at install when an
// older build of this site had saved its namesake (the path this browser took before). Activation deletes this site's older builds. Until the page
// asks a waiting worker to take over (the learner's "Reload"), every page keeps the build it
// started with: a page never gets a mix of two builds.

const SCOPE = new URL(self.registration.scope);
const CACHE_PREFIX = `poolgrad ${SCOPE.href} `; // cache names are shared by the whole origin
const CACHE = CACHE_PREFIX + BUILD.id;
const FILES = new Map(BUILD.files.map(([path, sha256, hashed, onDemand]) => [new URL(path, SCOPE).href, { path, sha256, hashed, onDemand }]));

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function belongsToBuild(file, body) {
  if (file.sha256 === null) return JSON.parse(new TextDecoder().decode(body)).build_id === BUILD.id;
  return hex(await crypto.subtle.digest("SHA-256", body)) === file.sha256;
}

// A content-hashed path never changes, so the HTTP cache (filled by the page's own first
// load) may answer; the fixed names must come from the server. Any failure (an error
// answer, a damaged or foreign copy) is tried again past every cache: an error a host let
// the HTTP cache keep would otherwise be replayed to every later install.
async function download(url, file) {
  let failure;
  for (const cache of [file.hashed ? "default" : "no-cache", "reload"]) {
    const response = await fetch(url, { cache });
    if (!response.ok) {
      failure = `${file.path} answered HTTP ${response.status}`;
      continue;
    }
    const body = await response.arrayBuffer();
    if (await belongsToBuild(file, body)) {
      return new Response(body, { status: 200, statusText: "OK", headers: response.headers });
    }
    failure = `${file.path} is not the one of build ${BUILD.id}: the site changed while it was being saved`;
  }
  throw new Error(failure);
}

// A file's path without its content-hashed folder (app/<hash>/chain/presets.js is
// app/chain/presets.js): how an older build's copy of the same on-demand file is
// recognised. Its name alone would not do: chain/presets.js is not widget/presets.js.
const unhashedPath = (url) => url.slice(SCOPE.href.length).replace(/^([^/]+)\/[0-9a-f]+\//, "$1/");

async function saveFile(cache, url, file) {
  if (!(await cache.match(url))) await cache.put(url, await download(url, file));
}

async function saveBuild() {
  const cache = await caches.open(CACHE);
  const older = [];
  for (const name of await caches.keys()) {
    if (name.startsWith(CACHE_PREFIX) && name !== CACHE) older.push(await caches.open(name));
  }
  const usedBefore = new Set();
  for (const old of older) {
    for (const request of await old.keys()) {
      usedBefore.add(unhashedPath(request.url));
    }
  }
  await Promise.all([...FILES].map(async ([url, file]) => {
    if (file.onDemand && !usedBefore.has(unhashedPath(url))) return;
    if (await cache.match(url)) return; // saved by an install that was interrupted
    let response;
    // An unchanged group keeps its hashed folder: take its files from the older build.
    for (const old of file.hashed ? older : []) response ??= await old.match(url);
    await cache.put(url, response ?? await download(url, file));
  }));
}

self.addEventListener("install", (event) => event.waitUntil(saveBuild()));

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(CACHE_PREFIX) && name !== CACHE) await caches.delete(name);
    }
  })());
});

// The page's "Reload" button: take over from the worker of the older build. "poolgrad:keep"
// names the on-demand files the page's Python used (offline.js).
self.addEventListener("message", (event) => {
  if (event.data?.type === "poolgrad:take-over") self.skipWaiting();
  if (event.data?.type === "poolgrad:keep" && Array.isArray(event.data.urls)) {
    event.waitUntil((async () => {
      const cache = await caches.open(CACHE);
      await Promise.all(event.data.urls.filter((url) => FILES.get(url)?.onDemand)
        .map((url) => saveFile(cache, url, FILES.get(url))));
    })());
  }
});

// The site's URL for a request, or null for anything else (left to the network). The
// query string only configures a page (index.html?embed=1); the site's folder is its
// index.html, and a host that drops ".html" from page names is followed.
function siteFile(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  url.search = "";
  url.hash = "";
  if (url.href === SCOPE.href) url.href = new URL("index.html", SCOPE).href;
  if (FILES.has(url.href)) return url.href;
  return FILES.has(`${url.href}.html`) ? `${url.href}.html` : null;
}

self.addEventListener("fetch", (event) => {
  const url = siteFile(event.request);
  if (url === null) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const saved = await cache.match(url);
    if (saved) return saved;
    const response = await fetch(event.request);
    // An on-demand file fetched now is part of the path this browser takes: keep it.
    if (FILES.get(url).onDemand && response.ok) event.waitUntil(saveFile(cache, url, FILES.get(url)).catch(() => {}));
    return response;
  })());
});
