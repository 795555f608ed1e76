// The built modules' imports share one parameter list (scripts/canonical-imports.mjs):
// V8 compiles a wrapper per distinct import signature when it compiles a
// module, and one more per import whose JS function declares another number
// of parameters when it instantiates it (cold start).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { WasmReader } from '../../scripts/wasm-reader.mjs';

const root = new URL('../../', import.meta.url);

// The function types of a module's function imports, from its type and import sections.
function importSignatures(bytes) {
  const reader = new WasmReader(bytes);
  const valueTypes = () => Array.from({ length: reader.u32() }, () => reader.byte());
  const limits = () => (reader.byte() & 1 ? (reader.u32(), reader.u32()) : reader.u32());
  const types = [];
  const imports = [];
  for (const id of reader.sections()) {
    if (id === 1) {
      for (let n = reader.u32(); n > 0; n--) {
        assert.equal(reader.byte(), 0x60, 'a function type');
        types.push({ params: valueTypes(), results: valueTypes() });
      }
    } else if (id === 2) {
      for (let n = reader.u32(); n > 0; n--) {
        const module = reader.name();
        const field = reader.name();
        const kind = reader.byte();
        if (kind === 0) imports.push({ module, field, ...types[reader.u32()] });
        else if (kind === 1) (reader.byte(), limits()); // table: element type, limits
        else if (kind === 2) limits(); // memory
        else if (kind === 3) (reader.byte(), reader.byte()); // global: type, mutability
        else throw new Error(`import kind ${kind}`);
      }
    }
  }
  return imports;
}

const MODULES = [
  ['pkg/web/agent_context_bg.wasm', ['pkg/node/agent_context.js', 'pkg/web/agent_context.js']],
  ['pkg/node/agent_context_node_bg.wasm', ['pkg/node/agent_context_node.js']],
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
