// The element demo's buttons: each sets attributes of the <pool-grad> it names
// (data-for), given as name=value pairs separated by spaces (data-set).

for (const button of document.querySelectorAll("button[data-for][data-set]")) {
  button.addEventListener("click", () => {
    const target = document.getElementById(button.dataset.for);
    for (const pair of button.dataset.set.split(" ")) {
      const [name, value] = pair.split("=");
      target.setAttribute(name, value);
    }
  });
}
