// runAgent and sessions over ACP on Factory Droid (`droid exec
// --output-format acp`), the only way the library drives it, against the
// OpenAI Chat Completions mock: the suite in ./acp_only_suite.cjs.
'use strict';
require('./acp_only_suite.cjs')('droid', {
  userFiles: ['.factory/settings.json'],
  error400: 'request_rejected',
  // Its log file's retry records are counted: with the suite's maxRetries
  // 0 it is stopped at its first retry (docs/agents.md).
  error500: { kind: 'upstream_error', message: /retried a failed API call 1 times \(HTTP 500\)/, options: {} },
});
