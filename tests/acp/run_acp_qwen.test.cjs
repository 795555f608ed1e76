// runAgent over ACP on qwen against the OpenAI Chat Completions mock: the
// suite in ./acp_chat_suite.cjs.
'use strict';
require('./acp_chat_suite.cjs')('qwen');
