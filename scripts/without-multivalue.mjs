// Marks `multivalue` as not used in a .wasm's target_features section, in
// place (run by build.sh before wasm-bindgen), so that wasm-bindgen keeps its
// return-pointer ABI instead of returning several values.
//
// Why: V8 can call an export through its generic JS-to-wasm wrapper only when
// the export returns at most one value; for every other signature it compiles
// a wrapper with its optimizing compiler when the module is compiled (Node 20:
// all of them up front). With multi-value returns the main module had 24 such
// signatures, which took ~40% of `new WebAssembly.Module` (2.5 of 6.1 ms of
// CPU, more in wall time when the compile threads wait for each other) — the
// largest part of the package's cold start. Rust enables the feature by
// default on wasm32 targets; the code itself does not depend on it.
//   node scripts/without-multivalue.mjs file.wasm...
import { readFileSync, writeFileSync } from 'node:fs';
import { WasmReader } from './wasm-reader.mjs';

for (const file of process.argv.slice(2)) {
  const bytes = readFileSync(file);
  const reader = new WasmReader(bytes);
  let found = false;
  for (const id of reader.sections()) {
    if (id === 0 && reader.name() === 'target_features') {
      const count = reader.u32();
      for (let i = 0; i < count; i++) {
        const prefix = reader.at;
        reader.byte();
        if (reader.name() === 'multivalue') {
          bytes[prefix] = 0x2d; // '-': disallowed
          found = true;
        }
      }
    }
  }
  if (!found) throw new Error(`${file}: no multivalue entry in its target_features section`);
  writeFileSync(file, bytes);
}
