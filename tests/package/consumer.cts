// A TypeScript user of the installed package (CommonJS), checked with tsc --strict.
import agentContext = require('agent-context');
const output: agentContext.AssemblerOutput = agentContext.assemble('google-gemini', { contextMessages: [], currentMessage: 'hi', teamTask: null });
export const prompt: string = output.prompt;

// The PostgreSQL store, typed (checked, not run).
export async function sharedStore(url: string): Promise<number> {
  const store: agentContext.PostgresSessionStore = agentContext.openPostgresSessionStore({ connectionString: url });
  const conversations: agentContext.ConversationSummary[] = await store.listConversations({ agentType: 'claude-code', kind: 'conversation' });
  const page = await store.readConversation(conversations[0].conversationId, { after: 0, limit: 10 });
  const stop: () => void = store.watch(conversations[0].conversationId, { after: page.cursor }, (entry) => void entry.seq);
  stop();
  // @ts-expect-error one of connectionString and pool, not both
  agentContext.openPostgresSessionStore({ connectionString: url, pool: { connect: async () => ({}), query: async () => ({}) } });
  await store.close();
  return page.skipped ?? 0;
}
