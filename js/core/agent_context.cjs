// The core's main module as the JS host requires it: the glue wasm-bindgen
// writes into pkg/node (scripts/build.sh). In the source tree this file names
// it where the build puts it; scripts/finish-pkg.mjs, copying the JS host flat
// into pkg/node, makes every require of this file a require of
// './agent_context.js' there, and ships no copy of it.
'use strict';

module.exports = require('../../pkg/node/agent_context.js');
