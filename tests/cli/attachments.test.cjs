// Attachments with runAgent on the six agents, over their CLIs and over
// ACP, offline against the mock APIs on 127.0.0.1 (the mocks record every
// request body): an image (a PNG made here) reaches the model — its base64
// bytes are in the model request — wherever the agent takes one, given by
// path or as data; an embedded text resource and a link to a file reach it
// too; an agent that cannot take a kind is refused with invalid_params
// naming attachments[i]. A session takes them per turn (over ACP);
// over the CLI a session's turn with attachments is refused. Each pair has its own
// folder, HOME and mock, and leaves nothing running.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const chat = require('./openai_chat_agents.cjs');
const { inFreshRun } = require('./processes.cjs');
const { turnCalls } = require('./requests.cjs');
const { ADAPTERS, CODEX_MODEL } = require('../acp/adapters.cjs');

const TEST_TIMEOUT_MS = 240_000;
const BASE = path.join(harness.ROOT, 'target', 'attachments-live');
const RESOURCE_TEXT = 'Release checklist: tag, build, publish (resource mark 5531).';

// A 2×2 RGB PNG, built byte by byte.
function crc32(buf) {
  let crc = 0xffffffff;
  for (const byte of buf) {
    crc ^= byte;
    for (let k = 0; k < 8; k += 1) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
function makePng() {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 0, 255, 250, 200, 10]);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}
const PNG = makePng();
const PNG_BASE64 = PNG.toString('base64');

const CHAT = ['qwen', 'copilot', 'opencode'];
const NAMES = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', qwen: 'Qwen Code', copilot: 'GitHub Copilot CLI', opencode: 'opencode' };

/** A folder with a HOME, a working folder holding notes.txt and pic.png, a mock, the env; `command` and `model` for the pair. */
async function setUp(cli, protocol) {
  fs.mkdirSync(BASE, { recursive: true });
  let ctx;
  if (CHAT.includes(cli)) {
    const run = await chat.freshRun(cli, 'plain', BASE);
    ctx = { ...run, requests: () => chat.readRequests(run.mock.log), stop: () => chat.endFreshRun(run), command: chat.executable(cli), model: undefined };
    if (cli === 'opencode') {
      // opencode sends an image only to a model declared to take images.
      const config = JSON.parse(ctx.env.OPENCODE_CONFIG_CONTENT);
      Object.assign(config.provider.mock.models[chat.MODEL], { attachment: true, modalities: { input: ['text', 'image'], output: ['text'] } });
      ctx.env = { ...ctx.env, OPENCODE_CONFIG_CONTENT: JSON.stringify(config) };
    }
  } else {
    const dir = fs.mkdtempSync(path.join(BASE, `${cli}-${protocol}-`));
    const mock = await harness.startMock(harness.CLIS[cli].api, 'plain', dir);
    const box = harness.sandbox(cli, mock, dir, { geminiSettings: { general: { maxAttempts: 1 } } });
    const acp = protocol === 'acp';
    ctx = {
      dir,
      home: box.home,
      cwd: fs.realpathSync(box.cwd),
      env: { ...box.env, CLAUDE_CODE_MAX_RETRIES: '0' },
      requests: mock.requests,
      stop: () => {
        mock.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      },
      command: acp ? ADAPTERS[cli] : harness.executable(cli),
      model: cli === 'codex' && acp ? CODEX_MODEL : harness.MODELS[cli],
    };
  }
  fs.writeFileSync(path.join(ctx.cwd, 'pic.png'), PNG);
  return ctx;
}

function run(ctx, cli, protocol, attachments) {
  return pkg.runAgent(
    chat.AGENTS[cli]?.agentType ?? harness.CLIS[cli].agentType,
    { prompt: 'What is in the picture? (prompt mark 7310)' },
    { protocol, cd: ctx.cwd, command: ctx.command, env: ctx.env, model: ctx.model, timeout: 60, maxDuration: 150, maxRetries: 0, attachments },
  );
}

/** The agent's turn calls as text (not a side call beside them, a session title: the mock logs each call's kind). */
const everything = (ctx) => JSON.stringify(turnCalls(ctx.requests()));

/** Whether the image reached the model: its bytes, or (Qwen Code over its CLI) the image re-encoded as a data URL part. */
function imageReached(ctx, cli, protocol) {
  const all = everything(ctx);
  if (all.includes(PNG_BASE64)) return true;
  return cli === 'qwen' && protocol === 'cli' && /"type":"image_url","image_url":\{"url":"data:image\/jpeg;base64,/.test(all);
}

const PAIRS = ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'opencode'].flatMap((cli) => ['cli', 'acp'].map((protocol) => [cli, protocol]));

describe('attachments reach the model', { concurrency: 4 }, () => {
  for (const [cli, protocol] of PAIRS) {
    const skip = CHAT.includes(cli) && !chat.available(cli) ? `${cli} is not installed (tests/cli/install_openai_chat_agents.sh)` : false;
    test(`${cli} over ${protocol}: an image, an embedded resource and a file link`, { timeout: TEST_TIMEOUT_MS, skip }, () =>
      inFreshRun(() => setUp(cli, protocol), (ctx) => ctx.stop(), async (ctx) => {
        // Half the pairs give the image by path (relative to cd), half as data.
        const byData = ['codex', 'gemini', 'opencode'].includes(cli) === (protocol === 'cli');
        const image = byData ? { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } : { type: 'image', path: 'pic.png', mimeType: 'image/png' };
        const resources = [
          { type: 'resource', uri: 'file:///docs/release.md', text: RESOURCE_TEXT, mimeType: 'text/markdown' },
          { type: 'resource_link', path: 'notes.txt' },
        ];
        const key = `${cli}/${protocol}`;
        // Every pair takes images (the refusal of a kind an agent does not advertise is unit-tested in the core).
        const result = await run(ctx, cli, protocol, [image, ...resources]);
        assert.equal(result.success, true, `${key}: ${JSON.stringify(result.error ?? result)}`);
        const all = everything(ctx);
        assert.ok(all.includes('prompt mark 7310'), `${key}: the prompt reached the model`);
        assert.ok(imageReached(ctx, cli, protocol), `${key}: the image's bytes reached the model`);
        if (key === 'copilot/acp') {
          // Copilot over ACP writes an embedded resource to a file of its own and tags it in the prompt.
          assert.match(all, /<tagged_files>\\n\* \/[^ ]*acp-resource-[0-9a-f]+\.txt \(1 lines\)/, `${key}: the embedded resource reached the model as a tagged file`);
        } else {
          assert.ok(all.includes('resource mark 5531'), `${key}: the embedded resource's text reached the model`);
        }
        const notes = path.join(ctx.cwd, 'notes.txt');
        assert.ok(all.includes('4217') || all.includes(notes) || all.includes(`file://${notes}`), `${key}: the link (its path or its content) reached the model`);
      }),
    );
  }
});

test('bad attachments are invalid_params naming attachments[i]', { timeout: 30_000 }, async () => {
  const cd = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'attach-bad-'));
  try {
    fs.writeFileSync(path.join(cd, 'pic.png'), PNG);
    const cases = [
      [[{ type: 'video', path: 'a.mp4' }], /attachments\[0\]\.type must be 'image', 'resource_link' or 'resource', got "video"/],
      [[{ type: 'image', path: 'pic.png', mimeType: 'image/tiff' }], /attachments\[0\]\.mimeType must be 'image\/png', 'image\/jpeg', 'image\/gif' or 'image\/webp', got "image\/tiff"/],
      [[{ type: 'resource', uri: 'x:1', text: 'ok' }, { type: 'image', path: 'pic.png', mimeType: 'image/jpeg' }], /attachments\[1\]: the path's bytes are not image\/jpeg/],
      [[{ type: 'image', path: 'missing.png', mimeType: 'image/png' }], /attachments\[0\]\.path cannot be read: ENOENT/],
      [[{ type: 'image', data: 'not base64!', mimeType: 'image/png' }], /attachments\[0\]\.data must be base64/],
      [[{ type: 'image', data: PNG_BASE64, path: 'pic.png', mimeType: 'image/png' }], /attachments\[0\] needs either path or data \(base64\), not both/],
      [{ type: 'image' }, /options\.attachments must be an array, got an object/],
    ];
    for (const [protocol, agentType] of [['cli', 'openai-codex'], ['acp', 'google-gemini']]) {
      for (const [attachments, message] of cases) {
        const result = await pkg.runAgent(agentType, { prompt: 'x' }, { protocol, cd, command: '/nonexistent/agent', attachments, maxRetries: 0 });
        assert.equal(result.success, false);
        assert.equal(result.error.kind, 'invalid_params', JSON.stringify(result.error));
        assert.match(result.error.message, protocol === 'acp' ? new RegExp(message.source.replace('options\\.attachments', 'attachments')) : message);
      }
    }
  } finally {
    fs.rmSync(cd, { recursive: true, force: true });
  }
});

test('a session takes attachments per turn over ACP; over the CLI the turn is refused', { timeout: TEST_TIMEOUT_MS }, () =>
  inFreshRun(() => setUp('gemini', 'acp'), (ctx) => ctx.stop(), async (ctx) => {
    const session = await pkg.openAgentSession('google-gemini', { cd: ctx.cwd, command: ctx.command, env: ctx.env, model: ctx.model, maxRetries: 0, timeout: 60 });
    try {
      const plain = await session.prompt('First, no picture (turn mark 1).');
      assert.equal(plain.success, true, JSON.stringify(plain.error));
      assert.ok(!everything(ctx).includes(PNG_BASE64));
      const turn = await session.prompt('Now this picture (turn mark 2).', { attachments: [{ type: 'image', path: 'pic.png', mimeType: 'image/png' }] });
      assert.equal(turn.success, true, JSON.stringify(turn.error));
      assert.ok(everything(ctx).includes(PNG_BASE64), "the turn's image reached the model");
      const bad = await session.prompt('x', { attachments: [{ type: 'image', path: 'pic.png', mimeType: 'image/gif' }] });
      assert.equal(bad.success, false);
      assert.equal(bad.error.kind, 'invalid_params');
      assert.match(bad.error.message, /attachments\[0\]: the path's bytes are not image\/gif/);
    } finally {
      await session.close();
    }
    const overCli = await pkg.openAgentSession('google-gemini', { protocol: 'cli', cd: ctx.cwd, command: harness.executable('gemini'), env: ctx.env, model: ctx.model, maxRetries: 0 });
    try {
      const refused = await overCli.prompt('x', { attachments: [{ type: 'resource', uri: 'a:b', text: 't' }] });
      assert.equal(refused.success, false);
      assert.equal(refused.error.kind, 'invalid_params');
      assert.match(refused.error.message, /attachments are not taken by a session over Gemini CLI's command line/);
    } finally {
      await overCli.close();
    }
  }),
);
