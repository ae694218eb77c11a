"""#status says "ready" only once the first output is drawn: Python reporting ready is not
enough, the first trace still has to come back and be rendered (WebKit showed a "Ready."
page with an empty output grid for a moment)."""

import pytest


# Before any page script: note what the output grid held whenever #status changed state.
RECORD_STATES = """
window.__statesSeen = [];
new MutationObserver(() => {
  const status = document.getElementById("status");
  const output = document.getElementById("output-grid");
  if (!status || !output) return;
  const seen = window.__statesSeen;
  if (seen.length && seen[seen.length - 1].state === status.dataset.state) return;
  seen.push({
    state: status.dataset.state,
    outputCells: output.querySelectorAll('[data-grid="output"]').length,
    busy: output.getAttribute("aria-busy"),
  });
}).observe(document, { childList: true, subtree: true, attributes: true });
"""


@pytest.mark.parametrize("hash_, cells", [("", 4), ("#k=3&s=1&sel=0,1", 4), ("#k=1&s=1", 16)])
def test_ready_only_once_the_first_output_is_drawn(widget, hash_, cells):
    widget.page.add_init_script(RECORD_STATES)
    widget.open(hash_)
    seen = widget.page.evaluate("window.__statesSeen")
    assert [entry["state"] for entry in seen] == ["loading", "ready"], seen
    assert seen[-1] == {"state": "ready", "outputCells": cells, "busy": "false"}
