// The host page's side of embedding: the one script that sizes every poolgrad frame on a
// page to its content. embed-demo.js runs it; the Code panel's "Copy embed code" writes its
// source (snippets.js takes it with Function.prototype.toString), so the script a host
// pastes is this very function. It must therefore stand alone: no imports, no names from
// outside it.
//
// A widget in an iframe posts {type: "poolgrad:size", height} to its parent, to any
// origin: the message carries only a height, nothing about the learner. The host accepts a
// message only from a frame it sizes (an iframe marked data-poolgrad, matched by
// event.source), never by origin, so a course site on one origin can frame widgets
// published on another. Run twice (pasted with every widget), it listens once.
export function sizePoolgradFrames() {
  if (window.poolgradFramesSized) return;
  window.poolgradFramesSized = true;
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!data || data.type !== "poolgrad:size") return;
    const height = Number(data.height);
    if (!(height > 0 && height < 100000)) return;
    for (const frame of document.querySelectorAll("iframe[data-poolgrad]")) {
      if (frame.contentWindow === event.source) {
        frame.style.height = Math.ceil(height) + "px";
        return;
      }
    }
  });
}
