// Every recorded release of each CLI (tests/fixtures/cli/<cli>/<version>/,
// recorded by `npm run record -- <package>@<version>`), through the package
// as users call it: whole and streamed, each run reads to the reply its mock
// scenario makes, with the text taken from the mocks themselves.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const { PLAIN_PIECES, NOTES_TEXT, answerAfterTool } = require('../cli/mocks/common.cjs');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'cli');
const AGENTS = { claude: 'claude-code', codex: 'openai-codex', gemini: 'google-gemini' };
const PLAIN = PLAIN_PIECES.join('');
const TOOL = answerAfterTool(NOTES_TEXT);

function parseBoth(agentType, bytes) {
  const whole = pkg.parseAgentOutput(agentType, bytes);
  const parser = new pkg.AgentOutputParser(agentType);
  const events = [];
  for (let i = 0; i < bytes.length; i += 61) events.push(...parser.push(bytes.subarray(i, i + 61)));
  assert.deepEqual(parser.finish(), whole);
  return { whole, events };
}

for (const cli of Object.keys(AGENTS)) {
  for (const version of fs.readdirSync(path.join(FIXTURES, cli))) {
    const dir = path.join(FIXTURES, cli, version);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
    test(`${meta.package} ${version}: every recorded scenario reads to its reply`, () => {
      assert.equal(meta.version, version);
      for (const [scenario, run] of Object.entries(meta.runs)) {
        const { whole, events } = parseBoth(AGENTS[cli], fs.readFileSync(path.join(dir, `${scenario}.jsonl`)));
        const what = `${cli} ${version} ${scenario}`;
        assert.equal(typeof run.exitCode, 'number', what);
        assert.equal(whole.unknownEvents, undefined, what);
        assert.ok(!events.some((e) => e.type === 'unknown'), what);
        if (scenario === 'plain' || scenario === 'flaky') {
          assert.equal(whole.status, 'success', what);
          assert.equal(whole.text, PLAIN, what);
        } else if (scenario === 'tool') {
          assert.equal(whole.status, 'success', what);
          assert.equal(whole.text, cli === 'gemini' ? TOOL : `Let me read the notes.\n\n${TOOL}`, what);
          assert.equal(whole.toolUses.length, 1, what);
          assert.equal(whole.toolUses[0].status, 'success', what);
        } else {
          assert.equal(whole.status, 'error', what);
          assert.equal(whole.text, '', what);
        }
        // Codex's older schema prints no session id.
        if (!(cli === 'codex' && version === '0.42.0')) assert.equal(typeof whole.sessionId, 'string', what);
      }
    });
  }
}

// Qwen Code, GitHub Copilot CLI and opencode, recorded against the OpenAI
// Chat Completions mock (tests/fixtures/cli/<agent-type>/<version>/), every
// release and every scenario, with Copilot's usage file merged where the
// release wrote one.
for (const agentType of ['qwen-code', 'github-copilot', 'opencode']) {
  for (const version of fs.readdirSync(path.join(FIXTURES, agentType))) {
    const dir = path.join(FIXTURES, agentType, version);
    const scenarios = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => f.slice(0, -'.jsonl'.length));
    test(`${agentType} ${version}: every recorded scenario reads to its reply`, () => {
      assert.ok(scenarios.length >= 5, `${agentType} ${version}: ${scenarios}`);
      for (const scenario of scenarios) {
        const what = `${agentType} ${version} ${scenario}`;
        let { whole, events } = parseBoth(agentType, fs.readFileSync(path.join(dir, `${scenario}.jsonl`)));
        const usageFile = path.join(dir, `${scenario}.usage.json`);
        if (fs.existsSync(usageFile)) {
          whole = pkg.mergeAgentOutputFile(agentType, whole, { kind: 'usage', content: fs.readFileSync(usageFile, 'utf8') });
        }
        assert.equal(whole.unknownEvents, undefined, what);
        assert.ok(!events.some((e) => e.type === 'unknown'), what);
        assert.equal(typeof whole.sessionId, 'string', what);
        if (['plain', 'resume', 'resume-first'].includes(scenario)) {
          assert.equal(whole.status, 'success', what);
          assert.equal(whole.text, PLAIN, what);
          assert.deepEqual(whole.errors, [], what);
        } else if (scenario === 'tool') {
          assert.equal(whole.status, 'success', what);
          assert.equal(whole.text, TOOL, what);
          assert.equal(whole.toolUses.length, 1, what);
          assert.equal(whole.toolUses[0].status, 'success', what);
          assert.equal(whole.usage.outputTokens, 18, what);
        } else if (scenario === 'max-turns') {
          assert.equal(whole.status, 'incomplete', what);
        } else if (scenario === 'denied') {
          assert.equal(whole.status, 'success', what);
          assert.equal(whole.toolUses[0].status, 'error', what);
        } else {
          assert.match(scenario, /^error(400|500)$/, what);
          assert.equal(whole.status, 'error', what);
          assert.equal(whole.text, '', what);
          assert.equal(whole.errors.filter((e) => e.fatal).length, 1, what);
        }
      }
    });
  }
}
