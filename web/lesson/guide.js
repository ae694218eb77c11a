// The "Try it" path: each step is a pure predicate over (state, trace, context) that says
// whether a view shows it done. A step ticks only for what the learner did: when one of
// their own actions makes it hold (it did not before), or, for a step that asks them to
// pick a cell, when they pick one that makes it hold. A view that arrives from outside (a
// link, Back, a host page changing the hash) ticks nothing, nor does the implicit first
// selection. A ticked step stays ticked until reset. Progress is kept in localStorage when
// the browser allows it (iframes and private modes may not), under a key of the widget's
// page and the lesson page around it (progressKey), never in the URL hash: it belongs to
// the learner, not to the view being linked.
// Each step's leadsTo(state) makes the change its task asks for: the views the steps lead
// to are among those the site precomputes (first-views.js).

import { readStored, writeStored } from "../widget/format.js";
import { GUIDE_STEPS, combineCauses, stepsShown, stepsTicked } from "./guide-steps.js";

const STORAGE_PREFIX = "poolgrad-guide-v2";
// The localStorage key of the progress of this widget in this lesson: the widget's own
// path (no query, no hash: the state is not the lesson), and the lesson page around it:
// the `id` query parameter when the host sets one (?embed=1&id=pooling-week-2), else, in
// a frame, the path of the page that framed it (document.referrer, without its query and
// hash; a host on another site shows only its origin under the default referrer policy,
// so several lessons there need ids), else the widget's page alone.
// location: { pathname, search }; framed: whether the page is in a frame.
export function progressKey(location, framed, referrer) {
  const id = new URLSearchParams(location.search).get("id");
  let host = "page";
  if (id) host = `id:${id}`;
  else if (framed) {
    let url = null;
    try {
      url = new URL(referrer);
    } catch {
      // No referrer (a sandboxed frame, a no-referrer policy): every such frame shares one key.
    }
    host = url ? `in:${url.origin}${url.pathname}` : "in:unknown";
  }
  return `${STORAGE_PREFIX}|${location.pathname}|${host}`;
}

function loadProgress(key) {
  try {
    const saved = JSON.parse(readStored(key) ?? "[]");
    return new Set(Array.isArray(saved) ? saved.filter((id) => GUIDE_STEPS.some((step) => step.id === id)) : []);
  } catch {
    return new Set(); // stored text that is not JSON
  }
}

const saveProgress = (key, done) => writeStored(key, done.size === 0 ? null : JSON.stringify([...done]));

export class Guide {
  // elements: list (an <ol>), progress, reset. announce(text) speaks a newly ticked step.
  // storageKey: progressKey(...) of this page.
  constructor(elements, announce, storageKey) {
    this.elements = elements;
    this.announce = announce;
    this.storageKey = storageKey;
    this.done = loadProgress(storageKey);
    // The steps the last view with a trace showed, and the cause of the changes since.
    this.shown = new Set();
    this.cause = null;
    this.items = new Map();
    for (const [index, step] of GUIDE_STEPS.entries()) {
      const item = document.createElement("li");
      item.dataset.guideStep = step.id;
      const badge = document.createElement("span");
      badge.className = "guide-badge";
      const title = document.createElement("strong");
      title.textContent = `${index + 1}. ${step.title}`;
      const task = document.createElement("p");
      task.textContent = step.task;
      item.append(badge, " ", title, task);
      elements.list.append(item);
      this.items.set(step.id, { item, badge });
    }
    elements.reset.addEventListener("click", () => {
      this.done.clear();
      saveProgress(this.storageKey, this.done);
      this.draw();
      this.announce("Try it: progress reset.");
    });
    this.draw();
  }

  // Say what made the next view: "learner", "pick" or "outside" (see stepsTicked). It
  // counts once the view's trace is there: the next update with a trace.
  note(cause) {
    this.cause = combineCauses(this.cause, cause);
  }

  // Tick the steps the learner's changes since the last update made hold.
  update(state, trace, context) {
    if (!trace) return;
    const now = stepsShown(state, trace, context);
    const fresh = stepsTicked(this.shown, now, this.cause).filter((id) => !this.done.has(id));
    this.shown = now;
    this.cause = null;
    if (fresh.length === 0) return;
    for (const id of fresh) this.done.add(id);
    saveProgress(this.storageKey, this.done);
    this.draw();
    const titles = GUIDE_STEPS.filter((step) => fresh.includes(step.id)).map((step) => step.title);
    this.announce(`Try it: done, ${titles.join("; ")}. ${this.summary()}`);
  }

  summary() {
    return `${this.done.size} of ${GUIDE_STEPS.length} steps done.`;
  }

  draw() {
    for (const step of GUIDE_STEPS) {
      const { item, badge } = this.items.get(step.id);
      const done = this.done.has(step.id);
      item.dataset.done = String(done);
      badge.textContent = done ? "✓ Done" : "To do";
    }
    this.elements.progress.textContent = this.summary();
  }
}
