// Structured output (`outputSchema` on a run or a turn), Node only: the
// turns of one answer. The core (`__OutputSchema`, src/structured/) reads
// the schema, says what the prompt is, judges each finished turn (the value
// accepted as `reply.structured`, a corrective turn, or `invalid_output`)
// and carries a corrective turn's time and usage over; this file only sends
// the turns it is told to, each in its span (./tracing.cjs).
'use strict';

const { tracedTurn } = require('./tracing.cjs');

let OutputSchema;

/**
 * `schema` read for `agent` over `protocol` ('cli' | 'acp'), `field` naming
 * it; throws AgentContextError (INVALID_INPUT) for a bad schema. Undefined
 * when no schema is given.
 */
function readOutputSchema(schema, agent, protocol, field) {
  if (schema === undefined || schema === null) return undefined;
  OutputSchema ??= require('./agent_context_node.js').__OutputSchema;
  return new OutputSchema(schema, agent, protocol, field);
}

/**
 * One answer: `send(text, traceparent, n)` runs turn `n` (0, then each
 * corrective turn) and resolves its AgentRun/AgentTurn. Without `schema`
 * it is one turn as it is. `trace`: `{ agent, model, traceparent }` for the
 * turns' spans; `maxRetries`: the corrective turns allowed (undefined: the
 * run's default); `sessionCost`: the agent reports the session's cost so far.
 */
async function answer({ schema, text, send, trace, maxRetries, sessionCost = false }) {
  const turn = (prompt, n) => tracedTurn(trace, (traceparent) => send(prompt, traceparent, n));
  if (!schema) return turn(text, 0);
  try {
    let result = await turn(schema.prompt(text), 0);
    for (let n = 0; ; n += 1) {
      const { turn: judged, correct } = schema.judge(result, n, maxRetries ?? undefined);
      if (correct === undefined || correct === null) return judged;
      const next = await turn(correct, n + 1);
      result = schema.carryOver(judged, next, sessionCost);
    }
  } finally {
    schema.free();
  }
}

module.exports = { readOutputSchema, answer };
