// The built modules' imports share one parameter list (scripts/canonical-imports.mjs):
// V8 compiles a wrapper per distinct import signature when it compiles a
// module, and one more per import whose JS function declares another number
// of parameters when it instantiates it (cold start).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url);

// The function types of a module's function imports, from its type and import sections.
function importSignatures(bytes) {
  let at = 8;
  const u32 = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const valueTypes = () => Array.from({ length: u32() }, () => bytes[at++]);
  const types = [];
  const imports = [];
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = u32();
    const end = at + size;
    if (id === 1) {
      for (let n = u32(); n > 0; n--) {
        assert.equal(bytes[at++], 0x60, 'a function type');
        types.push({ params: valueTypes(), results: valueTypes() });
      }
    } else if (id === 2) {
      for (let n = u32(); n > 0; n--) {
        const name = () => {
          const length = u32();
          const text = Buffer.from(bytes.subarray(at, at + length)).toString('utf8');
          at += length;
          return text;
        };
        const module = name();
        const field = name();
        const kind = bytes[at++];
        if (kind === 0) imports.push({ module, field, ...types[u32()] });
        else if (kind === 1) (at++, (bytes[at++] & 1 ? (u32(), u32()) : u32())); // table: type, limits
        else if (kind === 2) (bytes[at++] & 1 ? (u32(), u32()) : u32()); // memory: limits
        else if (kind === 3) at += 2; // global: type, mutability
        else throw new Error(`import kind ${kind}`);
      }
    }
    at = end;
  }
  return imports;
}

const MODULES = [
  ['pkg/web/agent_context_bg.wasm', ['pkg/node/agent_context.js', 'pkg/web/agent_context.js']],
  ['pkg/node/agent_context_gemini_tool_bg.wasm', ['pkg/node/agent_context_gemini_tool.js']],
];

for (const [wasm, glues] of MODULES) {
  test(`${wasm}: every function import has the same parameters, and its JS function declares them all`, () => {
    const imports = importSignatures(readFileSync(new URL(wasm, root)));
    assert.ok(imports.length > 20, `${imports.length} imports`);
    const params = new Set(imports.map((i) => i.params.join(',')));
    assert.equal(params.size, 1, `parameter lists: ${[...params].join(' | ')}`);
    const signatures = new Set(imports.map((i) => `${i.params}->${i.results}`));
    assert.ok(signatures.size <= 3, `${signatures.size} signatures: one per result type at most`);
    const count = imports[0].params.length;
    for (const glue of glues) {
      const text = readFileSync(new URL(glue, root), 'utf8');
      for (const { field } of imports) {
        const head = new RegExp(`\\n        ${field}: function\\(([^)]*)\\)`).exec(text);
        assert.ok(head, `${glue}: ${field}`);
        assert.equal(head[1].split(',').length, count, `${glue}: ${field}(${head[1]})`);
      }
    }
  });
}
