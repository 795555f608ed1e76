// A TypeScript user of the installed package (ESM), checked with tsc --strict.
import {
  assemble, assembleWithReport, buildPrompt, buildLlmMessagesFromConversation, composeSystemPrompt,
  parseAgentOutput, AgentOutputParser, buildCliInvocation, parseRunDirective, selectContextMessages,
  stripPromptMarkers, templates, ContextManager, ClaudeContextAssembler,
  type AssemblerInput, type AssemblerOutput, type AgentContextError, type AgentContextErrorCode,
  type ContextBuildOptions, type ContextBuildResult, type AgentReply, type PromptContextMessage,
  type TrimReport, type RunDirective, type ContentPart, type TemplateName, type AgentOutputEvent,
} from 'agent-context';

const history: PromptContextMessage[] = [{ from: 'kailai', to: 'carol', content: 'Hello' }];
const input: AssemblerInput = { contextMessages: history, currentMessage: 'hi', teamTask: null, maxBytes: 4096 };
const out: AssemblerOutput = assemble('claude-code', input, { logger: console, debug: false });
const flag: string | undefined = out.systemFlag;
const report: TrimReport = assembleWithReport('google-gemini', input).report;
const dropped: number = report.messagesDropped;
const viaSeed002: AssemblerOutput = buildPrompt({ agentType: 'openai-codex', contextMessages: history, message: 'go' });
const picked: PromptContextMessage[] = selectContextMessages(history, { recipient: 'carol', limit: 5 });
const clean: string = stripPromptMarkers('[SYSTEM]\nx');

const options: ContextBuildOptions = { mode: 'run', messages: [{ role: 'user', content: 'x' }], settings: { maxMessages: 10 } };
const built: ContextBuildResult = buildLlmMessagesFromConversation(options, { templates: { 'tool-policy.md': 'mine' } });
const content: string | ContentPart[] | null = built.messages[0].content;
const trimmed: number | undefined = built.metadata.trimmedCount;
const prompt: string = composeSystemPrompt({ mode: 'chat' });
const name: TemplateName = 'base-rules-run.md';
const text: string = templates[name];
const directive: RunDirective | null = parseRunDirective('no directive');
if (directive?.valid) {
  const status: 'complete' | 'blocked' | 'needs_input' = directive.status;
}

const reply: AgentReply = parseAgentOutput('google-gemini', '{"type":"init","session_id":"s"}\n');
const status: 'success' | 'error' | 'incomplete' = reply.status;
const parser = new AgentOutputParser('claude-code');
const events: AgentOutputEvent[] = parser.push(new Uint8Array([123, 125, 10]));
for (const event of parser.push('{"type":"system","subtype":"init","session_id":"s"}\n')) {
  if (event.type === 'text') void (event.text satisfies string);
}
// @ts-expect-error a chunk is a string or bytes
parser.push(42);
const finished: AgentReply = parser.finish();
// Over the Agent Client Protocol: the same reply, thoughts and plan apart.
const acpReply: AgentReply = parseAgentOutput('qwen-code', '', { protocol: 'acp' });
const thoughts: string | undefined = acpReply.thoughts;
const firstStep: string | undefined = acpReply.plan?.[0]?.content;
for (const event of new AgentOutputParser('opencode', { protocol: 'acp' }).push('')) {
  if (event.type === 'thought') void (event.text satisfies string);
  if (event.type === 'plan') void (event.entries satisfies { content: string }[]);
}
// @ts-expect-error the protocol is 'cli' or 'acp'
parseAgentOutput('qwen-code', '', { protocol: 'jsonrpc' });
void [thoughts, firstStep];
const run = buildCliInvocation('google-gemini', { prompt: 'hi' }, { model: 'gemini-2.5-pro' });
const argv: string[] = run.args;

const manager = new ContextManager({ logger: (message: string, level: 'warn' | 'debug') => void [message, level] });
manager.register(new ClaudeContextAssembler());
manager.register({ getAgentType: () => 'mine', assemble: (i: AssemblerInput): AssemblerOutput => ({ prompt: i.currentMessage ?? '' }) });
// @ts-expect-error currentMessage may be missing: not a string as it stands
manager.register({ getAgentType: () => 'bare', assemble: (i: AssemblerInput): AssemblerOutput => ({ prompt: i.currentMessage }) });

try {
  assemble('x', input);
} catch (e) {
  const err = e as AgentContextError;
  const code: AgentContextErrorCode = err.code;
  const named: 'AgentContextError' = err.name;
}

// The types are precise: each of these must be a type error.
// @ts-expect-error contextMessages must be an array of messages
assemble('x', { contextMessages: 'nope', currentMessage: '', teamTask: null });
// @ts-expect-error from must be a string
assemble('x', { contextMessages: [{ from: 1, content: 'c' }], currentMessage: '', teamTask: null });
// @ts-expect-error mode is 'chat' | 'agent' | 'run'
buildLlmMessagesFromConversation({ mode: 'debug', messages: [] });
// @ts-expect-error not a template name
const missing: string = templates['nope.md'];
// @ts-expect-error the report is not on the plain output
const noReport = assemble('x', input).report;

export { flag, dropped, viaSeed002, picked, clean, content, trimmed, prompt, text, status, finished, argv, missing, noReport };
