// The demo host page: its widget frames are sized by the same script "Copy embed code"
// gives a host page. With ?site=URL (another origin serving the same build, e.g.
// http://localhost:8000/ while this page is on http://127.0.0.1:8000/) the frames load the
// widget from there, as a course site frames a widget published elsewhere.

import { sizePoolgradFrames } from "./embed-sizing.js";

sizePoolgradFrames();

const site = new URLSearchParams(location.search).get("site");
if (site) {
  const base = new URL(site, location.href);
  for (const frame of document.querySelectorAll("iframe[data-poolgrad]")) {
    frame.src = new URL(frame.getAttribute("src"), base).href;
  }
  document.getElementById("demo-origin").textContent =
    `These widgets come from ${base.origin}, another origin than this page's (${location.origin}).`;
}
