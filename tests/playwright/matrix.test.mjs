// The bad-input matrix (tests/matrix/matrix.mjs) on the web build in headless Chromium.
import test from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve-www.mjs';

const BROWSER_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

test('bad-input matrix in headless Chromium', { timeout: 300_000 }, async (t) => {
  const server = await startServer({ port: 0, withTests: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: BROWSER_ARGS });
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  await page.goto(`${server.origin}/tests/matrix/index.html`);
  await page.waitForFunction(() => window.matrixResult !== undefined, null, { timeout: 240_000 });
  const summary = await page.evaluate(() => window.matrixResult);
  console.log(`matrix (chromium): ${summary.total} cases, ${summary.results} results, ${summary.errors} AgentContextErrors`);
  assert.deepEqual(summary.failures, []);
  assert.ok(summary.total > 1000);
});
