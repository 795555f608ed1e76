// Everything the README shows a Node user, imported from 'agent-context' by a
// TypeScript user: checked with tsc --strict under moduleResolution "nodenext"
// and under "bundler" (an Electron main process built with electron-vite, a
// Node script bundled with esbuild), which must find the same names.
import init, {
  assemble, assembleWithReport, buildPrompt, selectContextMessages, stripPromptMarkers,
  ClaudeContextAssembler, CodexContextAssembler, GeminiContextAssembler, PlainTextAssembler, ContextManager,
  buildLlmMessagesFromConversation, composeSystemPrompt, toOpenAIMessage, parseRunDirective, templates,
  knownAgents, parseAgentOutput, AgentOutputParser, buildCliInvocation, runAgent, resolveAgentCommand,
  mergeAgentOutputFile, runGeminiTool, geminiToolDefinition, composeGeminiToolPrompt, readEngineeringContext,
  formatEngineeringContext, sampleInput, AgentContextError, initSync, AgentTeam, planTeamTurn,
  openAgentSession, openAgent, type AgentSession, type AgentProcess, serveAgent, type AgentServer,
  type AssemblerInput, type TeamTurn, type AgentTeamJSON, type AgentRun, type AgentOutputEvent, type CliInvocation,
} from 'agent-context';

await init();
initSync;

// currentMessage may be missing, as the runtime allows.
const noMessage: AssemblerInput = { contextMessages: [] };
const { prompt, systemFlag } = assemble('claude-code', { ...noMessage, teamTask: 'Design the user dashboard', maxBytes: 768 * 1024 });
const { output, report } = assembleWithReport('openai-codex', sampleInput());
const run: CliInvocation = buildCliInvocation('claude-code', output, { model: 'sonnet', sandbox: 'workspace-write', systemPromptFile: '/tmp/s.md' });
const argv: string[] = run.args;
const stdin: string = run.stdin;
const parser = new AgentOutputParser('claude-code');
const events: AgentOutputEvent[] = parser.push(new Uint8Array(0));
for (const event of events) if (event.type === 'text') void (event.text satisfies string);
const reply = parseAgentOutput('claude-code', '');
const sessionId: string | null | undefined = reply.sessionId;
const ran: Promise<AgentRun> = runAgent('claude-code', { contextMessages: [], currentMessage: 'hi' }, { cd: '/tmp' });
const found = resolveAgentCommand('claude-code');
// Pointed at an endpoint; any ACP agent by its definition.
const pointed: Promise<AgentRun> = runAgent('claude-code', { prompt: 'hi' }, { cd: '/tmp', endpoint: { baseUrl: 'http://127.0.0.1:8080', apiKey: 'k', model: 'm', headers: { 'X-Team': 'blue' } } });
const defined: Promise<AgentRun> = runAgent({ id: 'my-agent', name: 'My agent', command: 'my-agent', args: ['--acp'] }, { prompt: 'hi' }, { cd: '/tmp' });

// Sessions: one kept open, and a process of several.
const session: Promise<AgentSession> = openAgentSession('claude-code', { cd: '/tmp', systemPrompt: 'Be brief', idleClose: 60 });
void session.then(async (s) => {
  const t = await s.prompt('hi', { onEvent: (e) => void e });
  void [t.stopReason, t.sessionId, s.modes, s.configOptions, s.commands, s.persistent];
  await s.setModel('sonnet');
  await s.close();
});
const process_: Promise<AgentProcess> = openAgent('opencode', { cd: '/tmp' });
void process_.then(async (p) => {
  const [a, b] = [await p.newSession(), await p.newSession({ cd: '/tmp' })];
  void [a.sessionId, b.sessionId, p.capabilities, p.authMethods];
  await p.close();
});

// An agent served over HTTP and WebSocket, and joined (an agent definition without a command).
const served: Promise<AgentServer> = serveAgent({ agent: { command: 'claude-agent-acp' }, cd: '/tmp', listen: { port: 0 }, origins: ['http://localhost:5173'], limits: { idleTimeout: 60 } });
void served.then(async (server) => {
  const joined = await openAgentSession({ id: 'remote', name: 'Remote agent' }, { cd: '/srv', transport: { url: server.url, headers: { Authorization: `Bearer ${server.token}` } }, clientFs: false });
  await joined.close();
  await server.close();
});

try {
  assemble('claude-code', { contextMessages: [], currentMessage: 'hi', maxBytes: 50 });
} catch (err) {
  if (err instanceof AgentContextError && err.code === 'BUDGET_EXCEEDED') void [err.neededBytes, err.maxBytes];
}

// A team: members, a turn, its context, the stored data and the core's plan.
const team = new AgentTeam({
  teamTask: 'Add CSV export', cd: '/tmp', members: [
    { id: 'carol', agentType: 'claude-code', systemInstruction: 'You design the UI', endpoint: { baseUrl: 'http://127.0.0.1:4000', model: 'm' } },
    { id: 'dev', agentType: 'openai-codex', protocol: 'cli', endpoint: null, env: { HOME: '/tmp' }, model: 'gpt-5.5', command: 'codex' },
  ],
});
team.post({ from: 'kailai', to: 'carol', content: 'Sketch it' });
const turn: Promise<TeamTurn> = team.ask('carol', { message: 'Go', replyTo: 'kailai' });
void turn.then((t) => [t.context.kind satisfies 'full' | 'delta', t.context.bytes, t.context.dropped, t.reply.text]);
const stored: AgentTeamJSON = team.toJSON();
const again: AgentTeam = AgentTeam.fromJSON(JSON.stringify(stored), { cd: '/tmp', members: [{ id: 'carol', endpoint: { baseUrl: 'http://127.0.0.1:4000' } }] });
void [stored.version satisfies 2, stored.members[0].sessionOptions, again.members[0].mark];
void again.close();
const plan = planTeamTurn({ teamTask: 'Add CSV export', transcript: team.transcript, member: { id: 'carol', agentType: 'claude-code' }, mark: null });
void [plan.kind, plan.output.prompt, plan.mark, plan.sent, plan.dropped, plan.report.messagesDropped];

// The custom assembler a user registers reads a message that may be missing.
new ContextManager().register({ getAgentType: () => 'mine', assemble: (i: AssemblerInput) => ({ prompt: i.currentMessage ?? '' }) });

export {
  prompt, systemFlag, report, argv, stdin, sessionId, ran, found, pointed, defined, buildPrompt, selectContextMessages, stripPromptMarkers,
  ClaudeContextAssembler, CodexContextAssembler, GeminiContextAssembler, PlainTextAssembler,
  buildLlmMessagesFromConversation, composeSystemPrompt, toOpenAIMessage, parseRunDirective, templates, knownAgents,
  mergeAgentOutputFile, runGeminiTool, geminiToolDefinition, composeGeminiToolPrompt, readEngineeringContext,
  formatEngineeringContext,
};
