// Gives every function a .wasm imports one parameter list, in place, and
// rewrites the JS functions wasm-bindgen wrote for those imports to match
// (run by build.sh after wasm-bindgen, before wasm-opt):
//   node scripts/canonical-imports.mjs file_bg.wasm glue.js [glue.js...] [-- next.wasm glue.js...]
//
// Why: when V8 compiles a module it compiles, with its optimizing compiler,
// one wasm-to-JS wrapper per distinct import signature (Node 20: all of them
// up front, in `new WebAssembly.Module`), and when it instantiates it
// compiles one more for every import whose JS function declares a different
// number of parameters than the import has (wasm-bindgen's `handleError`
// imports declare none). The main module had 21 signatures and 7 such
// imports: ~1.2 ms of a ~12 ms cold start on the machine of the benchmark.
//
// How: the canonical parameter list is, for each value type, as many
// parameters of that type as the import that has the most of them
// (externrefs first, then i32, i64, f32, f64). Each import is re-declared
// with that list and its own result (so there is one signature per result
// type), and a wasm function with the import's old name and type calls it:
// the import's k-th parameter of a type goes to that type's k-th slot, the
// other slots get null / 0. wasm-opt then inlines those functions. In the JS
// glue, each import function gets the canonical parameter list, named so
// that `argN` is the same value as before; a `handleError` import passes its
// named arguments in their old order instead of `arguments`.
//
// Every module given must have the same imports in every glue given with it.
// Anything the rewrite does not recognise stops the build.
import binaryen from 'binaryen';
import { readFileSync, writeFileSync } from 'node:fs';

const FEATURES =
  binaryen.Features.MVP |
  binaryen.Features.BulkMemory |
  (binaryen.Features.BulkMemoryOpt ?? 0) |
  (binaryen.Features.CallIndirectOverlong ?? 0) |
  binaryen.Features.MutableGlobals |
  binaryen.Features.SignExt |
  binaryen.Features.NontrappingFPToInt |
  binaryen.Features.ReferenceTypes;
const TYPE_ORDER = [binaryen.externref, binaryen.i32, binaryen.i64, binaryen.f32, binaryen.f64];

/** Rewrites one module; returns { slots, places } for the glue. */
function canonicaliseModule(file) {
  const module = binaryen.readBinary(readFileSync(file));
  module.setFeatures(FEATURES);
  const imports = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    if (info.module) imports.push({ ...info, params: binaryen.expandType(info.params) });
  }
  const most = new Map(TYPE_ORDER.map((type) => [type, 0]));
  for (const { name, params } of imports) {
    const count = new Map();
    for (const type of params) {
      if (!most.has(type)) throw new Error(`${file}: import ${name} has a parameter of a type this script does not place (${type})`);
      count.set(type, (count.get(type) ?? 0) + 1);
    }
    for (const [type, n] of count) most.set(type, Math.max(most.get(type), n));
  }
  const slots = TYPE_ORDER.flatMap((type) => Array(most.get(type)).fill(type));
  const slotType = binaryen.createType(slots);
  const empty = (type) => {
    if (type === binaryen.externref) return module.ref.null(binaryen.externref);
    if (type === binaryen.i32) return module.i32.const(0);
    if (type === binaryen.i64) return module.i64.const(0, 0);
    if (type === binaryen.f32) return module.f32.const(0);
    return module.f64.const(0);
  };
  const places = {};
  for (const { name, module: from, base, params, results } of imports) {
    // The k-th parameter of a type goes to that type's k-th slot.
    const seen = new Map();
    const place = params.map((type) => {
      const k = seen.get(type) ?? 0;
      seen.set(type, k + 1);
      return slots.indexOf(type) + k;
    });
    const operands = slots.map((type, slot) => {
      const param = place.indexOf(slot);
      return param >= 0 ? module.local.get(param, type) : empty(type);
    });
    if (places[base] !== undefined) throw new Error(`${file}: ${base} is imported twice`);
    places[base] = place;
    // The old name becomes a defined function, so calls, the table and
    // exports that name it now reach the canonical import through it.
    module.removeFunction(name);
    module.addFunctionImport(`${name}$canonical`, from, base, slotType, results);
    module.addFunction(name, binaryen.createType(params), results, [], module.call(`${name}$canonical`, operands, results));
  }
  // binaryen's own validator rejects the table's references to the new
  // functions over a typing detail of its IR (exact references) that the
  // binary format does not carry; wasm-opt validates the written module.
  writeFileSync(file, module.emitBinary());
  module.dispose();
  return { slots: slots.length, places };
}

/** Gives each import function of a wasm-bindgen glue the canonical parameters. */
function rewriteGlue(file, { slots, places }) {
  let text = readFileSync(file, 'utf8');
  for (const [base, place] of Object.entries(places)) {
    const names = Array.from({ length: slots }, (_, slot) => {
      const param = place.indexOf(slot);
      return param >= 0 ? `arg${param}` : `_${slot}`;
    }).join(', ');
    const old = place.map((_, param) => `arg${param}`).join(', ');
    const start = `\n        ${base}: function(`;
    const at = text.indexOf(start);
    if (at < 0 || text.indexOf(start, at + 1) >= 0) throw new Error(`${file}: no single import function ${base}`);
    const headEnd = text.indexOf('\n', at + 1);
    const head = text.slice(at, headEnd);
    const caught = `${start}) { return handleError(function (${old}) {`;
    if (head === caught) {
      // function() { return handleError(function (arg0, …) { … }, arguments); },
      const close = '\n        }, arguments); },\n';
      const end = text.indexOf(close, headEnd);
      if (end < 0) throw new Error(`${file}: ${base}: no end of its handleError function`);
      text =
        text.slice(0, at) +
        `${start}${names}) { return handleError(function (${old}) {` +
        text.slice(headEnd, end) +
        `\n        }, [${old}]); },\n` +
        text.slice(end + close.length);
    } else if (head === `${start}${old}) {`) {
      text = text.slice(0, at) + `${start}${names}) {` + text.slice(headEnd);
    } else {
      throw new Error(`${file}: ${base}: an import function of a form this script does not know: ${head.trim()}`);
    }
  }
  writeFileSync(file, text);
}

const groups = [[]];
for (const arg of process.argv.slice(2)) {
  if (arg === '--') groups.push([]);
  else groups.at(-1).push(arg);
}
for (const [wasm, ...glues] of groups) {
  if (!wasm || glues.length === 0) throw new Error('usage: canonical-imports.mjs file_bg.wasm glue.js [glue.js...] [-- next.wasm glue.js...]');
  const layout = canonicaliseModule(wasm);
  for (const glue of glues) rewriteGlue(glue, layout);
  console.log(`${wasm}: ${Object.keys(layout.places).length} imports, each with ${layout.slots} parameters`);
}
