// How a live test waits for something that takes as long as the machine
// makes it (a model call logged, a process gone, a file written): for the
// event itself, polled, with a bound past which the test fails naming what
// it waited for. Never a fixed sleep.
'use strict';
const assert = require('node:assert/strict');

/**
 * Resolves the first truthy value of `check()`, polled every `everyMs`;
 * fails the test after `ms` naming `what`.
 */
async function waitFor(check, ms, what, everyMs = 50) {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > ms) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

module.exports = { waitFor };
