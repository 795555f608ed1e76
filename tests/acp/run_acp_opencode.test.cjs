// runAgent over ACP on opencode against the OpenAI Chat Completions mock: the
// suite in ./acp_chat_suite.cjs.
'use strict';
require('./acp_chat_suite.cjs')('opencode');
