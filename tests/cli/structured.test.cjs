// outputSchema on the real Claude Code and Codex CLIs, offline against the
// mock APIs: each CLI's own way (Claude Code's `--json-schema`, which
// offers the model a StructuredOutput tool and returns
// `structured_output`; Codex's `--output-schema`, the answer's format in
// the Responses request), the value validated by the core as
// `reply.structured`; and a reply that never matches (the mock ignoring
// the schema): a corrective turn on the same session, then `invalid_output`.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const { valueFor } = require('./mocks/common.cjs');
const { inFreshRun } = require('./processes.cjs');
const { turnsAsking } = require('./requests.cjs');

const TEST_TIMEOUT_MS = 120_000;
const REVIEW = {
  type: 'object',
  properties: {
    verdict: { enum: ['ship', 'hold'] },
    score: { type: 'integer', minimum: 1, maximum: 10 },
    notes: { type: 'array', items: { type: 'string' } },
  },
  required: ['verdict', 'score', 'notes'],
  additionalProperties: false,
};

async function setUp(cli, scenario) {
  const dir = harness.tempDir(`structured-${cli}-${scenario}`);
  const mock = await harness.startMock(harness.CLIS[cli].api, scenario, dir);
  const box = harness.sandbox(cli, mock, dir);
  if (cli === 'claude') box.env.CLAUDE_CODE_MAX_RETRIES = '0';
  return { cli, dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd) };
}

function cleanUp(ctx) {
  ctx.mock.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

function run(ctx, options) {
  return pkg.runAgent(harness.CLIS[ctx.cli].agentType, { prompt: 'Review the parser and give your verdict.' }, {
    cd: ctx.cwd,
    command: harness.executable(ctx.cli),
    model: harness.MODELS[ctx.cli],
    env: ctx.env,
    timeout: 30,
    maxDuration: 90,
    ...options,
  });
}

/** The calls of the agent's turns (not a side call beside them: the mock logs each call's kind). */
const calls = (ctx) => ctx.mock.turns();
const within = (cli, scenario, body) => inFreshRun(() => setUp(cli, scenario), cleanUp, body);
const texts = (value, out = []) => {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) texts(v, out);
  return out;
};

test('Claude Code: its own --json-schema, the value in reply.structured', { timeout: TEST_TIMEOUT_MS }, () =>
  within('claude', 'structured', async (ctx) => {
    const result = await run(ctx, { outputSchema: REVIEW, maxRetries: 0 });
    assert.equal(result.success, true, JSON.stringify(result.error));
    assert.deepEqual(result.reply.structured, valueFor(REVIEW));
    assert.deepEqual(result.reply.structured, { verdict: 'ship', score: 1, notes: [] });
    const offered = calls(ctx).flatMap((r) => r.body?.tools ?? []).find((t) => t.name === 'StructuredOutput');
    assert.deepEqual(offered?.input_schema, REVIEW, 'the schema reached the model as the tool Claude Code offers');
    // Its own way: the prompt does not state the schema.
    assert.ok(!texts(calls(ctx)[0].body.messages).some((t) => t.includes('JSON Schema')));
  }));

test('Codex: its own --output-schema (a file of the run), the JSON answer validated', { timeout: TEST_TIMEOUT_MS }, () =>
  within('codex', 'structured', async (ctx) => {
    const result = await run(ctx, { outputSchema: REVIEW, maxRetries: 0 });
    assert.equal(result.success, true, JSON.stringify(result.error));
    assert.deepEqual(result.reply.structured, { verdict: 'ship', score: 1, notes: [] });
    assert.equal(result.reply.text, JSON.stringify(result.reply.structured));
    const [first] = calls(ctx);
    assert.equal(first.body.text.format.type, 'json_schema');
    assert.deepEqual(first.body.text.format.schema, REVIEW);
    assert.ok(!texts(first.body.input).some((t) => t.includes('JSON Schema')), 'the prompt does not state it');
  }));

for (const cli of ['claude', 'codex']) {
  test(`${cli}: a reply that never matches gets a corrective turn on its session, then invalid_output`, { timeout: TEST_TIMEOUT_MS }, () =>
    within(cli, 'plain', async (ctx) => {
      const result = await run(ctx, { outputSchema: REVIEW, maxRetries: 1 });
      assert.equal(result.success, false);
      assert.equal(result.error.kind, 'invalid_output', JSON.stringify(result.error));
      assert.deepEqual(result.error.validationErrors, ['$: the reply is not JSON']);
      assert.equal(result.attempts, 2, 'the first turn and one corrective turn');
      const corrective = turnsAsking(ctx.mock.requests(), 'Your last answer did not match the JSON Schema');
      assert.ok(corrective.length >= 1, 'the corrective prompt reached the model');
      // On the same session: the first turn's prompt is in the corrective call's history.
      assert.ok(texts(corrective[0].body).some((t) => t.includes('Review the parser')), 'the corrective turn resumed the session');
    }));
}
