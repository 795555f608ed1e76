// The playground: three views over the web build of agent-context.
import init, * as lib from '../pkg/web/agent_context.js';

const $ = (id) => document.getElementById(id);
const lines = (text) => text.split('\n').map((s) => s.trim()).filter(Boolean);
const commas = (text) => text.split(',').map((s) => s.trim()).filter(Boolean);

/** Shows a library error (name, code, message) in `box`, or hides the box. */
function showError(box, err) {
  box.hidden = !err;
  box.replaceChildren();
  if (!err) return;
  const code = document.createElement('code');
  code.textContent = err.code ? `${err.code}` : err.name || 'Error';
  box.append(code, `: ${err.message || String(err)}`);
}

/** Parses JSON typed into a textarea, naming the field on failure. */
function parseJsonField(text, field) {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw Object.assign(new Error(`${field} is not valid JSON: ${err.message}`), { code: 'JSON' });
  }
}

/** Writes text into a <pre>, marking every truncation marker. */
function showText(pre, text) {
  pre.replaceChildren();
  pre.classList.toggle('undefined', text === undefined);
  if (text === undefined) {
    pre.textContent = 'undefined';
    return;
  }
  const marker = /\n\[\.\.\. truncated \d+ bytes \.\.\.\]\n/g;
  let last = 0;
  for (const m of text.matchAll(marker)) {
    pre.append(text.slice(last, m.index));
    const mark = document.createElement('mark');
    mark.className = 'marker';
    mark.textContent = m[0];
    pre.append(mark);
    last = m.index + m[0].length;
  }
  pre.append(text.slice(last));
}

const utf8 = new TextEncoder();
const byteLength = (s) => (s === undefined ? 0 : utf8.encode(s).length);

// ---------------------------------------------------------------------------
// Assemble

/** Seed 000 §7.1. */
const EXAMPLE_INPUT = {
  contextMessages: [
    { from: 'kailai', to: 'carol', content: 'Can you design the UI?' },
    { from: 'max', to: 'carol', content: 'I suggest a clean interface' },
  ],
  currentMessage: 'What UI framework should we use?',
  teamTask: 'Design the user dashboard',
  systemInstruction: 'You are Carol, a UI/UX designer',
  instructionFileText: 'Focus on accessibility and user experience',
  maxBytes: 768 * 1024,
};

const REPORT_ROWS = [
  ['messagesDropped', 'context messages dropped (oldest first)'],
  ['contextBytesCut', 'bytes of context dropped'],
  ['messageBytesRemoved', 'bytes cut from the current message'],
  ['instructionFileBytesRemoved', 'bytes cut from the instruction file'],
  ['messagesKept', 'context messages kept'],
  ['bytesBefore', 'bytes before trimming'],
  ['bytesAfter', 'bytes sent'],
  ['maxBytes', 'budget'],
];

function agentType() {
  return $('agent').value === 'custom' ? $('custom-agent').value : $('agent').value;
}

function readAssembleFields() {
  return {
    contextMessages: parseJsonField($('context-messages').value, 'contextMessages'),
    currentMessage: $('current-message').value,
    teamTask: $('team-task').value || null,
    systemInstruction: $('system-instruction').value,
    instructionFileText: $('instruction-file-text').value,
    maxBytes: Number($('budget-number').value),
  };
}

function writeAssembleFields(input) {
  $('context-messages').value = JSON.stringify(input.contextMessages ?? [], null, 2);
  $('current-message').value = input.currentMessage ?? '';
  $('team-task').value = input.teamTask ?? '';
  $('system-instruction').value = input.systemInstruction ?? '';
  $('instruction-file-text').value = input.instructionFileText ?? '';
  $('budget-number').value = input.maxBytes ?? 786432;
}

/** The untrimmed size sets the slider's range, so the whole trimming range is a drag away. */
function fitSlider(input) {
  let full;
  try {
    full = lib.assembleWithReport(agentType(), { ...input, maxBytes: Number.MAX_SAFE_INTEGER }, { logger: () => {} }).report.bytesAfter;
  } catch {
    return;
  }
  const slider = $('budget');
  slider.max = String(Math.max(64, Math.ceil(full * 1.25)));
  slider.value = String(Math.min(Number(slider.max), input.maxBytes));
}

function renderAssemble({ fromJson = false } = {}) {
  const box = $('assemble-error');
  let input;
  try {
    input = fromJson ? parseJsonField($('input-json').value, 'AssemblerInput') : readAssembleFields();
  } catch (err) {
    return showError(box, err);
  }
  if (fromJson) writeAssembleFields(input);
  else $('input-json').value = JSON.stringify(input, null, 2);
  fitSlider(input);
  const warnings = [];
  try {
    const { output, report } = lib.assembleWithReport(agentType(), input, { logger: (m) => warnings.push(m) });
    showError(box, null);
    showText($('prompt'), output.prompt);
    showText($('system-flag'), output.systemFlag);
    const used = byteLength(output.prompt) + byteLength(output.systemFlag);
    const budget = report.maxBytes;
    $('meter-text').textContent = `${used} / ${budget} bytes`;
    $('meter-fill').style.width = `${budget ? Math.min(100, (100 * used) / budget) : 100}%`;
    $('meter-fill').classList.toggle('full', report.bytesBefore > report.bytesAfter);
    const body = $('report').tBodies[0];
    body.replaceChildren();
    for (const [key, label] of REPORT_ROWS) {
      const row = body.insertRow();
      row.dataset.key = key;
      const isCut = ['messagesDropped', 'contextBytesCut', 'messageBytesRemoved', 'instructionFileBytesRemoved'].includes(key);
      row.classList.toggle('hit', isCut && report[key] > 0);
      row.insertCell().textContent = label;
      row.insertCell().textContent = String(report[key]);
    }
    if (warnings.length) {
      $('status').textContent = warnings.join('\n');
    } else {
      $('status').textContent = 'Ready.';
    }
  } catch (err) {
    showError(box, err);
  }
}

function setupAssemble() {
  writeAssembleFields(EXAMPLE_INPUT);
  $('agent').addEventListener('change', () => {
    $('custom-agent-label').hidden = $('agent').value !== 'custom';
    renderAssemble();
  });
  for (const id of ['custom-agent', 'system-instruction', 'instruction-file-text', 'team-task', 'current-message', 'context-messages', 'budget-number']) {
    $(id).addEventListener('input', () => renderAssemble());
  }
  $('budget').addEventListener('input', () => {
    $('budget-number').value = $('budget').value;
    renderAssemble();
  });
  $('input-json').addEventListener('input', () => renderAssemble({ fromJson: true }));
  renderAssemble();
}

// ---------------------------------------------------------------------------
// Context

const EXAMPLE_CONVERSATION = [
  { id: 'm1', role: 'user', content: 'Draft the dashboard layout, please.' },
  { id: 'm2', role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'docs/requirements.md' } }] },
  { id: 'm3', role: 'tool', toolCallId: 'call_1', name: 'read_file', content: '# Requirements\n- dark mode\n- one chart per metric' },
  { id: 'm4', role: 'assistant', content: 'I have the requirements; drafting the layout now.' },
  { id: 'm5', role: 'user', content: '(private note)', includeInContext: false },
];

function writeContextFields() {
  $('agent-name').value = 'Carol';
  $('agent-role').value = 'UI/UX designer';
  $('agent-identity').value = 'Ten years of dashboards';
  $('agent-style').value = 'Short and concrete';
  $('agent-principles').value = 'Accessibility first\nReuse existing components';
  $('allowed-categories').value = 'fs, project';
  $('denied-categories').value = 'network';
  $('allowed-tools').value = 'read_file, write_file';
  $('denied-tools').value = 'delete_file';
  $('custom-rules').value = 'Ask before writing outside docs/';
  $('run-package').value = 'design-kit';
  $('run-workflow').value = 'dashboard-design';
  $('run-step-id').value = 'draft-layout';
  $('run-step-name').value = 'Draft the layout';
  $('run-instruction').value = 'Write docs/layout.md with the grid, the breakpoints and the chart placement.';
  $('run-completed').value = 'gather-requirements, pick-framework';
  $('run-edges').value = JSON.stringify([{ label: 'approved', targetNodeId: 'review', isDefault: true }, { label: 'needs-research', targetNodeId: 'research' }], null, 2);
  $('conversation').value = JSON.stringify(EXAMPLE_CONVERSATION, null, 2);
}

function readContextOptions() {
  const options = { mode: $('mode').value, messages: parseJsonField($('conversation').value, 'Conversation') };
  if ($('use-agent').checked) {
    options.agent = {
      id: $('agent-name').value.toLowerCase() || 'agent',
      name: $('agent-name').value,
      role: $('agent-role').value,
      identity: $('agent-identity').value || undefined,
      communicationStyle: $('agent-style').value || undefined,
      principles: lines($('agent-principles').value),
      systemPrompt: $('agent-system-prompt').value || undefined,
    };
  }
  if ($('use-policy').checked) {
    options.toolPolicy = {
      allowedCategories: commas($('allowed-categories').value),
      deniedCategories: commas($('denied-categories').value),
      allowedTools: commas($('allowed-tools').value),
      deniedTools: commas($('denied-tools').value),
      customRules: lines($('custom-rules').value),
    };
  }
  if ($('use-run').checked) {
    options.runContext = {
      packageName: $('run-package').value,
      workflowName: $('run-workflow').value,
      currentStep: { id: $('run-step-id').value, name: $('run-step-name').value, instruction: $('run-instruction').value },
      state: { stepsCompleted: commas($('run-completed').value) },
      graph: { outgoingEdges: parseJsonField($('run-edges').value || '[]', 'outgoingEdges') },
    };
  }
  const settings = { includeSystemPrompt: $('include-system').checked };
  if ($('max-messages').value !== '') settings.maxMessages = Number($('max-messages').value);
  options.settings = settings;
  return options;
}

function renderContext() {
  const box = $('context-error');
  try {
    const options = readContextOptions();
    const result = lib.buildLlmMessagesFromConversation(options);
    showError(box, null);
    showText($('system-prompt'), lib.composeSystemPrompt(options));
    $('metadata').textContent = JSON.stringify(result.metadata, null, 2);
    $('messages-json').textContent = JSON.stringify(result.messages, null, 2);
  } catch (err) {
    showError(box, err);
  }
}

function setupContext() {
  writeContextFields();
  for (const el of document.querySelectorAll('#view-context input, #view-context textarea, #view-context select')) {
    el.addEventListener('input', renderContext);
    el.addEventListener('change', renderContext);
  }
  renderContext();
}

// ---------------------------------------------------------------------------
// Parse

const SAMPLE_STREAMS = {
  'google-gemini': [
    '[WARN] Skipping unreadable directory: /root/.cache (a non-JSON line)',
    { type: 'init', timestamp: '2026-11-22T10:00:00.000Z', session_id: 'a1b2c3d4-gemini', model: 'gemini-3-pro-preview' },
    { type: 'message', timestamp: '2026-11-22T10:00:00.100Z', role: 'user', content: 'Your task:\nWhat UI framework should we use?' },
    { type: 'message', timestamp: '2026-11-22T10:00:01.000Z', role: 'assistant', content: 'Use **React** with ', delta: true },
    { type: 'message', timestamp: '2026-11-22T10:00:01.200Z', role: 'assistant', content: 'the team\u2019s component library.', delta: true },
    { type: 'result', timestamp: '2026-11-22T10:00:01.500Z', status: 'success', stats: { total_tokens: 123, input_tokens: 100, output_tokens: 23, duration_ms: 1500, tool_calls: 0 } },
  ],
  'claude-code': [
    { type: 'system', subtype: 'init', session_id: '9f1e-claude', model: 'claude-sonnet', tools: [] },
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Use React with the team\u2019s component library.' }] }, session_id: '9f1e-claude' },
    { type: 'result', subtype: 'success', is_error: false, result: 'Use React with the team\u2019s component library.', session_id: '9f1e-claude', num_turns: 1, usage: { input_tokens: 100, output_tokens: 12 } },
  ],
  'openai-codex': [
    { type: 'thread.started', thread_id: '0199-codex-thread' },
    { type: 'turn.started' },
    { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: 'Use React with the team\u2019s component library.' } },
    { type: 'turn.completed', usage: { input_tokens: 100, cached_input_tokens: 0, output_tokens: 12 } },
  ],
};

function loadSample() {
  const sample = SAMPLE_STREAMS[$('parse-agent').value] ?? [];
  $('stream').value = sample.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
  renderParse();
}

function renderParse() {
  const box = $('parse-error');
  if (typeof lib.parseAgentOutput !== 'function') {
    return showError(box, { name: 'Unavailable', message: 'parseAgentOutput is not in this build of agent-context.' });
  }
  try {
    const result = lib.parseAgentOutput($('parse-agent').value, $('stream').value);
    showError(box, null);
    $('parse-status').textContent = result.status;
    $('parse-session').textContent = result.sessionId ?? '—';
    showText($('parse-text'), result.text);
    const list = $('parse-errors');
    list.replaceChildren();
    for (const e of result.errors ?? []) {
      const li = document.createElement('li');
      li.textContent = typeof e === 'string' ? e : `${e.fatal ? 'fatal' : 'note'} (${e.source}${e.code ? `, ${e.code}` : ''}): ${e.message}`;
      list.append(li);
    }
    $('parse-json').textContent = JSON.stringify(result, null, 2);
  } catch (err) {
    showError(box, err);
  }
}

function setupParse() {
  $('parse-agent').addEventListener('change', loadSample);
  $('load-sample').addEventListener('click', loadSample);
  $('stream').addEventListener('input', renderParse);
  loadSample();
}

// ---------------------------------------------------------------------------

function setupTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  for (const tab of tabs) {
    tab.addEventListener('click', () => {
      for (const t of tabs) {
        const selected = t === tab;
        t.setAttribute('aria-selected', String(selected));
        $(t.getAttribute('aria-controls')).hidden = !selected;
      }
    });
  }
}

/** One option per known agent (the library's registry) in both agent lists. */
function fillAgentLists() {
  const custom = $('agent').querySelector('option[value="custom"]');
  for (const agent of lib.knownAgents()) {
    const option = new Option(agent.agentType, agent.agentType, false, agent.agentType === 'google-gemini');
    $('agent').insertBefore(option, custom);
    $('parse-agent').append(new Option(`${agent.agentType} (${agent.name})`, agent.agentType));
  }
}

try {
  await init();
  fillAgentLists();
  setupTabs();
  setupAssemble();
  setupContext();
  setupParse();
  document.body.dataset.ready = 'true';
} catch (err) {
  $('status').textContent = `Could not start: ${err.message}`;
  $('status').classList.add('error');
}
