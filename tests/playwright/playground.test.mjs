// The playground in headless Chromium (Debian's /usr/bin/chromium), driven by
// playwright-core: every view is used as a person would, and screenshotted to
// test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { knownAgents, parseAgentOutput } from 'agent-context';
import { startServer } from '../../scripts/serve-www.mjs';

const ARTIFACTS = new URL('../../test-results/', import.meta.url);
mkdirSync(ARTIFACTS, { recursive: true });
const golden = (name) => readFileSync(new URL(`../golden/${name}`, import.meta.url), 'utf8');

const BROWSER_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

test('the playground, view by view', { timeout: 120_000 }, async (t) => {
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
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.setDefaultTimeout(15_000);
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  const text = (selector) => page.locator(selector).textContent();

  await t.test('assemble: the seed 000 §7.1 example for Gemini', async () => {
    assert.equal(await text('#prompt'), golden('gemini-7.1-full.txt'));
    assert.equal(await text('#system-flag'), 'undefined');
  });

  await t.test("both agent lists are the library's registry", async () => {
    const values = (selector) => page.locator(`${selector} option`).evaluateAll((os) => os.map((o) => o.value));
    const types = knownAgents().map((a) => a.agentType);
    assert.deepEqual(await values('#agent'), [...types, 'custom']);
    assert.deepEqual(await values('#parse-agent'), types);
  });

  await t.test('assemble: switching agents', async () => {
    await page.selectOption('#agent', 'claude-code');
    assert.equal(await text('#prompt'), golden('claude-full.prompt.txt'));
    assert.equal(await text('#system-flag'), golden('claude-full.systemFlag.txt'));
    await page.selectOption('#agent', 'custom');
    await page.fill('#custom-agent', 'my-agent');
    assert.match(await text('#status'), /Unknown agentType "my-agent", using PlainTextAssembler/);
    assert.ok((await text('#prompt')).startsWith('You are Carol, a UI/UX designer\n\n'));
    await page.selectOption('#agent', 'openai-codex');
    assert.ok((await text('#prompt')).startsWith('[SYSTEM]\n'));
  });

  await t.test('assemble: editing the message', async () => {
    await page.fill('#current-message', 'Which chart library fits a dark theme?');
    assert.ok((await text('#prompt')).endsWith('[MESSAGE]\nWhich chart library fits a dark theme?'));
    assert.equal(JSON.parse(await page.inputValue('#input-json')).currentMessage, 'Which chart library fits a dark theme?');
  });

  await t.test('assemble: dragging the budget low forces trimming, shown in the report', async () => {
    const slider = page.locator('#budget');
    const box = await slider.boundingBox();
    // From the right end (everything fits) to about 80% of the untrimmed size.
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.64, box.y + box.height / 2, { steps: 12 });
    await page.mouse.up();
    const budget = Number(await page.inputValue('#budget-number'));
    const [used, shown] = (await text('#meter-text')).match(/\d+/g).map(Number);
    assert.equal(shown, budget);
    assert.ok(used <= budget, `${used} > ${budget}`);
    const dropped = page.locator('#report tr[data-key="messagesDropped"]');
    assert.ok(Number(await dropped.locator('td').nth(1).textContent()) >= 1);
    assert.match(await dropped.getAttribute('class'), /hit/);
    assert.doesNotMatch(await text('#prompt'), /kailai -> carol/, 'the oldest message went first');
    await page.screenshot({ path: new URL('playground-assemble.png', ARTIFACTS).pathname, fullPage: true });
  });

  await t.test('assemble: a library error is shown with its code', async () => {
    await page.fill('#context-messages', '[{"from": 42, "content": "x"}]');
    const error = page.locator('#assemble-error');
    await error.waitFor({ state: 'visible' });
    assert.equal(await error.textContent(), 'INVALID_INPUT: contextMessages[0].from must be a string, got a number');
    await page.fill('#context-messages', '[]');
    await error.waitFor({ state: 'hidden' });
  });

  await t.test('context: a run-mode context', async () => {
    await page.click('#tab-context');
    await page.selectOption('#mode', 'run');
    await page.fill('#run-step-name', 'Draft the grid');
    const prompt = await text('#system-prompt');
    assert.ok(prompt.startsWith('# Mode: RUN\n\n---\n\n## Base Rules (Run)'));
    assert.match(prompt, /\*\*Current Step:\*\* Draft the grid \(draft-layout\)/);
    assert.match(prompt, /- \*\*approved\*\* → review \(default\)/);
    assert.match(prompt, /### Run Directive Protocol/);
    const metadata = JSON.parse(await text('#metadata'));
    assert.deepEqual({ ...metadata, systemPromptLength: 0 }, {
      inputCount: 5, outputCount: 5, filteredCount: 1, systemPromptIncluded: true, systemPromptLength: 0,
    });
    assert.equal(metadata.systemPromptLength, prompt.length);
    const messages = JSON.parse(await text('#messages-json'));
    assert.equal(messages[2].tool_calls[0].function.arguments, '{"path":"docs/requirements.md"}');
    // The newest two would start on the tool result, whose call is cut off: it goes too.
    await page.fill('#max-messages', '2');
    assert.equal(JSON.parse(await text('#metadata')).trimmedCount, 3);
    await page.fill('#max-messages', '3');
    assert.equal(JSON.parse(await text('#metadata')).trimmedCount, 1);
    await page.screenshot({ path: new URL('playground-context.png', ARTIFACTS).pathname, fullPage: true });
    await page.fill('#conversation', '[{"role": "tool", "content": "x"}]');
    assert.equal(
      await text('#context-error'),
      'INVALID_INPUT: messages[0] is a tool message without toolCallId (the id of the call it answers)',
    );
  });

  await t.test('parse: the embedded sample and a real recorded Gemini stream', async () => {
    await page.click('#tab-parse');
    await page.selectOption('#parse-agent', 'google-gemini');
    assert.equal(await text('#parse-status'), 'success');
    assert.equal(await text('#parse-session'), 'a1b2c3d4-gemini');
    assert.equal(await text('#parse-text'), 'Use **React** with the team\u2019s component library.');
    const recorded = readFileSync(new URL('../fixtures/cli/gemini-tool.jsonl', import.meta.url), 'utf8');
    const expected = parseAgentOutput('google-gemini', recorded);
    await page.fill('#stream', recorded);
    assert.equal(await text('#parse-status'), expected.status);
    assert.equal(await text('#parse-session'), expected.sessionId);
    assert.equal(await text('#parse-text'), expected.text);
    assert.ok(expected.text.length > 0 && expected.toolUses.length > 0);
    assert.deepEqual(JSON.parse(await text('#parse-json')), JSON.parse(JSON.stringify(expected)));
    await page.screenshot({ path: new URL('playground-parse.png', ARTIFACTS).pathname, fullPage: true });
    const failed = parseAgentOutput('claude-code', readFileSync(new URL('../fixtures/cli/claude-error.jsonl', import.meta.url), 'utf8'));
    await page.selectOption('#parse-agent', 'claude-code');
    await page.fill('#stream', readFileSync(new URL('../fixtures/cli/claude-error.jsonl', import.meta.url), 'utf8'));
    assert.equal(await text('#parse-status'), 'error');
    assert.equal(await page.locator('#parse-errors li').count(), failed.errors.length);
  });

  assert.deepEqual(pageErrors, []);
});
