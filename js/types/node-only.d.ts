
// ---- Node only: the command line that runs an agent's CLI ----
// From js/types/node-only.d.ts, appended to the Node build's declarations by
// scripts/finish-pkg.mjs: it runs in the Node-only module
// (agent_context_node_bg.wasm, compiled on its first call), which
// keeps it out of the module browsers download. Its types are declared in
// both builds.

/**
 * The command line that runs `agentType`'s CLI on an assembled prompt, which
 * always travels on stdin. Throws `AgentContextError` (`INVALID_INPUT`).
 */
export function buildCliInvocation(
  agentType: KnownAgentType,
  assemblerOutput: AssemblerOutput,
  options?: CliInvocationOptions,
): CliInvocation;
