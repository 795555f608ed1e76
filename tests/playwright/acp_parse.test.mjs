// A recorded ACP transcript parses the same in a browser as in Node: every
// transcript in tests/fixtures/acp/ read with `{ protocol: 'acp' }` by the
// web build in headless Chromium (whole, as bytes and as a string, and
// streamed in chunks) gives the reply the Node build gives.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { parseAgentOutput } from 'agent-context';
import { startServer } from '../../scripts/serve-www.mjs';

const BROWSER_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const FIXTURES = new URL('../fixtures/acp/', import.meta.url);
const AGENTS = {
  claude: 'claude-code',
  codex: 'openai-codex',
  gemini: 'google-gemini',
  qwen: 'qwen-code',
  copilot: 'github-copilot',
  opencode: 'opencode',
};

const transcripts = Object.entries(AGENTS).flatMap(([dir, agentType]) =>
  readdirSync(new URL(`${dir}/`, FIXTURES)).flatMap((version) =>
    readdirSync(new URL(`${dir}/${version}/`, FIXTURES))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => ({
        name: `${dir} ${version} ${f}`,
        agentType,
        text: readFileSync(new URL(`${dir}/${version}/${f}`, FIXTURES), 'utf8'),
      })),
  ),
);

test('ACP transcripts parse the same in headless Chromium as in Node', { timeout: 120_000 }, async (t) => {
  assert.equal(transcripts.length, 29);
  const server = await startServer({ port: 0 });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: BROWSER_ARGS,
    timeout: 30_000,
  });
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(server.url);
  const inBrowser = await page.evaluate(async (all) => {
    const lib = await import('/pkg/web/agent_context.js');
    await lib.default();
    const encoder = new TextEncoder();
    return all.map(({ agentType, text }) => {
      const bytes = encoder.encode(text);
      const parser = new lib.AgentOutputParser(agentType, { protocol: 'acp' });
      const events = [];
      for (let i = 0; i < bytes.length; i += 777) events.push(...parser.push(bytes.subarray(i, i + 777)));
      return {
        fromBytes: lib.parseAgentOutput(agentType, bytes, { protocol: 'acp' }),
        fromString: lib.parseAgentOutput(agentType, text, { protocol: 'acp' }),
        streamed: parser.finish(),
        eventText: events.filter((e) => e.type === 'text').map((e) => e.text).join(''),
        navigator: navigator.userAgent,
      };
    });
  }, transcripts.map(({ agentType, text }) => ({ agentType, text })));
  assert.deepEqual(pageErrors, []);
  assert.match(inBrowser[0].navigator, /Chrome/);
  for (const [i, { name, agentType, text }] of transcripts.entries()) {
    const node = parseAgentOutput(agentType, text, { protocol: 'acp' });
    assert.ok(node.sessionId, name);
    assert.deepEqual(inBrowser[i].fromBytes, node, `${name}: bytes`);
    assert.deepEqual(inBrowser[i].fromString, node, `${name}: string`);
    assert.deepEqual(inBrowser[i].streamed, node, `${name}: streamed`);
    assert.equal(inBrowser[i].eventText, node.text, `${name}: text events`);
  }
});
