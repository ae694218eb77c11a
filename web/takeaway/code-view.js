// The "Code" panel (#code): the current view as Python for PyTorch (#code-torch) and for
// poolgrad (#code-poolgrad), the link, the embed code, and "Save picture". What it shows is
// written by snippets.js and svg-export.js from the state alone (the picture also from the
// trace); this module only puts the text on the page, copies it and saves the file.
//
// Copying uses the asynchronous clipboard; where there is none (a page served over plain
// http from another machine) or the browser refuses it (an iframe without
// allow="clipboard-write"), the text is selected for the learner to copy, and the panel
// says so. Every outcome is announced through the panel's polite status line.

import { embedCode, poolgradSnippet, torchSnippet } from "./snippets.js";
import { hashFor } from "../widget/state.js";
import { pictureName, pictureSvg } from "./svg-export.js";

// Select a node's text, so the learner can copy it with the keyboard or a long press.
function selectText(node) {
  const range = document.createRange();
  range.selectNodeContents(node);
  const selection = getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

function pageAddress() {
  return location.href.split(/[?#]/)[0];
}

// A name for the next pasted widget: random, so two pastes on one page never share one.
function newEmbedId() {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

export class CodeView {
  // elements: { panel (the <details>), torch, poolgrad, link, embed, message, picture,
  // copyButtons: [button with data-copy naming the element whose text it copies] };
  // current() returns { state, trace } with trace null while the output of this very state
  // is not known.
  constructor(elements, current) {
    this.elements = elements;
    this.current = current;
    this.filled = false;
    // The embed code's id, and the view (hash) it was made for: each view's code has its
    // own, so two views' codes selected by hand and pasted on one page never share one.
    this.embedId = null;
    this.embedView = null;
    for (const button of elements.copyButtons) {
      button.addEventListener("click", () => this.copy(elements[button.dataset.copy], button.dataset.what));
    }
    elements.picture.addEventListener("click", () => this.savePicture());
    elements.panel.addEventListener("toggle", () => {
      if (elements.panel.open) this.write();
    });
  }

  // Brings the panel up to date with the view shown (every render calls it). The texts are written
  // while the panel is open; a closed one is filled once, so that it is never empty (the
  // browser's find-in-page searches it and opens it on a match), and brought up to date
  // when it opens, or by a copy.
  update() {
    if (this.elements.panel.open || !this.filled) this.write();
  }

  // Writes the panel's texts for the view shown; only what changed is written. The link is
  // the view's own hash, not the address bar's: that still holds a link the page refused
  // (until a valid one replaces it) while the view shown is the last valid state.
  write() {
    const { state, trace } = this.current();
    this.filled = true;
    const hash = hashFor(state, trace);
    if (hash !== this.embedView) {
      this.embedId = newEmbedId();
      this.embedView = hash;
    }
    const texts = {
      torch: torchSnippet(state),
      poolgrad: poolgradSnippet(state),
      link: location.href.split("#")[0] + hash,
      // early.js marks a page with lesson=0 or code=0 in its query.
      embed: embedCode({
        pageUrl: pageAddress(), hash, id: this.embedId, state,
        lesson: document.documentElement.dataset.lesson !== "0",
        code: document.documentElement.dataset.code !== "0",
      }),
    };
    for (const [name, text] of Object.entries(texts)) {
      if (this.elements[name].textContent !== text) this.elements[name].textContent = text;
    }
  }

  say(text) {
    // Emptied first and filled a moment later, so that screen readers announce the same
    // words twice in a row too.
    this.elements.message.textContent = "";
    setTimeout(() => { this.elements.message.textContent = text; }, 50);
  }

  async copy(node, what) {
    this.write();
    const text = node.textContent;
    if (!navigator.clipboard?.writeText) {
      selectText(node);
      this.say(`This page cannot reach the clipboard here: the ${what} is selected; press Ctrl+C (⌘C on a Mac) to copy it.`);
      return;
    }
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      selectText(node);
      this.say(`The browser refused to copy to the clipboard: the ${what} is selected; press Ctrl+C (⌘C on a Mac) to copy it.`);
      return;
    }
    this.say(`Copied the ${what}.`);
    if (node === this.elements.embed) {
      // The next copy is another widget, even of this view: it gets a name of its own.
      this.embedView = null;
      this.write();
    }
  }

  // Downloads the picture through a link to a blob, which works offline and in a frame.
  savePicture() {
    const { state, trace } = this.current();
    if (!trace) {
      this.say("Nothing to save yet: the picture is saved once the output for these settings is shown.");
      return;
    }
    const name = pictureName(state);
    saveFile(name, pictureSvg(state, trace), "image/svg+xml");
    this.say(`Saved the picture as ${name}.`);
  }
}

// Downloads `text` as `name` through a link to a blob, which works offline and in a frame.
export function saveFile(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later: the download reads the blob after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
