// The page's own Python (a dedicated module worker): used where the browser has no module
// shared worker, where the shared one failed, and with ?worker=dedicated. The runtime is
// python-runtime.js; the wire protocol and the request queue are trace-service.js's, with
// the page as the one client. The page names the site's root (the worker's name).

import { bootPython, reportPolicyViolations } from "./python-runtime.js";
import { TraceService } from "./trace-service.js";

const service = new TraceService((progress) => bootPython(self.name, progress));
service.connect(self, (message, transfer) => postMessage(message, transfer));
reportPolicyViolations((error) => service.fail(error));
self.addEventListener("message", (event) => service.receive(self, event.data));
