// Finds and reads a .wasm file of the Node build (scripts/finish-pkg.mjs puts
// this in place of wasm-bindgen's `readFileSync(`${__dirname}/…`)`, with the
// size of the file it built). The places, in order:
//   1. $AGENT_CONTEXT_WASM_DIR, when set (a packaged app's unpacked folder);
//   2. the package's own folders: this file's folder, then ../web (the one
//      copy of agent_context_bg.wasm both builds share);
//   3. the folder of the file this code runs from: a bundle (esbuild,
//      electron-vite, CommonJS or ESM output) next to which the .wasm was
//      copied, as the README says;
//   4. the installed package as seen from that file (`agent-context/<file>`
//      through the package's exports): a bundle that still sits in a project
//      with node_modules.
// A file found nowhere is an error naming it and every place looked in.
function __agentContextReadWasm(file, size) {
  'use strict';
  const fs =
    typeof process === 'object' && typeof process.getBuiltinModule === 'function'
      ? process.getBuiltinModule('fs')
      : require('fs');
  const join = (dir, name) => (dir.endsWith('/') || dir.endsWith('\\') ? dir + name : `${dir}/${name}`);
  const tried = [];
  const read = (candidate) => {
    if (tried.includes(candidate)) return undefined;
    tried.push(candidate);
    let fd;
    try {
      // A missing file answered without an exception (making one, with its
      // stack, is most of the cost of a failed look on a first require).
      if (!fs.existsSync(candidate)) return undefined;
      fd = fs.openSync(candidate, 'r');
      if (size > 0) {
        // One read of the size the build wrote (and one byte more, to see a
        // longer file): no stat, no growing buffer; ~0.35 ms less than
        // readFileSync on a first require. Any other size is read whole.
        const bytes = new Uint8Array(size + 1);
        if (fs.readSync(fd, bytes, 0, size + 1, 0) === size) return bytes.subarray(0, size);
      }
      return fs.readFileSync(fd);
    } catch (err) {
      if (err && err.code !== 'ENOENT' && err.code !== 'ENOTDIR' && err.code !== 'EISDIR') throw err;
      return undefined;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  };
  const env = typeof process === 'object' && process.env ? process.env.AGENT_CONTEXT_WASM_DIR : undefined;
  const dirs = [];
  if (env) dirs.push(env);
  if (typeof __dirname === 'string') dirs.push(__dirname, join(__dirname, '../web'));
  for (const dir of dirs) {
    const bytes = read(join(dir, file));
    if (bytes !== undefined) return bytes;
  }
  // Only when the package's own folders do not have it (a bundle): where
  // this code runs from, then the installed package as seen from there.
  const running = __agentContextRunningDir();
  if (running !== undefined) {
    const bytes = read(join(running, file));
    if (bytes !== undefined) return bytes;
    let resolved;
    try {
      const mod = typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('module') : require('module');
      resolved = mod.createRequire(join(running, 'noop.js')).resolve(`agent-context/${file}`);
    } catch {
      // no installed package there: the other places are all there is
    }
    if (resolved !== undefined) {
      const found = read(resolved);
      if (found !== undefined) return found;
    }
  }
  const err = new Error(
    `agent-context: cannot find ${file}; looked in: ${tried.join(', ')}. ` +
      `Copy node_modules/agent-context/${file === 'agent_context_bg.wasm' ? 'pkg/web' : 'pkg/node'}/${file} next to your bundle, ` +
      'or set AGENT_CONTEXT_WASM_DIR to the folder that holds it.',
  );
  err.code = 'ENOENT';
  throw err;
}

// The folder of the file this code runs from, read from the stack trace
// (the one way a CommonJS module bundled into ESM output can learn it).
function __agentContextRunningDir() {
  'use strict';
  const stack = String(new Error().stack || '');
  const match = /(?:\(|at )(file:\/\/\/?[^\s)]+?|\/[^\s)]+?|[A-Za-z]:\\[^\s)]+?):\d+:\d+\)?/.exec(stack);
  if (!match) return undefined;
  let file = match[1];
  if (file.startsWith('file://')) {
    try {
      file = decodeURIComponent(new URL(file).pathname);
      if (/^\/[A-Za-z]:\//.test(file)) file = file.slice(1);
    } catch {
      return undefined;
    }
  }
  const cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return cut > 0 ? file.slice(0, cut) : undefined;
}
