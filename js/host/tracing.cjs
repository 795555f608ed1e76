// A span per agent turn, Node only, when the app has `@opentelemetry/api`
// installed (an optional peer dependency: looked up once, on the first
// turn, and never loaded otherwise). The span is a child of the turn's
// `traceparent` (else of the active context) and names the agent, the
// model, the stop reason, the usage and the error kind; while it records,
// the agent is handed the span's own trace context, so that its spans are
// children of the turn's. Without the API, or with no tracer recording,
// the agent gets the `traceparent` it was given. The value was checked by
// the core (`__checkTraceparent`, the engine).
'use strict';

let api; // undefined: not looked up yet; null: not installed

function otel() {
  if (api === undefined) {
    try {
      api = require('@opentelemetry/api');
    } catch {
      api = null;
    }
  }
  return api;
}

/** A W3C traceparent's parts (already checked by the core). */
function parentContext(o, traceparent) {
  const [, traceId, spanId, flags] = traceparent.split('-');
  return o.trace.setSpanContext(o.context.active(), { traceId, spanId, traceFlags: parseInt(flags, 16) & 1, isRemote: true });
}

/**
 * Starts the span of one turn of `agent` (`model` when known) under
 * `traceparent` (or the active context). Returns `{ traceparent, end(turn) }`:
 * the trace context to hand the agent, and what ends the span with the
 * turn's result (an AgentRun or AgentTurn, or undefined when it threw).
 */
function startTurn({ agent, model, traceparent }) {
  const o = otel();
  if (!o) return { traceparent, end() {} };
  const parent = traceparent ? parentContext(o, traceparent) : o.context.active();
  const attributes = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent };
  if (model) attributes['gen_ai.request.model'] = model;
  const span = o.trace.getTracer('agent-context').startSpan(`invoke_agent ${agent}`, { kind: o.SpanKind.CLIENT, attributes }, parent);
  const own = span.spanContext();
  const recording = span.isRecording() && o.trace.isSpanContextValid(own);
  const flags = (own.traceFlags & 1).toString(16).padStart(2, '0');
  return {
    traceparent: recording ? `00-${own.traceId}-${own.spanId}-${flags}` : traceparent,
    end(turn) {
      if (turn) {
        const usage = turn.reply?.usage ?? {};
        const set = (key, value) => value !== undefined && value !== null && span.setAttribute(key, value);
        set('gen_ai.response.finish_reasons', turn.stopReason ? [turn.stopReason] : undefined);
        set('gen_ai.conversation.id', turn.sessionId);
        set('gen_ai.usage.input_tokens', usage.inputTokens);
        set('gen_ai.usage.output_tokens', usage.outputTokens);
        set('agent_context.usage.cost_usd', usage.costUsd);
        set('agent_context.attempts', turn.attempts);
        if (turn.error) {
          span.setAttribute('error.type', turn.error.kind);
          span.setStatus({ code: o.SpanStatusCode.ERROR, message: turn.error.message });
        }
      } else {
        span.setAttribute('error.type', 'host_error');
        span.setStatus({ code: o.SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

module.exports = { startTurn };
