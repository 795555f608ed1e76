// The package as users install it: npm pack, install the tarball into a fresh
// project, then require() and import by name with no init, type-check a
// TypeScript consumer with tsc --strict, run the Gemini tool's own module,
// load the web build in headless Chromium, and run the command from the
// installed package.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../..', import.meta.url));
const project = mkdtempSync(join(tmpdir(), 'agent-context-consumer-'));
/** The folders the tests make, removed once they are done. */
const made = [project];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });

let tarball;
test('npm pack holds only what users need', () => {
  const out = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', project], { cwd: root, encoding: 'utf8' }));
  tarball = join(project, out[0].filename);
  const files = out[0].files.map((f) => f.path).sort();
  for (const needed of ['package.json', 'README.md', 'bin/agent-context.js', 'pkg/node/agent_context.js', 'pkg/node/agent_context.mjs',
    'pkg/node/agent_context.d.ts', 'pkg/node/agent_context.d.mts', 'pkg/node/gemini-tool.cjs', 'pkg/node/mcp-server.cjs',
    'pkg/node/agent_context_node.js', 'pkg/node/agent_context_node_bg.wasm',
    'pkg/web/agent_context.js', 'pkg/web/agent_context.d.ts', 'pkg/web/agent_context_bg.wasm']) {
    assert.ok(files.includes(needed), `missing ${needed}`);
  }
  // One copy of each .wasm: both builds read pkg/web's (the bytes are the same).
  const wasm = files.filter((f) => f.endsWith('.wasm'));
  assert.deepEqual(wasm, ['pkg/node/agent_context_node_bg.wasm', 'pkg/web/agent_context_bg.wasm']);
  // The Gemini tool's module runs a process: Node only.
  assert.deepEqual(files.filter((f) => f.startsWith('pkg/web/') && /gemini|mcp/.test(f)), []);
  for (const file of files) {
    assert.doesNotMatch(file, /^(target|tests|src|fuzz|bench|node_modules|www|scripts|js)\//, `${file} should not ship`);
  }
  console.log(`tarball: ${out[0].filename}, ${files.length} files, ${out[0].size} bytes packed, ${out[0].unpackedSize} unpacked`);
});

test('installed into a fresh project', () => {
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball]);
});

test('the installed package brings at most 6 packages (npm ls --all --omit=dev), none of them an agent CLI', () => {
  const tree = JSON.parse(sh('npm', ['ls', '--all', '--omit=dev', '--json']));
  const names = new Set();
  const walk = (deps) => {
    for (const [name, dep] of Object.entries(deps ?? {})) {
      // npm lists an optional peer the app has not installed with no version: nothing was installed.
      if (dep.version === undefined) continue;
      names.add(`${name}@${dep.version}`);
      walk(dep.dependencies);
    }
  };
  walk(tree.dependencies);
  console.log(`npm ls --all --omit=dev: ${names.size} packages: ${[...names].sort().join(', ')}`);
  assert.ok(names.size <= 6, [...names].join(', '));
  // @opentelemetry/api is an optional peer: used when the app has it, never installed with the package.
  for (const name of names) assert.doesNotMatch(name, /claude-code|codex|gemini-cli|express|hono|@opentelemetry\//);
});

test('AgentContextError is a runtime class from every Node entry; BUDGET_EXCEEDED carries its numbers', () => {
  const check = `
    let err;
    try { assemble('claude-code', { contextMessages: [], currentMessage: 'x'.repeat(100), systemInstruction: 'sys', maxBytes: 10 }); } catch (e) { err = e; }
    let bad;
    try { assemble('claude-code', 'nope'); } catch (e) { bad = e; }
    process.stdout.write(JSON.stringify([err instanceof AgentContextError, err instanceof Error, err.code, typeof err.neededBytes, err.neededBytes > err.maxBytes, err.maxBytes,
      bad instanceof AgentContextError, bad.code, bad.neededBytes, new AgentContextError('INTERNAL', 'm').code]));`;
  const expected = [true, true, 'BUDGET_EXCEEDED', 'number', true, 10, true, 'INVALID_INPUT', null, 'INTERNAL']; // null: JSON of undefined
  assert.deepEqual(JSON.parse(sh(process.execPath, ['-e', `const { assemble, AgentContextError } = require('agent-context');${check}`])), expected);
  assert.deepEqual(JSON.parse(sh(process.execPath, ['--input-type=module', '-e', `import { assemble, AgentContextError } from 'agent-context';${check}`])), expected);
});

test('isomorphic code runs in Node: import init, then await init() (a no-op)', () => {
  const out = sh(process.execPath, ['--input-type=module', '-e', `
    import init, { assemble, initSync } from 'agent-context';
    await init();
    initSync();
    process.stdout.write(JSON.stringify(assemble('openai-codex', { contextMessages: [], currentMessage: 'hi' })));`]);
  assert.deepEqual(JSON.parse(out), { prompt: '[MESSAGE]\nhi' });
});

test('an unknown input key logs one warning naming the nearest known key', () => {
  const run = spawnSync(process.execPath, ['-e', `
    const { assemble, buildCliInvocation } = require('agent-context');
    const out = assemble('claude-code', { contextMessages: [], message: 'hi' });
    buildCliInvocation('google-gemini', { prompt: 'x' }, { modle: 'pro' });
    process.stdout.write(JSON.stringify(out));`], { cwd: project, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { prompt: '' });
  assert.deepEqual(run.stderr.trim().split('\n'), [
    '[agent-context] AssemblerInput has an unknown key "message" (did you mean "currentMessage"?); it is ignored',
    '[agent-context] buildCliInvocation options has an unknown key "modle" (did you mean "model"?); it is ignored',
  ]);
});

test('a .wasm that cannot be found: an error naming the file and the places looked in', () => {
  // Outside any project: no installed package to fall back on.
  const moved = mkdtempSync(join(tmpdir(), 'agent-context-moved-'));
  made.push(moved);
  const copy = join(moved, 'moved');
  sh('cp', ['-r', join(project, 'node_modules/agent-context/pkg/node'), copy]);
  const run = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(join(copy, 'agent_context.js'))})`], { cwd: project, encoding: 'utf8' });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /agent-context: cannot find agent_context_bg\.wasm; looked in: .*moved\/agent_context_bg\.wasm, .*moved\/\.\.\/web\/agent_context_bg\.wasm/);
  assert.match(run.stderr, /AGENT_CONTEXT_WASM_DIR/);
  assert.match(run.stderr, /\.wasm\. Copy node_modules\/agent-context\/pkg\/web\/agent_context_bg\.wasm next to your bundle/);
  // Pointed at the file, it loads.
  const ok = spawnSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(join(copy, 'agent_context.js'))}).assemble('x', { contextMessages: [], currentMessage: 'ok' }).prompt)`],
    { cwd: project, encoding: 'utf8', env: { ...process.env, AGENT_CONTEXT_WASM_DIR: join(project, 'node_modules/agent-context/pkg/web') } });
  assert.equal(ok.stdout, 'ok', ok.stderr);
});

test('a .wasm of another size than the build wrote (one more custom section) is read whole and loads', () => {
  // The glue reads the size it was built with in one go; a file of any other
  // size must not be cut or refused.
  const dir = mkdtempSync(join(tmpdir(), 'agent-context-longer-'));
  made.push(dir);
  const original = readFileSync(join(project, 'node_modules/agent-context/pkg/web/agent_context_bg.wasm'));
  const name = Buffer.from('agent-context-test');
  const payload = Buffer.alloc(70_000, 7); // longer than the read's one spare byte, and than 64 KiB
  const body = Buffer.concat([Buffer.from([name.length]), name, payload]);
  const leb = [];
  for (let n = body.length; ; n >>>= 7) {
    if (n < 0x80) { leb.push(n); break; }
    leb.push((n & 0x7f) | 0x80);
  }
  writeFileSync(join(dir, 'agent_context_bg.wasm'), Buffer.concat([original, Buffer.from([0, ...leb]), body]));
  const run = spawnSync(process.execPath, ['-e', `
    const pkg = require('agent-context');
    process.stdout.write(pkg.assemble('x', { contextMessages: [], currentMessage: 'longer' }).prompt);`],
    { cwd: project, encoding: 'utf8', env: { ...process.env, AGENT_CONTEXT_WASM_DIR: dir } });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, 'longer');
  // Shorter: cut before its last section, the module is invalid, and says so.
  writeFileSync(join(dir, 'agent_context_bg.wasm'), original.subarray(0, original.length - 10));
  const short = spawnSync(process.execPath, ['-e', "require('agent-context')"], { cwd: project, encoding: 'utf8', env: { ...process.env, AGENT_CONTEXT_WASM_DIR: dir } });
  assert.notEqual(short.status, 0);
  assert.match(short.stderr, /CompileError/);
});

test('require() by name works with no init call (CommonJS, an Electron main process)', () => {
  const out = sh(process.execPath, ['-e', `
    const { assemble, templates } = require('agent-context');
    const r = assemble('google-gemini', { contextMessages: [{ from: 'a', content: 'b' }], currentMessage: 'hi', teamTask: null });
    process.stdout.write(JSON.stringify([r, Object.keys(templates).length]));`]);
  assert.deepEqual(JSON.parse(out), [{ prompt: 'Conversation so far:\n- a: b\n\nYour task:\nhi' }, 4]);
});

test('import by name works with no init call (ESM)', () => {
  const out = sh(process.execPath, ['--input-type=module', '-e', `
    import agentContext, { assemble, parseAgentOutput } from 'agent-context';
    const r = assemble('claude-code', { contextMessages: [], currentMessage: 'hi', teamTask: null, systemInstruction: 'sys' });
    process.stdout.write(JSON.stringify([r, agentContext.assemble === assemble, parseAgentOutput('google-gemini', '{"type":"message","role":"assistant","content":"plain"}').text]));`]);
  assert.deepEqual(JSON.parse(out), [{ prompt: '[MESSAGE]\nhi', systemFlag: 'sys' }, true, 'plain']);
});

test('the Gemini tool runs from the installed package (its own module, loaded on the first run)', () => {
  const out = sh(process.execPath, ['-e', `
    const { runGeminiTool } = require('agent-context');
    runGeminiTool({ PROMPT: 'x', cd: process.cwd() }, { command: '/nonexistent/agent-context-test/gemini' })
      .then((envelope) => process.stdout.write(JSON.stringify([envelope.error_kind, envelope.error_detail.message])));`]);
  assert.deepEqual(JSON.parse(out), ['command_not_found', 'spawn /nonexistent/agent-context-test/gemini ENOENT']);
});

test('a TypeScript consumer type-checks with tsc --noEmit --strict', () => {
  for (const file of ['consumer.mts', 'consumer.cts', 'consumer-runtime.mts', 'consumer-bundler.ts', 'consumer-readme.mts']) {
    copyFileSync(fileURLToPath(new URL(file, import.meta.url)), join(project, file));
  }
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', skipLibCheck: false, types: [] },
    files: ['consumer.mts', 'consumer.cts', 'consumer-runtime.mts', 'consumer-readme.mts'],
  }));
  const tsc = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', project], { cwd: project, encoding: 'utf8' });
  assert.equal(tsc.status, 0, `${tsc.stdout}${tsc.stderr}`);
  // The hover docs read as written: no raw-string tokens from Rust macros.
  for (const dts of ['pkg/node/agent_context.d.ts', 'pkg/web/agent_context.d.ts']) {
    const text = readFileSync(join(project, 'node_modules/agent-context', dts), 'utf8');
    assert.doesNotMatch(text, /^\s*\* r"/m, dts);
    assert.match(text, /\* \/\/ \{ prompt: '\[MESSAGE\]\\nHi', systemFlag: 'Be brief' \}\n/, dts);
  }
});

test('a TypeScript consumer under moduleResolution "bundler" type-checks: everything the README shows, from agent-context and agent-context/node', () => {
  writeFileSync(join(project, 'tsconfig.bundler.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', skipLibCheck: false, types: [] },
    files: ['consumer-bundler.ts', 'consumer-readme.mts'],
  }));
  const tsc = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(project, 'tsconfig.bundler.json')], { cwd: project, encoding: 'utf8' });
  assert.equal(tsc.status, 0, `${tsc.stdout}${tsc.stderr}`);
});

test('the command runs from the installed package', () => {
  const out = sh(join(project, 'node_modules/.bin/agent-context'), ['demo']);
  assert.match(out, /===== claude-code \(\d+ of 786432 bytes\) =====/);
});

test('the web build loads from the installed package in headless Chromium', { timeout: 60_000 }, async (t) => {
  writeFileSync(join(project, 'index.html'), `<!doctype html><meta charset="utf-8"><script type="module">
    import init, { assemble, templates } from './node_modules/agent-context/pkg/web/agent_context.js';
    await init();
    window.result = [assemble('openai-codex', { contextMessages: [], currentMessage: 'hi', teamTask: null, systemInstruction: 'sys' }), Object.keys(templates).length];
  </script>`);
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
  const server = http.createServer((req, res) => {
    try {
      const path = join(project, decodeURIComponent(new URL(req.url, 'http://x').pathname));
      if (!path.startsWith(project)) throw new Error('outside');
      const body = readFileSync(path);
      res.writeHead(200, { 'content-type': types[extname(path)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.after(async () => {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  });
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30_000 });
  assert.deepEqual(await page.evaluate(() => window.result), [{ prompt: '[SYSTEM]\nsys\n\n[MESSAGE]\nhi', systemFlag: undefined }, 4]);
});
