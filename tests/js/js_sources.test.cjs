// The JS host's sources as they sit in the repository: every relative
// require or import in js/ (and bin/) names a file of the source tree, js/
// has no require cycle (a require inside a function counts), the flat
// package the build makes resolves the same requires beside each file, and
// every error code the JS host throws is one of the core's
// (`AgentContextErrorCode`, which tests/error_codes.rs checks against
// `ErrorCode`, src/error.rs). docs/development.md says how the requires of
// the core's built modules resolve (js/core/).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');

const root = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// The files js/core/ names: wasm-bindgen's glue of the two modules, which
// scripts/build.sh writes into pkg/node.
const BUILT_GLUE = ['pkg/node/agent_context.js', 'pkg/node/agent_context_node.js'];
// The layers scripts/finish-pkg.mjs copies flat into pkg/node.
const SHIPPED_LAYERS = ['api', 'host', 'record', 'remote', 'transport', 'serve'];
// Code-shaped strings of js/ that are not error codes: environment variables' names.
// Not ours: a variable's name, and Node's own codes of a module not found (compared, never thrown).
const NOT_ERROR_CODES = new Set(['AGENT_CONTEXT_GEMINI_BIN', 'ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

const KEYWORDS_BEFORE_REGEX = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

/**
 * The tokens of JavaScript source `text` that matter here: identifiers and
 * keywords (`id`), string literals and template texts without substitutions
 * (`str`, their value), and punctuation (`punct`), each with its line;
 * comments, whitespace, numbers and regular expressions left out. A
 * template's `${…}` is read as code.
 */
function tokens(text) {
  const out = [];
  let i = 0;
  let line = 1;
  const templates = []; // brace depth at each open `${`
  let depth = 0;
  const last = () => out[out.length - 1];
  const regexMayStart = () => {
    const t = last();
    if (!t) return true;
    if (t.type === 'str') return false;
    if (t.type === 'id') return KEYWORDS_BEFORE_REGEX.has(t.value);
    return !(t.value === ')' || t.value === ']' || t.value === '}');
  };
  const count = (s) => {
    for (const c of s) if (c === '\n') line++;
  };
  // A template's text from `i` (after ` or }) to its end or a `${`.
  const templateText = () => {
    let value = '';
    const start = line;
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') {
        value += text.slice(i, i + 2);
        count(text.slice(i, i + 2));
        i += 2;
      } else if (c === '`') {
        i++;
        out.push({ type: 'str', value, line: start, template: true });
        return;
      } else if (c === '$' && text[i + 1] === '{') {
        i += 2;
        templates.push(depth);
        out.push({ type: 'punct', value: '${', line: start });
        return;
      } else {
        if (c === '\n') line++;
        value += c;
        i++;
      }
    }
    throw new Error(`unterminated template at line ${start}`);
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new Error(`unterminated comment at line ${line}`);
      count(text.slice(i, end + 2));
      i = end + 2;
    } else if (c === '#' && next === '!' && i === 0) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      let value = '';
      i++;
      while (text[i] !== c) {
        if (i >= text.length || text[i] === '\n') throw new Error(`unterminated string at line ${line}`);
        if (text[i] === '\\') {
          value += text.slice(i, i + 2);
          i += 2;
        } else value += text[i++];
      }
      i++;
      out.push({ type: 'str', value, line });
    } else if (c === '`') {
      i++;
      templateText();
    } else if (c === '}' && templates.length > 0 && templates[templates.length - 1] === depth) {
      templates.pop();
      i++;
      templateText();
    } else if (c === '/' && regexMayStart()) {
      i++;
      let inClass = false;
      while (i < text.length) {
        const r = text[i];
        if (r === '\n') throw new Error(`unterminated regular expression at line ${line}`);
        if (r === '\\') i += 2;
        else {
          i++;
          if (r === '[') inClass = true;
          else if (r === ']') inClass = false;
          else if (r === '/' && !inClass) break;
        }
      }
      while (/[a-z]/i.test(text[i] ?? '')) i++;
      out.push({ type: 'regex', line });
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z0-9_$]+/.exec(text.slice(i, i + 200));
      out.push({ type: 'id', value: m[0], line });
      i += m[0].length;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(next ?? ''))) {
      const m = /^[0-9a-fA-FxXoObBn_.eE]+/.exec(text.slice(i, i + 100));
      out.push({ type: 'number', line });
      i += m[0].length;
    } else {
      if (c === '{') depth++;
      if (c === '}') depth--;
      const three = text.slice(i, i + 3);
      const two = text.slice(i, i + 2);
      const op = ['...', '===', '!==', '**=', '<<=', '>>=', '&&=', '||=', '??='].includes(three)
        ? three
        : ['=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^='].includes(two)
          ? two
          : c;
      out.push({ type: 'punct', value: op, line });
      i += op.length;
    }
  }
  return out;
}

/**
 * What `text` requires and imports: `{ specifier, line }` for each
 * `require('…')`, `import('…')`, `import … from '…'`, `import '…'` and
 * `export … from '…'`; `{ dynamic: true, line }` for a require or import
 * whose argument is not one string.
 */
function dependencies(text) {
  const t = tokens(text);
  const found = [];
  const isPunct = (k, v) => t[k]?.type === 'punct' && t[k].value === v;
  const literal = (k) => t[k]?.type === 'str' && !(t[k].template && t[k].value.includes('${'));
  for (let k = 0; k < t.length; k++) {
    const tok = t[k];
    if (tok.type !== 'id') continue;
    const member = isPunct(k - 1, '.') || isPunct(k - 1, '?.');
    if ((tok.value === 'require' || tok.value === 'import') && !member && isPunct(k + 1, '(')) {
      if (literal(k + 2) && isPunct(k + 3, ')')) found.push({ specifier: t[k + 2].value, line: tok.line });
      else found.push({ dynamic: true, line: tok.line });
    } else if (tok.value === 'from' && literal(k + 1) && !member) {
      found.push({ specifier: t[k + 1].value, line: tok.line });
    } else if (tok.value === 'import' && !member && literal(k + 1)) {
      found.push({ specifier: t[k + 1].value, line: tok.line });
    }
  }
  return found;
}

/** Every file under `dir` whose name ends with one of `extensions`. */
function filesUnder(dir, extensions) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full, extensions));
    else if (extensions.some((e) => entry.name.endsWith(e))) out.push(full);
  }
  return out.sort();
}

const rel = (file) => path.relative(root, file).split(path.sep).join('/');
const isFile = (file) => fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;
const sources = () => [...filesUnder(path.join(root, 'js'), ['.cjs', '.js', '.mjs']), path.join(root, 'bin/agent-context.js')];

/** Each source's relative requires resolved: `Map(file -> [{ specifier, line, target }])`. */
function requireGraph(files) {
  const graph = new Map();
  for (const file of files) {
    const edges = [];
    for (const dep of dependencies(fs.readFileSync(file, 'utf8'))) {
      // js/host/import-package.cjs loads the app's optional packages by a
      // name in a variable (bundlers leave them to Node), only those it lists.
      if (dep.dynamic && rel(file) === 'js/host/import-package.cjs') continue;
      assert.ok(!dep.dynamic, `${rel(file)}:${dep.line}: a require or import of a computed name cannot be checked; name the file`);
      if (dep.specifier.startsWith('./') || dep.specifier.startsWith('../')) {
        edges.push({ ...dep, target: path.resolve(path.dirname(file), dep.specifier) });
      }
    }
    graph.set(file, edges);
  }
  return graph;
}

/** A cycle of `graph` (`Map(node -> [node])`) as the nodes along it, first repeated at the end; else null. */
function findCycle(graph) {
  const done = new Set();
  const open = [];
  const visit = (node) => {
    const at = open.indexOf(node);
    if (at >= 0) return [...open.slice(at), node];
    if (done.has(node)) return null;
    open.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    open.pop();
    done.add(node);
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

test('the reader finds requires and imports in code, not in comments or strings', () => {
  const text = [
    '#!/usr/bin/env node',
    "// require('./in-a-comment.cjs')",
    "/* import x from './in-a-block.js'; */",
    "const a = require('./a.cjs');",
    "const s = \"require('./in-a-string.cjs')\";",
    'const r = /\\/\\*[^/]*/g;',
    "function later() { return require(\"../b/c.cjs\").c; }",
    "import d from './d.mjs';",
    "import './e.mjs';",
    "export { f } from './f.mjs';",
    "const g = await import('./g.mjs');",
    'const t = `${require(`./t.cjs`)}`;',
    'const h = require(name);',
    "x.require('./not-a-require.cjs');",
  ].join('\n');
  assert.deepEqual(dependencies(text), [
    { specifier: './a.cjs', line: 4 },
    { specifier: '../b/c.cjs', line: 7 },
    { specifier: './d.mjs', line: 8 },
    { specifier: './e.mjs', line: 9 },
    { specifier: './f.mjs', line: 10 },
    { specifier: './g.mjs', line: 11 },
    { specifier: './t.cjs', line: 12 },
    { dynamic: true, line: 13 },
  ]);
});

test('a cycle is found, through any require', () => {
  const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  assert.deepEqual(findCycle(graph), ['a', 'b', 'c', 'a']);
  assert.equal(findCycle(new Map([['a', ['b']], ['b', []]])), null);
});

test('every relative require in js/ and bin/ names a file of the source tree', () => {
  const graph = requireGraph(sources());
  const problems = [];
  let checked = 0;
  for (const [file, edges] of graph) {
    for (const { specifier, line, target } of edges) {
      const where = `${rel(file)}:${line}: require('${specifier}')`;
      checked++;
      if (rel(file).startsWith('js/core/')) {
        // The core's modules: the glue the build writes (built before the JS tests run).
        if (!BUILT_GLUE.includes(rel(target))) problems.push(`${where}: js/core/ names the built glue only (${BUILT_GLUE.join(', ')})`);
        else if (!isFile(target)) problems.push(`${where}: build the package first (npm run build)`);
      } else if (rel(file).startsWith('bin/') && rel(target).startsWith('pkg/node/')) {
        // bin/ ships as it is, beside pkg/: a file the build copies there from a shipped layer of js/.
        const name = path.basename(target);
        const from = SHIPPED_LAYERS.filter((layer) => isFile(path.join(root, 'js', layer, name)));
        if (from.length !== 1) problems.push(`${where}: pkg/node/${name} is no file of a shipped layer of js/`);
        else if (!isFile(target)) problems.push(`${where}: build the package first (npm run build)`);
      } else if (rel(target).startsWith('pkg/') || rel(target).startsWith('..')) {
        problems.push(`${where}: names a file outside the source tree`);
      } else if (!isFile(target)) {
        problems.push(`${where}: ${rel(target)} does not exist`);
      }
    }
  }
  assert.ok(checked > 50, `read ${checked} requires`);
  assert.deepEqual(problems, [], `${problems.length} of ${checked} relative requires do not resolve in the source tree`);
  const session = graph.get(path.join(root, 'js/api/session.cjs'));
  assert.ok(session.some((e) => e.specifier === '../host/agent-process.cjs'), 'the reader sees js/api/session.cjs\'s requires');
});

test('every other require in js/ and bin/ is Node\'s own module or a declared dependency', () => {
  const declared = new Set([manifest.name, ...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  for (const file of sources()) {
    for (const { specifier, line } of dependencies(fs.readFileSync(file, 'utf8'))) {
      if (specifier === undefined || specifier.startsWith('.')) continue;
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
      const builtin = specifier.startsWith('node:') || builtinModules.includes(specifier);
      assert.ok(builtin || declared.has(name), `${rel(file)}:${line}: require('${specifier}') is neither Node's nor a dependency of package.json`);
    }
  }
});

test('js/ has no require cycle, a require inside a function included', () => {
  const files = filesUnder(path.join(root, 'js'), ['.cjs', '.js', '.mjs']);
  const graph = requireGraph(files);
  const plain = new Map([...graph].map(([file, edges]) => [file, edges.map((e) => e.target)]));
  assert.ok(plain.get(path.join(root, 'js/api/team.cjs')).includes(path.join(root, 'js/api/session.cjs')), 'a lazy require is an edge');
  const cycle = findCycle(plain);
  assert.equal(cycle, null, `a require cycle in js/: ${(cycle ?? []).map(rel).join(' -> ')}`);
});

test('each layer of js/ requires only the layers below it', () => {
  // serve/ -> api/ -> remote/, transport/, record/ -> host/ -> core/ (docs/architecture.md).
  const RANK = { core: 0, host: 1, record: 2, remote: 2, transport: 2, api: 3, serve: 4 };
  const graph = requireGraph(filesUnder(path.join(root, 'js'), ['.cjs', '.js', '.mjs']));
  let across = 0;
  for (const [file, edges] of graph) {
    const from = rel(file).split('/')[1];
    for (const { specifier, line, target } of edges) {
      const to = rel(target).split('/')[1];
      if (rel(target).startsWith('pkg/') || to === from) continue;
      across++;
      assert.ok(from in RANK && to in RANK && RANK[to] < RANK[from], `${rel(file)}:${line}: js/${from}/ requires js/${to}/ ('${specifier}')`);
    }
  }
  assert.ok(across > 20, `read ${across} requires across layers`);
});

test('the flat package requires each file beside it, as the source tree names it', () => {
  const pkg = path.join(root, 'pkg/node');
  let checked = 0;
  for (const layer of SHIPPED_LAYERS) {
    for (const name of fs.readdirSync(path.join(root, 'js', layer)).filter((f) => f.endsWith('.cjs'))) {
      const source = dependencies(fs.readFileSync(path.join(root, 'js', layer, name), 'utf8')).filter((d) => d.specifier?.startsWith('.'));
      const shipped = dependencies(fs.readFileSync(path.join(pkg, name), 'utf8')).filter((d) => d.specifier?.startsWith('.'));
      assert.equal(shipped.length, source.length, `pkg/node/${name} requires what js/${layer}/${name} does`);
      for (const [k, dep] of shipped.entries()) {
        assert.match(dep.specifier, /^\.\/[^/]+$/, `pkg/node/${name}:${dep.line}: flat`);
        assert.ok(isFile(path.join(pkg, dep.specifier)), `pkg/node/${name}:${dep.line}: require('${dep.specifier}') resolves in pkg/node`);
        const original = path.resolve(root, 'js', layer, source[k].specifier);
        const expected = rel(original).startsWith('js/core/') ? path.basename(BUILT_GLUE.find((g) => path.basename(g, '.js') === path.basename(original, '.cjs'))) : path.basename(original);
        assert.equal(dep.specifier, `./${expected}`, `pkg/node/${name}:${dep.line}: the file js/${layer}/${name} names`);
        checked++;
      }
    }
  }
  assert.ok(checked > 50, `checked ${checked} requires`);
  for (const file of fs.readdirSync(path.join(root, 'js/core'))) assert.ok(!isFile(path.join(pkg, file)), `js/core/${file} is not shipped`);
});

test('every error code the JS host throws is one of the shipped types\' AgentContextErrorCode', () => {
  const union = (text) => {
    const m = /export type AgentContextErrorCode = ([^;]+);/.exec(text);
    assert.ok(m, 'AgentContextErrorCode is declared');
    return [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]);
  };
  const declared = union(fs.readFileSync(path.join(root, 'src/wasm/types.d.ts'), 'utf8'));
  for (const dts of ['pkg/node/agent_context.d.ts', 'pkg/web/agent_context.d.ts']) {
    assert.deepEqual(union(fs.readFileSync(path.join(root, dts), 'utf8')), declared, `${dts} ships src/wasm/types.d.ts's codes`);
  }
  const used = new Map();
  for (const file of filesUnder(path.join(root, 'js'), ['.cjs', '.js', '.mjs'])) {
    for (const t of tokens(fs.readFileSync(file, 'utf8'))) {
      if (t.type === 'str' && /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(t.value) && !NOT_ERROR_CODES.has(t.value)) {
        used.set(t.value, `${rel(file)}:${t.line}`);
      }
    }
  }
  for (const code of ['INVALID_INPUT', 'AGENT_ERROR', 'SESSION_LOCKED']) assert.ok(used.has(code), `the reader finds ${code} in js/`);
  for (const [code, where] of used) assert.ok(declared.includes(code), `${where}: '${code}' is no AgentContextErrorCode (src/error.rs's ErrorCode lists every code)`);
});
