// Structured output (`outputSchema` on a run or a turn), Node only: the
// turns of one answer. The core (`__OutputSchema`, src/structured/) reads
// the schema, says what the prompt is, judges each finished turn (the value
// accepted as `reply.structured`, a corrective turn, or `invalid_output`)
// and carries a corrective turn's time and usage over; this file only sends
// the turns it is told to, each in its span (../host/tracing.cjs).
'use strict';

const { startTurn } = require('../host/tracing.cjs');

let OutputSchema;

/**
 * `schema` read for `agent` over `protocol` ('cli' | 'acp'), `field` naming
 * it; throws AgentContextError (INVALID_INPUT) for a bad schema. Undefined
 * when no schema is given.
 */
function readOutputSchema(schema, agent, protocol, field) {
  if (schema === undefined || schema === null) return undefined;
  OutputSchema ??= require('../core/agent_context_node.cjs').__OutputSchema;
  return new OutputSchema(schema, agent, protocol, field);
}

/**
 * One answer: `send(text, traceparent, n)` runs turn `n` (0, then each
 * corrective turn) and resolves its AgentRun/AgentTurn. Without `schema`
 * it is one turn as it is. `trace`: `{ agent, model, traceparent }` for the
 * turns' spans (each ended with its turn as judged); `maxRetries`: the
 * corrective turns allowed (undefined: the run's default); `sessionCost`:
 * the agent reports the session's cost so far.
 */
async function answer({ schema, text, send, trace, maxRetries, sessionCost = false }) {
  let span;
  const start = async (prompt, n) => {
    span = startTurn(trace);
    try {
      return await send(prompt, span.traceparent, n);
    } catch (err) {
      span.end();
      throw err;
    }
  };
  if (!schema) {
    const turn = await start(text, 0);
    span.end(turn);
    return turn;
  }
  try {
    let before;
    let fresh = await start(schema.prompt(text), 0);
    for (let n = 0; ; n += 1) {
      const { turn: judged, correct } = schema.judge(fresh, n, maxRetries ?? undefined);
      span.end(judged);
      // The answer so far: this turn, with the time and usage of those before it.
      const total = before ? schema.carryOver(before, judged, sessionCost) : judged;
      if (correct === undefined || correct === null) return total;
      before = total;
      fresh = await start(correct, n + 1);
    }
  } finally {
    schema.free();
  }
}

module.exports = { readOutputSchema, answer };
