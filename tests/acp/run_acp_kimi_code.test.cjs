// runAgent and sessions over ACP on Kimi Code, pointed at the OpenAI Chat
// Completions mock by `endpoint` alone: the suite in
// ../cli/endpoint_agent_suite.cjs.
'use strict';
require('../cli/endpoint_agent_suite.cjs').endpointAgentSuite('kimi', 'acp');
