// runAgent and sessions over ACP on Cline (`cline --acp`), the only way the
// library drives it, against the OpenAI Chat Completions mock: the suite in
// ./acp_only_suite.cjs.
'use strict';
require('./acp_only_suite.cjs')('cline', {
  userFiles: ['.cline/data/settings/providers.json'],
  // Its JSON-RPC error carries the API's message and no status: -32603 is
  // read as the API's answer.
  error400: 'request_rejected',
  // With default options: it retries 5 times in ~10 s, then answers the
  // prompt with the API's message, whose wording says server error.
  error500: { kind: 'upstream_error', message: /Mock server error/, options: {} },
});
