// Serves the playground (www/) and the web build (pkg/web/) on 127.0.0.1.
//   node scripts/serve-www.mjs [--port N]    (default 8787; 0 picks a free port)
// Also imported by the Playwright test, which calls startServer({ port: 0 }).
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVED = ['www', join('pkg', 'web')];
// Served only when a test asks (startServer({ withTests: true })), under a
// strict Content-Security-Policy: what WebAssembly needs and nothing more.
const TEST_DIRS = [join('tests', 'matrix')];
const TEST_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
};

async function handle(req, res, served) {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname === '/' || url.pathname === '/www') {
    res.writeHead(302, { location: '/www/' });
    return res.end();
  }
  let path = normalize(decodeURIComponent(url.pathname)).replace(/^[/\\]+/, '');
  if (path.endsWith(sep) || path === 'www') path = join(path, 'index.html');
  if (!served.some((dir) => path === dir || path.startsWith(dir + sep))) {
    res.writeHead(404);
    return res.end('not found');
  }
  try {
    const body = await readFile(join(ROOT, path));
    const headers = { 'content-type': TYPES[extname(path)] || 'application/octet-stream', 'cache-control': 'no-store' };
    if (TEST_DIRS.some((dir) => path.startsWith(dir + sep))) headers['content-security-policy'] = TEST_CSP;
    res.writeHead(200, headers);
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end('not found');
  }
}

/** Starts the server; resolves to { url, origin, close }. */
export function startServer({ port = 8787, withTests = false } = {}) {
  const served = withTests ? [...SERVED, ...TEST_DIRS] : SERVED;
  return new Promise((resolve, reject) => {
    const server = http.createServer((req, res) => {
      handle(req, res, served).catch(() => {
        res.writeHead(500);
        res.end();
      });
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address();
      const origin = `http://127.0.0.1:${actual}`;
      resolve({ url: `${origin}/www/`, origin, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--port');
  const port = at > 0 ? Number(process.argv[at + 1]) : 8787;
  const { url } = await startServer({ port }).catch((err) => {
    if (err.code !== 'EADDRINUSE') throw err;
    console.error(`port ${port} is busy; picking a free one`);
    return startServer({ port: 0 });
  });
  console.log(`agent-context playground: ${url}  (Ctrl-C to stop)`);
}
