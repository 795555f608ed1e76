// The packed package built by each bundler the README names, as a user would:
// npm pack, install the tarball into a fresh project, build, run.
//   - a browser page with Vite, esbuild and webpack 5, loaded in headless
//     Chromium, calling assemble;
//   - an Electron main process bundled with esbuild (CommonJS and ESM output)
//     and with electron-vite, run by Node from another folder than the bundle
//     (Electron itself is not installed: its postinstall downloads a binary;
//     the `electron` module the main process imports is the one thing mocked).
// The bundlers come from this folder's own manifest (scripts/setup.sh --bundlers).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const tools = join(here, 'node_modules', '.bin');
const requireTool = createRequire(join(here, 'package.json'));
const work = mkdtempSync(join(tmpdir(), 'agent-context-bundlers-'));
const project = join(work, 'app');
const elsewhere = join(work, 'elsewhere'); // the folder the main-process bundles are run from
const BUILD_MS = 180_000;
const INPUT = "{ contextMessages: [{ from: 'kailai', to: 'carol', content: 'Hello' }], currentMessage: 'hi', systemInstruction: 'sys' }";
const EXPECTED = { prompt: '[SYSTEM]\nsys\n\n[CONTEXT]\n- kailai -> carol: Hello\n\n[MESSAGE]\nhi' };

const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
const write = (rel, text) => {
  mkdirSync(dirname(join(project, rel)), { recursive: true });
  writeFileSync(join(project, rel), text);
};

test.before(() => {
  mkdirSync(project, { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' }));
  write('package.json', JSON.stringify({ name: 'bundled-app', version: '1.0.0', private: true, main: 'out/main/index.js' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', join(work, packed[0].filename)]);
  // The page each browser bundle serves: it calls assemble and shows the result.
  const page = `import init, { assemble, AgentContextError } from 'agent-context';
${'$'}{INIT}
window.result = JSON.parse(JSON.stringify([assemble('openai-codex', ${INPUT}), new AgentContextError('INTERNAL', 'x') instanceof Error]));
`;
  write('web/vite/main.js', page.replace('${INIT}', 'await init();'));
  write('web/vite/index.html', '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
  write('web/webpack/main.js', page.replace('${INIT}', 'await init();'));
  // esbuild does not copy files named by `new URL(…, import.meta.url)`: the
  // .wasm is imported by its package path, copied by --loader:.wasm=file, and
  // its URL given to init().
  write('web/esbuild/main.js', `import wasmUrl from 'agent-context/agent_context_bg.wasm';\n${page.replace('${INIT}', 'await init({ module_or_path: wasmUrl });')}`);
  write('main/require.cjs', `const { assemble, AgentContextError } = require('agent-context');
console.log(JSON.stringify([assemble('openai-codex', ${INPUT}), typeof AgentContextError]));
`);
  write('main/import.mjs', `import init, { assemble, AgentContextError } from 'agent-context';
await init();
console.log(JSON.stringify([assemble('openai-codex', ${INPUT}), typeof AgentContextError]));
`);
});

/** Serves `dir` on 127.0.0.1, opens `page` in headless Chromium, returns window.result. */
async function loadInChromium(dir, page) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };
  const missing = [];
  const server = http.createServer((req, res) => {
    const path = join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!path.startsWith(dir) || !existsSync(path)) {
      missing.push(req.url);
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': types[extname(path)] || 'application/octet-stream' });
    res.end(readFileSync(path));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on('pageerror', (err) => errors.push(err.message));
    await tab.goto(`http://127.0.0.1:${server.address().port}/${page}`);
    await tab.waitForFunction(() => window.result !== undefined, null, { timeout: 30_000 }).catch(() => {
      assert.fail(`no result; page errors: ${errors.join('; ')}; 404s: ${missing.join(', ')}`);
    });
    return await tab.evaluate(() => window.result);
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The .wasm files under `dir`. */
const wasmFiles = (dir) => readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.wasm'));

test('browser: Vite builds a page that loads the .wasm and assembles in Chromium', { timeout: BUILD_MS }, async () => {
  const dir = join(project, 'web/vite');
  run(join(tools, 'vite'), ['build', '--logLevel', 'warn', '--outDir', 'dist', '--emptyOutDir'], { cwd: dir });
  assert.equal(wasmFiles(join(dir, 'dist')).length, 1, 'Vite copies the .wasm it finds through new URL(…, import.meta.url)');
  assert.deepEqual(await loadInChromium(join(dir, 'dist'), 'index.html'), [EXPECTED, true]);
});

test('browser: webpack 5 builds a page that loads the .wasm and assembles in Chromium', { timeout: BUILD_MS }, async () => {
  const dir = join(project, 'web/webpack');
  const webpack = requireTool('webpack');
  const stats = await new Promise((resolve, reject) =>
    webpack({
      mode: 'production',
      context: dir,
      entry: './main.js',
      target: 'web',
      output: { path: join(dir, 'dist'), filename: 'main.js', clean: true },
      resolve: { modules: [join(project, 'node_modules')] },
      performance: { hints: false },
    }).run((err, result) => (err ? reject(err) : resolve(result))),
  );
  assert.equal(stats.hasErrors(), false, stats.toString('errors-only'));
  writeFileSync(join(dir, 'dist/index.html'), '<!doctype html><meta charset="utf-8"><script src="./main.js"></script>');
  assert.equal(wasmFiles(join(dir, 'dist')).length, 1, 'webpack emits the .wasm as an asset');
  assert.deepEqual(await loadInChromium(join(dir, 'dist'), 'index.html'), [EXPECTED, true]);
});

test('browser: esbuild (--bundle --format=esm --platform=browser --loader:.wasm=file) builds a page that assembles in Chromium', { timeout: BUILD_MS }, async () => {
  const dir = join(project, 'web/esbuild');
  run(join(tools, 'esbuild'), ['main.js', '--bundle', '--format=esm', '--platform=browser', '--loader:.wasm=file', '--outdir=dist', '--log-level=warning'], { cwd: dir });
  writeFileSync(join(dir, 'dist/index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
  assert.equal(wasmFiles(join(dir, 'dist')).length, 1, 'the imported .wasm is copied');
  assert.deepEqual(await loadInChromium(join(dir, 'dist'), 'index.html'), [EXPECTED, true]);
});

test('browser: esbuild without the .wasm import fails with an error naming the file and the URL', { timeout: BUILD_MS }, async () => {
  const dir = join(project, 'web/esbuild-plain');
  write('web/esbuild-plain/main.js', `import init, { assemble } from 'agent-context';
try {
  await init();
  window.result = 'loaded';
} catch (err) {
  window.result = err.message;
}
`);
  run(join(tools, 'esbuild'), ['main.js', '--bundle', '--format=esm', '--platform=browser', '--loader:.wasm=file', '--outdir=dist', '--log-level=error'], { cwd: dir });
  writeFileSync(join(dir, 'dist/index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
  const message = await loadInChromium(join(dir, 'dist'), 'index.html');
  assert.match(message, /^agent-context: cannot load agent_context_bg\.wasm: 404 .*fetching 'http:\/\/127\.0\.0\.1:\d+\/agent_context_bg\.wasm'\. /);
  assert.match(message, /import wasmUrl from 'agent-context\/agent_context_bg\.wasm'/);
});

/** Runs a main-process bundle with Node from `elsewhere`; returns its parsed output. */
function runMain(file, env = {}) {
  const result = spawnSync(process.execPath, [file], { cwd: elsewhere, encoding: 'utf8', env: { ...process.env, ...env } });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout);
}

for (const [format, source, out] of [['cjs', 'main/require.cjs', 'main.cjs'], ['esm', 'main/import.mjs', 'main.mjs']]) {
  test(`Electron main: esbuild --platform=node --format=${format}, run from another folder`, { timeout: BUILD_MS }, () => {
    const dist = join(project, `out-esbuild-${format}`);
    rmSync(dist, { recursive: true, force: true });
    run(join(tools, 'esbuild'), [source, '--bundle', '--platform=node', `--format=${format}`, `--outfile=${join(dist, out)}`, '--log-level=warning']);
    // In the project: the .wasm is found through the installed package.
    assert.deepEqual(runMain(join(dist, out)), [EXPECTED, 'function']);
    // Shipped alone, as the README says: the bundle with the .wasm copied next to it.
    const shipped = mkdtempSync(join(work, `shipped-${format}-`));
    copyFileSync(join(dist, out), join(shipped, out));
    const alone = spawnSync(process.execPath, [join(shipped, out)], { cwd: elsewhere, encoding: 'utf8' });
    assert.notEqual(alone.status, 0);
    assert.match(alone.stderr, new RegExp(`cannot find agent_context_bg\\.wasm; looked in: .*${shipped}/agent_context_bg\\.wasm`));
    copyFileSync(join(project, 'node_modules/agent-context/pkg/web/agent_context_bg.wasm'), join(shipped, 'agent_context_bg.wasm'));
    assert.deepEqual(runMain(join(shipped, out)), [EXPECTED, 'function']);
  });
}

for (const [how, build] of [
  ['agent-context external (the default)', '{ lib: { entry: "src/main/index.js" } }'],
  ['agent-context bundled in', '{ externalizeDeps: { exclude: ["agent-context"] }, lib: { entry: "src/main/index.js" } }'],
]) test(`Electron main: electron-vite build (main), ${how}, run by Node from another folder`, { timeout: BUILD_MS }, () => {
  write('src/main/index.js', `import { app } from 'electron';
import { assemble, AgentContextError } from 'agent-context';
app.whenReady().then(() => {
  console.log(JSON.stringify([assemble('openai-codex', ${INPUT}), typeof AgentContextError]));
  app.quit();
});
`);
  write('electron.vite.config.mjs', `export default { main: { build: ${build} } };\n`);
  rmSync(join(project, 'out'), { recursive: true, force: true });
  // The one mock: `electron`, which cannot be installed here (the main process
  // imports its app).
  write('node_modules/electron/package.json', JSON.stringify({ name: 'electron', version: '38.0.0', main: 'index.js' }));
  write('node_modules/electron/index.js', 'exports.app = { whenReady: () => Promise.resolve(), quit() {} };\n');
  try {
    // electron-vite looks for electron next to itself, not in the project; it
    // takes the major version (for its Node target) from this variable instead.
    run(join(tools, 'electron-vite'), ['build', '--logLevel', 'warn'], { env: { ...process.env, ELECTRON_MAJOR_VER: '38' } });
    const main = readdirSync(join(project, 'out/main')).find((f) => /^index\.(c|m)?js$/.test(f));
    assert.ok(main, `no main file in out/main: ${readdirSync(join(project, 'out/main'))}`);
    const requiresPackage = /require\("agent-context"\)|from "agent-context"/.test(readFileSync(join(project, 'out/main', main), 'utf8'));
    assert.equal(requiresPackage, how.includes('external'), `agent-context ${how}`);
    assert.deepEqual(runMain(join(project, 'out/main', main)), [EXPECTED, 'function']);
  } finally {
    rmSync(join(project, 'node_modules/electron'), { recursive: true, force: true });
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
