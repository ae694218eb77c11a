// A classic script, not a module: opened from disk (file://), the browser refuses to load
// the page's modules and Python's files, and the page would say "Loading Python" forever
// above a widget that cannot start. Show only what to do instead (style.css hides the rest
// of the page under html[data-file]), naming the file that was opened and the command for
// the folder it is in.
if (location.protocol === "file:") {
  const path = decodeURIComponent(location.pathname);
  const windows = /Win/.test(navigator.platform || navigator.userAgent);
  const python = windows ? "py" : "python";
  const offline = /\/poolgrad-offline\/site\/[^/]*$/.test(path);
  const status = document.getElementById("status");
  const text = document.getElementById("status-text");
  const code = (words) => {
    const element = document.createElement("code");
    element.textContent = words;
    return element;
  };
  document.documentElement.dataset.file = "1";
  status.dataset.state = "error";
  text.replaceChildren(
    "You opened ", code(windows ? path.replace(/^\/(?=[A-Za-z]:)/, "").replaceAll("/", "\\") : path),
    " as a file, and browsers do not let a file start Python. Serve it instead: ",
    ...(offline
      ? ["in the poolgrad-offline folder run ", code(`${python} serve.py`)]
      : ["in the folder that holds dist/ (a copy of the poolgrad repository) run ", code(`${python} build.py serve`)]),
    ", then open the address it prints.");
}
