// runAgent and sessions over ACP on Factory Droid (`droid exec
// --output-format acp`), the only way the library drives it, against the
// OpenAI Chat Completions mock: the suite in ./acp_only_suite.cjs.
'use strict';
require('./acp_only_suite.cjs')('droid', {
  userFiles: ['.factory/settings.json'],
  error400: 'request_rejected',
  error500: { kind: 'idle_timeout', message: /printed nothing/, options: { timeout: 20, maxDuration: 120 } },
});
