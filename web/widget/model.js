// A model of anywidget's shape kept in the page, for the hosts that hold the state
// themselves (app.js: the link; element.js: the attributes): get, set, save_changes (the
// values are already where the host keeps them), on / off for "change:key" and "change",
// and update(values), the host's own change of several values at once.

export function localModel(initial = {}) {
  let values = { ...initial };
  const handlers = new Map();
  const fire = (keys) => {
    for (const key of keys) for (const handler of handlers.get(`change:${key}`) ?? []) handler();
    for (const handler of handlers.get("change") ?? []) handler();
  };
  return {
    get: (key) => values[key],
    set(key, value) {
      values = { ...values, [key]: value };
      fire([key]);
    },
    save_changes() {},
    on(event, handler) {
      if (!handlers.has(event)) handlers.set(event, new Set());
      handlers.get(event).add(handler);
    },
    off(event, handler) {
      handlers.get(event)?.delete(handler);
    },
    update(changes) {
      const changed = Object.keys(changes).filter((key) => JSON.stringify(changes[key]) !== JSON.stringify(values[key]));
      values = { ...values, ...changes };
      fire(changed);
    },
  };
}
