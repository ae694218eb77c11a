// The host side of embedding: each widget iframe posts {type: "poolgrad:size", height}
// whenever its content's height changes; the frame that sent it is found by comparing
// event.source, and is given that height so it never shows a scroll bar of its own.
// The origin check keeps other frames and windows from resizing these iframes.

const frames = [...document.querySelectorAll("iframe.widget-frame")];

window.addEventListener("message", (event) => {
  if (event.origin !== window.location.origin) return;
  const { type, height } = event.data ?? {};
  if (type !== "poolgrad:size" || !Number.isFinite(height) || height <= 0) return;
  const frame = frames.find((candidate) => candidate.contentWindow === event.source);
  if (frame) frame.style.height = `${Math.ceil(height)}px`;
});
