// How many steps Python's start has (python-runtime.js reports each; the page's progress
// bar counts them before the first report arrives).
export const BOOT_STEPS = 5;
