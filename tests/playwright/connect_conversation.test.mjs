// A page in headless Chromium joins a conversation that `agent-context
// serve` serves: the web build's connectConversation over the browser's
// WebSocket (the token as a subprotocol), from an origin the server lists.
// The page's turn gets the reply and its events; a Node client (the ACP
// SDK's) that loaded the conversation sees the page's turn; the page then
// joins the conversation again by its id and its history holds both turns.
// Refused: a wrong token, and the same page from an origin not listed
// (`localhost` instead of `127.0.0.1`). The served agent is the scripted
// one of tests/acp (client_agent.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve-www.mjs';

const require = createRequire(import.meta.url);
const { overNetwork, until, noneLeft, BIN } = require('../acp/served_clients.cjs');
const AGENT = fileURLToPath(new URL('../acp/client_agent.mjs', import.meta.url));
const BROWSER_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

test('a page in Chromium joins a conversation agent-context serve serves, and gets the reply', { timeout: 120_000 }, async (t) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'browser-served-')));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  const www = await startServer({ port: 0 });
  const origin = new URL(www.url).origin;
  const definition = { id: 'client-agent', name: 'Client features agent', command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: path.join(dir, 'sent.jsonl') }, protocol: 'acp' };
  const serve = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--origin', origin, '--agent', JSON.stringify(definition), '--store', path.join(dir, 'store'), '--cd', dir], { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  serve.stdout.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => serve.once('exit', (code) => resolve(code)));
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: BROWSER_ARGS, timeout: 30_000 });
  t.after(async () => {
    await browser.close();
    await www.close();
    serve.kill('SIGTERM');
    await new Promise((resolve) => (serve.exitCode === null && serve.signalCode === null ? serve.once('exit', resolve) : resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await until(() => /token: \S+\n/.test(out), 20_000, 'the server');
  const url = /agent-context serve: (http:\S+)/.exec(out)[1].replace(/^http/, 'ws');
  const token = /token: (\S+)/.exec(out)[1];

  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(www.url);
  const first = await page.evaluate(async ({ url, token }) => {
    const lib = await import('/pkg/web/agent_context.js');
    await lib.default();
    const c = await lib.connectConversation(url, { token });
    const events = [];
    const reply = await c.prompt('Hi from the page', { onEvent: (e) => events.push(e.type) });
    window.conversation = c;
    return { conversationId: c.conversationId, reply, events, history: c.history().entries.map((e) => [e.seq, e.update.sessionUpdate]) };
  }, { url, token });
  assert.deepEqual(pageErrors, []);
  assert.match(first.conversationId, /^[0-9a-f-]{36}$/);
  assert.equal(first.reply.text, 'Hello from turn 1');
  assert.equal(first.reply.status, 'success');
  assert.ok(first.events.includes('text'), first.events.join());
  assert.deepEqual(first.history, [[2, 'agent_message_chunk']], 'its own prompt is not sent back; the reply is seq 2');

  // A Node client loads the conversation and sees the page's next turn live.
  const node = await overNetwork(url, token);
  t.after(() => node.close());
  await node.agent.request('session/load', { sessionId: first.conversationId, cwd: dir, mcpServers: [] });
  const second = await page.evaluate(async () => (await window.conversation.prompt('Second from the page')).text);
  assert.equal(second, 'Hello from turn 2');
  await until(() => node.text(first.conversationId).endsWith('Hello from turn 2'), 5_000, 'the Node client to see the page’s turn');
  assert.equal(node.text(first.conversationId, 'user_message_chunk'), 'Hi from the pageSecond from the page');

  // Joined again by its id: the whole conversation.
  const again = await page.evaluate(async ({ url, token, id }) => {
    const lib = await import('/pkg/web/agent_context.js');
    const c = await lib.connectConversation(url, { token, conversationId: id });
    const kinds = c.history().entries.map((e) => e.update.sessionUpdate);
    c.close();
    return kinds;
  }, { url, token, id: first.conversationId });
  assert.deepEqual(again, ['user_message_chunk', 'agent_message_chunk', 'user_message_chunk', 'agent_message_chunk']);

  // Refused: a wrong token; the page from an origin the server does not list.
  const wrong = await page.evaluate(async ({ url }) => {
    const lib = await import('/pkg/web/agent_context.js');
    return lib.connectConversation(url, { token: 'wrongwrongwrongwrong' }).then(() => 'connected', (err) => err.message);
  }, { url });
  assert.match(wrong, /could not connect/);
  const elsewhere = await browser.newPage();
  await elsewhere.goto(www.url.replace('127.0.0.1', 'localhost'));
  const foreign = await elsewhere.evaluate(async ({ url, token }) => {
    const lib = await import('/pkg/web/agent_context.js');
    await lib.default();
    return lib.connectConversation(url, { token }).then(() => 'connected', (err) => err.message);
  }, { url, token });
  assert.match(foreign, /could not connect/);

  serve.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.deepEqual(await noneLeft(home), []);
});
