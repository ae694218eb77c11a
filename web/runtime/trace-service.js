// The worker's side of the wire: one Python serving one or more widgets (clients). The
// dedicated worker (worker.js) has one client, its page; the shared worker
// (shared-worker.js) has one per connected widget (a MessagePort).
//
// Client -> worker: {type: "trace", id, widget, request, latest, shown} (`request`: the
// pool or chain view's JSON text, or a picture's {json, pixels}, its pixels a Uint8Array of
// RGBA bytes; `widget` names the page that asks, for the record; `latest`: false, or the
// lane of the page it belongs to (each widget of a page has its own): a newer one of the
// same client and lane replaces it while it waits; `shown`: the page already shows this
// view's shipped trace, so Python's answer only confirms it), {type: "bye"} (the page goes
// away).
// Worker -> client: {type: "progress" | "ready" | "boot-error"} to every client, and the
// latest of them again to a client that connects later (a widget added after boot gets
// "ready" at once); {type: "running", id} just before Python starts the client's request;
// {type: "result", id, widget, clients, ...answer}, answer being {trace, ms},
// {picture, planes, ms} (`planes` an ArrayBuffer, transferred, not copied), {error} or
// {superseded: true} (a newer request of the same client replaced it before it ran).
//
// Fairness: each client has its own queue, and Python takes one request from each client in
// turn, handing the event loop back between two requests (a request that arrived meanwhile
// can still replace a waiting one). A request whose view a page already shows (`shown`)
// waits while any other is waiting: at a start, the widget whose view needs Python is not
// kept behind the others' confirmations. One client's error is answered to it alone.

export class TraceService {
  // A client's `send(message, transfer)` posts a message, handing over the ArrayBuffers in
  // `transfer`. `start(progress)` starts Python, calling `progress(message)` for each progress message,
  // and resolves with {run(request) -> answer, startup}. `handBack(next)` runs `next` once
  // the event loop had its turn (a test passes its own).
  constructor(start, { handBack = (next) => setTimeout(next, 0) } = {}) {
    this.clients = new Map(); // client -> {send, queue}
    this.turn = []; // the clients in round-robin order; the next one to serve is first
    this.lastProgress = null;
    this.outcome = null; // the "ready" or "boot-error" message, once there is one
    this.run = null;
    this.busy = false;
    this.handBack = handBack;
    let booting;
    try {
      booting = Promise.resolve(start((message) => this.progress(message)));
    } catch (error) {
      booting = Promise.reject(error);
    }
    booting.then(
      ({ run, startup }) => {
        if (this.outcome) return;
        this.run = run;
        this.announce({ type: "ready", startup });
        this.pump();
      },
      (error) => this.fail(`Python could not start: ${error?.message ?? error}`, { crashed: true }),
    );
  }

  get clientCount() {
    return this.clients.size;
  }

  announce(message) {
    if (message.type === "progress") this.lastProgress = message;
    else this.outcome = message;
    for (const { send } of this.clients.values()) send(message);
  }

  progress(message) {
    if (!this.outcome) this.announce(message);
  }

  // Python will not start: its boot failed inside the runtime (`crashed`, which another
  // start may not meet), or a policy blocks WebAssembly (which it would meet again).
  fail(error, { crashed = false } = {}) {
    if (this.outcome) return;
    this.announce({ type: "boot-error", error, crashed });
  }

  connect(client, send) {
    if (this.clients.has(client)) return;
    this.clients.set(client, { send, queue: [] });
    this.turn.push(client);
    if (this.outcome) send(this.outcome);
    else if (this.lastProgress) send(this.lastProgress);
  }

  // The client is gone: its waiting requests are dropped unanswered.
  disconnect(client) {
    this.clients.delete(client);
    this.turn = this.turn.filter((other) => other !== client);
  }

  receive(client, message) {
    const entry = this.clients.get(client);
    if (!entry) return;
    if (message?.type === "bye") {
      this.disconnect(client);
      return;
    }
    if (message?.type !== "trace") return;
    const job = {
      id: message.id, widget: message.widget, request: message.request, latest: message.latest || false, shown: message.shown === true,
    };
    if (job.latest) {
      const replaced = entry.queue.filter((waiting) => waiting.latest === job.latest);
      entry.queue = entry.queue.filter((waiting) => waiting.latest !== job.latest);
      for (const old of replaced) entry.send({ type: "result", id: old.id, widget: old.widget, superseded: true });
    }
    entry.queue.push(job);
    this.pump();
  }

  // The next request: the first client in turn with one waiting, which then goes last; a
  // view no page shows yet before one that is shown.
  next() {
    for (const needed of [true, false]) {
      for (let index = 0; index < this.turn.length; index += 1) {
        const client = this.turn[index];
        const entry = this.clients.get(client);
        const position = entry.queue.findIndex((job) => !needed || !job.shown);
        if (position >= 0) {
          this.turn.splice(index, 1);
          this.turn.push(client);
          return { entry, job: entry.queue.splice(position, 1)[0] };
        }
      }
    }
    return null;
  }

  pump() {
    if (this.busy || !this.run) return;
    const picked = this.next();
    if (!picked) return;
    const { entry, job } = picked;
    this.busy = true;
    // Sent before Python blocks this thread: the client's deadline counts from here, and a
    // client whose request never got this far knows that another widget's request holds
    // Python, not its own.
    entry.send({ type: "running", id: job.id });
    const answer = this.run(job.request);
    entry.send({ type: "result", id: job.id, widget: job.widget, clients: this.clients.size, ...answer },
      answer.planes ? [answer.planes] : []);
    this.handBack(() => {
      this.busy = false;
      this.pump();
    });
  }
}
