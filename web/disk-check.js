// A classic script, not a module: opened from disk (file://), the browser refuses to load
// the page's modules and Python's files, and the page would say "Loading Python" forever.
// Say what to do instead.
if (location.protocol === "file:") {
  document.getElementById("status").dataset.state = "error";
  document.getElementById("boot-progress").hidden = true;
  document.getElementById("status-text").textContent =
    "This page was opened as a file, and browsers do not let a file start Python. Serve it instead: "
    + "in the poolgrad-offline folder run `python serve.py` (in a copy of the poolgrad repository, "
    + "`python build.py serve`), then open the address it prints.";
}
