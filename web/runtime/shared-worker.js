// One Python for every widget of this build of the site in this browser (the iframes of a
// lesson page, and any other page of the site that is open): a module shared worker, keyed
// by its URL (in the front end's content-hashed folder, which changes with every build of
// the front end, the runtime or the wheel) and its name (the site's root, set by the page).
// Each connecting page is a client of trace-service.js: its own request queue, served in
// turn; boot progress and "ready" go to every client, at once to one that connects late.
// A page that goes away says "bye" (and MessagePort's close event says so where the browser
// has it), so its port and its queue do not outlive it.

import { bootPython, reportPolicyViolations } from "./python-runtime.js";
import { TraceService } from "./trace-service.js";

const service = new TraceService((progress) => bootPython(self.name, progress));
reportPolicyViolations((error) => service.fail(error));

self.addEventListener("connect", (event) => {
  const [port] = event.ports;
  service.connect(port, (message, transfer) => port.postMessage(message, transfer));
  port.addEventListener("message", (message) => service.receive(port, message.data));
  port.addEventListener("close", () => service.disconnect(port));
  port.start();
});
