// The class of every error the library throws (scripts/finish-pkg.mjs puts it
// in both builds). The WebAssembly module makes its errors with this
// prototype (src/wasm/js_error.rs), so `err instanceof AgentContextError`
// holds; `code` is one of the core's list (`ErrorCode`, src/error.rs, whose
// codes the JS host throws too), and BUDGET_EXCEEDED also carries
// `neededBytes` and `maxBytes`.
class AgentContextError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = 'AgentContextError';
    this.code = code;
    if (details != null) {
      if (details.neededBytes !== undefined) this.neededBytes = details.neededBytes;
      if (details.maxBytes !== undefined) this.maxBytes = details.maxBytes;
    }
  }
}
