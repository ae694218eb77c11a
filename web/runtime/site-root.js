// The workers' scripts are in a content-hashed folder below the site's root, so the page
// tells them where the root is (the worker's name): the page's own folder (index.html is at
// the root), or what pool-grad.js, at the root of the site it comes from, said
// (globalThis.poolgradSiteRoot: a page elsewhere that uses <pool-grad>).
export function siteRoot() {
  return globalThis.poolgradSiteRoot ?? new URL("./", location.href).href;
}
