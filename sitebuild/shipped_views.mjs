// Build-time helper for build.py: prints, as one line of JSON, the request keys of the
// views a learner lands on and of the first minute's views (web/lesson/first-views.js),
// {"landing": [...], "first_minute": [...]}, in the front end's own spelling
// (web/widget/state.js requestKey). Each key is the JSON text of a poolgrad trace() request;
// build.py computes each with poolgrad and ships the traces under these very keys.
//
//   node sitebuild/shipped_views.mjs

const { firstMinuteKeys, firstViewKeys } = await import(new URL("../web/lesson/first-views.js", import.meta.url).href);
process.stdout.write(`${JSON.stringify({ landing: firstViewKeys(), first_minute: firstMinuteKeys() })}\n`);
