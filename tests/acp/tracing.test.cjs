// A span per agent turn when the app has @opentelemetry/api: the SDK's
// in-memory exporter (a dev dependency, as an app would install it)
// records the turns of runs and sessions against the scripted ACP agent
// (tests/acp/client_agent.mjs): the agent, the model, the stop reason, the
// usage and the error kind, each span a child of the turn's traceparent,
// and the agent handed the span's own context.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const otel = require('@opentelemetry/api');
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const pkg = require('agent-context');

const AGENT = path.join(__dirname, 'client_agent.mjs');
const TIMEOUT_MS = 60_000;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const TP = `00-${TRACE}-00f067aa0ba902b7-01`;
const exporter = new InMemorySpanExporter();

before(() => {
  otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});

const folders = [];
after(() => {
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-trace-')));
  folders.push(dir);
  const log = path.join(dir, 'sent.jsonl');
  const definition = { id: 'client-agent', name: 'Client features agent', command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: log }, protocol: 'acp' };
  const prompts = () => fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((m) => m.method === 'session/prompt');
  return { dir, definition, prompts };
}

test('each turn of a run is a span under the given traceparent, and the agent gets the span as its parent', { timeout: TIMEOUT_MS }, async () => {
  exporter.reset();
  const ctx = setUp();
  const schema = { type: 'object', properties: { verdict: { enum: ['ship', 'hold'] }, score: { type: 'integer' } }, required: ['verdict', 'score'] };
  const run = await pkg.runAgent(ctx.definition, { prompt: 'SCHEMA review' }, { cd: ctx.dir, timeout: 20, maxRetries: 1, traceparent: TP, outputSchema: schema });
  assert.equal(run.success, true, JSON.stringify(run.error));
  const spans = exporter.getFinishedSpans();
  assert.equal(spans.length, 2, 'the turn and its corrective turn');
  for (const [i, span] of spans.entries()) {
    assert.equal(span.name, 'invoke_agent client-agent');
    assert.equal(span.kind, otel.SpanKind.CLIENT);
    assert.equal(span.spanContext().traceId, TRACE);
    assert.equal(span.parentSpanContext?.spanId ?? span.parentSpanId, '00f067aa0ba902b7');
    assert.equal(span.attributes['gen_ai.agent.name'], 'client-agent');
    assert.equal(span.attributes['gen_ai.request.model'], undefined, 'a definition names no model');
    assert.deepEqual(span.attributes['gen_ai.response.finish_reasons'], ['end_turn']);
    assert.equal(span.attributes['gen_ai.usage.input_tokens'], 10);
    assert.equal(span.attributes['gen_ai.usage.output_tokens'], 4);
    assert.match(span.attributes['gen_ai.conversation.id'], /^client-session-/);
    assert.equal(span.status.code, otel.SpanStatusCode.UNSET);
    // The agent was handed this span's context.
    assert.equal(ctx.prompts()[i].params._meta.traceparent, `00-${TRACE}-${span.spanContext().spanId}-01`);
  }
});

test('a session turn that fails records its error kind; without a traceparent the span is a root of its own', { timeout: TIMEOUT_MS }, async () => {
  exporter.reset();
  const ctx = setUp();
  const session = await pkg.openAgentSession(ctx.definition, { cd: ctx.dir, timeout: 20, maxRetries: 0 });
  try {
    const turn = await session.prompt('NEVER', { outputSchema: { type: 'object' } });
    assert.equal(turn.error.kind, 'invalid_output');
    const [span] = exporter.getFinishedSpans();
    assert.equal(span.attributes['error.type'], 'invalid_output');
    assert.equal(span.status.code, otel.SpanStatusCode.ERROR);
    assert.match(span.status.message, /does not match outputSchema/);
    assert.equal(span.parentSpanContext?.spanId ?? span.parentSpanId, undefined);
    assert.equal(ctx.prompts()[0].params._meta.traceparent, `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
  } finally {
    await session.close();
  }
});
