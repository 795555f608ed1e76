// runAgent and sessions over its command line on pi, pointed at the OpenAI
// Chat Completions mock by `endpoint` alone: the suite in
// ./endpoint_agent_suite.cjs.
'use strict';
require('./endpoint_agent_suite.cjs').endpointAgentSuite('pi', 'cli');
