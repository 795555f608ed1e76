// The one place a package the app installs (optional: the ACP SDK, `ws`) is
// loaded by `import()` with its name in a variable, so that bundlers leave
// it to Node rather than bundling or failing on a package that is absent.
// Only the names listed here: nothing of this package's own is loaded so.
'use strict';

const PACKAGES = new Set([
  '@agentclientprotocol/sdk',
  '@agentclientprotocol/sdk/experimental/server',
  '@agentclientprotocol/sdk/experimental/node',
  '@agentclientprotocol/sdk/experimental/http-client',
  '@agentclientprotocol/sdk/experimental/ws-client',
  'ws',
]);

/** `import(name)` of one of the optional packages above. */
function importPackage(name) {
  if (!PACKAGES.has(name)) return Promise.reject(new Error(`not an optional package of agent-context: ${name}`));
  return import(name);
}

module.exports = { importPackage };
