// (b) for the context builder: seed 004 written carefully in plain JS, with
// the same templates and rules as the package (maxMessages is not used here).

export function createBuilder(templates) {
  const t = (name) => templates[name].trimEnd();
  const withTemplate = (lines, template) => (template ? `${lines.join('\n')}\n\n${template}` : lines.join('\n'));

  function toolPolicy(p) {
    const lines = ['## Tool Policy'];
    if (p.allowedCategories?.length) lines.push(`Allowed categories: ${p.allowedCategories.join(', ')}`);
    if (p.deniedCategories?.length) lines.push(`Denied categories: ${p.deniedCategories.join(', ')}`);
    if (p.allowedTools?.length) lines.push(`Allowed tools: ${p.allowedTools.join(', ')}`);
    if (p.deniedTools?.length) lines.push(`Denied tools: ${p.deniedTools.join(', ')}`);
    if (p.customRules?.length) lines.push('', '### Custom Rules', ...p.customRules.map((r) => `- ${r}`));
    return lines.length > 1 ? withTemplate(lines, t('tool-policy.md')) : '';
  }

  function persona(a) {
    if (a.systemPrompt?.trim()) return a.systemPrompt;
    const lines = ['## Agent Persona', `**Name:** ${a.name}`, `**Role:** ${a.role}`];
    if (a.identity) lines.push(`**Identity:** ${a.identity}`);
    if (a.communicationStyle) lines.push(`**Communication Style:** ${a.communicationStyle}`);
    if (a.principles?.length) lines.push('', '**Principles:**', ...a.principles.map((p) => `- ${p}`));
    return lines.join('\n');
  }

  function runDirective(c) {
    const lines = ['## Run Directive', `**Package:** ${c.packageName}`, `**Workflow:** ${c.workflowName}`,
      `**Current Step:** ${c.currentStep.name} (${c.currentStep.id})`, '', '### Step Instruction', c.currentStep.instruction];
    if (c.state?.stepsCompleted?.length) lines.push('', `**Completed Steps:** ${c.state.stepsCompleted.join(' → ')}`);
    if (c.graph?.outgoingEdges?.length) {
      lines.push('', '### Available Transitions');
      for (const e of c.graph.outgoingEdges) lines.push(`- **${e.label}** → ${e.targetNodeId}${e.isDefault ? ' (default)' : ''}`);
    }
    return withTemplate(lines, t('run-directive-protocol.md'));
  }

  function composeSystemPrompt(o) {
    const parts = [`# Mode: ${o.mode.toUpperCase()}`, t(o.mode === 'run' ? 'base-rules-run.md' : 'base-rules-chat.md')];
    if (o.toolPolicy) parts.push(toolPolicy(o.toolPolicy));
    if (o.agent) parts.push(persona(o.agent));
    if (o.mode === 'run' && o.runContext) parts.push(runDirective(o.runContext));
    return parts.filter(Boolean).join('\n\n---\n\n');
  }

  function toOpenAI(m) {
    const out = { role: m.role, content: m.content ?? null };
    if (m.name != null) out.name = m.name;
    const calls = m.toolCalls ?? m.tool_calls;
    if (calls?.length) {
      out.tool_calls = calls.map((c) => {
        const f = c.function ?? c;
        const args = f.arguments === undefined ? '{}' : typeof f.arguments === 'string' ? f.arguments : JSON.stringify(f.arguments);
        return { id: c.id, type: 'function', function: { name: f.name, arguments: args } };
      });
    }
    const callId = m.toolCallId ?? m.tool_call_id;
    if (callId != null) out.tool_call_id = callId;
    return out;
  }

  return function buildLlmMessagesFromConversation(options) {
    const messages = [];
    let filteredCount = 0;
    let systemPromptLength = 0;
    const includeSystemPrompt = options.settings?.includeSystemPrompt !== false;
    if (includeSystemPrompt) {
      const content = composeSystemPrompt(options);
      messages.push({ role: 'system', content });
      systemPromptLength = content.length;
    }
    for (const m of options.messages) {
      if (m.role === 'system') continue;
      if (m.includeInContext === false) {
        filteredCount++;
        continue;
      }
      messages.push(toOpenAI(m));
    }
    return {
      messages,
      metadata: { inputCount: options.messages.length, outputCount: messages.length, filteredCount, systemPromptIncluded: includeSystemPrompt, systemPromptLength },
    };
  };
}
