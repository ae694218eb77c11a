// <pool-grad>: load this script (type="module") from the site that hosts poolgrad, and use
// the element anywhere in the page (docs/embedding.md, "The <pool-grad> element"). This
// file keeps its name across builds; it reads build-info.json beside it for the published
// path of the element's module (element.js, in the front end's content-hashed folder) and
// tells the runtime where the site's root is: here, whatever page loaded it.

const root = new URL("./", import.meta.url);
globalThis.poolgradSiteRoot ??= root.href;
const response = await fetch(new URL("build-info.json", root), { cache: "no-cache" });
if (!response.ok) throw new Error(`pool-grad.js: ${response.url} answered HTTP ${response.status}`);
const info = await response.json();
await import(new URL(info.element, root).href);
