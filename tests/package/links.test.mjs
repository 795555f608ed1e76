// Docs an npm user can open: every relative link of the README, and of each
// docs page the package ships, is a file of the package (as `npm pack` lists
// it), and a link's `#anchor` is a heading of the page it names. Pages link
// only to what ships; a file that does not (docs/history/, the sources) is
// named by its path in the repository, in code, not linked
// (docs/development.md). And package.json says where the repository, its
// home page and its issues are.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
const files = new Set(packed[0].files.map((f) => f.path));
const pages = [...files].filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md'))).sort();

/** The markdown outside fenced code blocks and inline code spans. */
function prose(text) {
  return text
    .replace(/^(```|~~~)[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, '');
}

/** Every link and image target of `text`: inline, reference definitions, and HTML `href`/`src`. */
function targets(text) {
  const body = prose(text);
  const out = [];
  for (const m of body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]);
  for (const m of body.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/gm)) out.push(m[1]);
  for (const m of body.matchAll(/\s(?:href|src)="([^"]+)"/g)) out.push(m[1]);
  return out;
}

const external = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** GitHub's anchor for a heading: lowercase, punctuation but `-` and `_` dropped, spaces as `-`. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings (a repeated heading gets `-1`, `-2`, … as on GitHub). */
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const m of text.replace(/^(```|~~~)[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const text = (file) => readFileSync(join(root, file), 'utf8');

test('the package ships the README and the docs pages, not docs/history/', () => {
  assert.ok(pages.includes('README.md'));
  assert.ok(pages.includes('docs/architecture.md') && pages.includes('docs/agents.md'), pages.join(' '));
  assert.deepEqual([...files].filter((f) => f.startsWith('docs/history/')), []);
});

for (const page of pages) {
  test(`every relative link of ${page} is a file of the package`, () => {
    const body = text(page);
    const links = targets(body).filter((t) => !external(t));
    const dead = [];
    for (const target of links) {
      const [path, anchor] = target.split('#');
      const file = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path))).replace(/\\/g, '/');
      if (!files.has(file)) {
        dead.push(`${target}: ${file} is not in the package`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(text(file)).has(anchor.toLowerCase())) {
        dead.push(`${target}: no heading of ${file} has the anchor #${anchor}`);
      }
    }
    assert.deepEqual(dead, [], `${page}: ${dead.length} dead of ${links.length} links`);
  });
}

test('the README links to the docs pages (so this test has links to check)', () => {
  const docs = targets(text('README.md')).filter((t) => t.startsWith('docs/'));
  assert.ok(docs.length >= 20, `${docs.length} links to docs/`);
});

test('package.json names the repository, its home page and where to report bugs', () => {
  const manifest = JSON.parse(text('package.json'));
  const base = 'https://github.com/agent-context/agent-context';
  assert.equal(manifest.homepage, base);
  assert.equal(manifest.repository?.type, 'git');
  assert.equal(manifest.repository?.url, `git+${base}.git`);
  assert.equal(manifest.bugs?.url, `${base}/issues`);
});
