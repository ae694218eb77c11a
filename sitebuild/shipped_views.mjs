// Build-time helper for build.py: prints, as one line of JSON, the request keys of the
// views a learner lands on and of the first minute's views (web/lesson/first-views.js),
// and of the chain view's landing views (web/chain/first-views.js),
// {"landing": [...], "first_minute": [...], "chain": [...]}, in the front end's own spelling
// (web/widget/state.js requestKey, web/chain/request.js chainRequestKey). Each key is the JSON
// text of a poolgrad request; build.py computes each with poolgrad and ships the traces under
// these very keys.
//
//   node sitebuild/shipped_views.mjs

const here = (path) => new URL(path, import.meta.url).href;
const { firstMinuteKeys, firstViewKeys } = await import(here("../web/lesson/first-views.js"));
const { chainFirstViewKeys } = await import(here("../web/chain/first-views.js"));
process.stdout.write(`${JSON.stringify({ landing: firstViewKeys(), first_minute: firstMinuteKeys(), chain: chainFirstViewKeys() })}\n`);
