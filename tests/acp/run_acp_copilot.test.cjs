// runAgent over ACP on copilot against the OpenAI Chat Completions mock: the
// suite in ./acp_chat_suite.cjs.
'use strict';
require('./acp_chat_suite.cjs')('copilot');
