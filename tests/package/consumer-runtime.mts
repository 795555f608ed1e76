// The runtime names a TypeScript user (ESM, nodenext) reaches for: the error
// class for instanceof, its numbers, and init() as isomorphic code calls it.
import init, { assemble, AgentContextError, type AssemblerInput } from 'agent-context';

await init();
const noTeamTask: AssemblerInput = { contextMessages: [], currentMessage: 'hi' };
try {
  assemble('claude-code', { ...noTeamTask, maxBytes: 1 });
} catch (e) {
  if (e instanceof AgentContextError && e.code === 'BUDGET_EXCEEDED') {
    const needed: number | undefined = e.neededBytes;
    const max: number | undefined = e.maxBytes;
    void [needed, max];
  }
}
const viaDefault: typeof assemble = init.assemble;
export { viaDefault };
