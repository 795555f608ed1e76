#!/usr/bin/env node
// A tiny MCP server for the live tests, with one tool, `record_note(text)`,
// that appends every call to a record file (one JSON object a line:
// `{ transport, tool, arguments, headers? }`) and answers `Noted: <text>`.
//
//   node note_server.cjs                      stdio; the record file is $MCP_NOTE_RECORD
//   node note_server.cjs --http <record>      streamable HTTP on 127.0.0.1 (POST /mcp,
//                                             plain JSON answers); prints {"port":N} first
//
// NOTE_INITIALIZE_DELAY_MS (HTTP): how long the answer to `initialize`
// waits, as a server slow to start would.
//
// Plain JSON-RPC 2.0, no SDK: newline-delimited messages on stdio, one
// message (or batch) per POST over HTTP. Both modes exit by themselves
// after LIFETIME_MS; the HTTP one also on SIGTERM (the tests stop it by PID).
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const readline = require('node:readline');

const LIFETIME_MS = 240_000;
const MAX_BODY_BYTES = 1024 * 1024;
const INITIALIZE_DELAY_MS = Number(process.env.NOTE_INITIALIZE_DELAY_MS || 0);
const PROTOCOLS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const TOOL = {
  name: 'record_note',
  description: 'Records a short note for the team. Call it with the text of the note.',
  inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'The note' } }, required: ['text'] },
};

const httpMode = process.argv[2] === '--http';
const recordPath = httpMode ? process.argv[3] : process.env.MCP_NOTE_RECORD;
if (!recordPath) {
  process.stderr.write('usage: note_server.cjs (with MCP_NOTE_RECORD set) | note_server.cjs --http <record-file>\n');
  process.exit(2);
}
let notes = 0;

/** The answer to one JSON-RPC message, or null for a notification. */
function answer(message, headers) {
  if (!message || typeof message !== 'object' || message.id === undefined || message.id === null) return null;
  const reply = (result) => ({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize': {
      const asked = message.params?.protocolVersion;
      return reply({
        protocolVersion: PROTOCOLS.includes(asked) ? asked : PROTOCOLS[0],
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'note-server', version: '1.0.0' },
      });
    }
    case 'ping':
      return reply({});
    case 'tools/list':
      return reply({ tools: [TOOL] });
    case 'tools/call': {
      const { name, arguments: args } = message.params ?? {};
      if (name !== TOOL.name) return { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `unknown tool: ${name}` } };
      notes += 1;
      const record = { transport: httpMode ? 'http' : 'stdio', tool: name, arguments: args ?? {} };
      if (headers) record.headers = headers;
      fs.appendFileSync(recordPath, `${JSON.stringify(record)}\n`);
      return reply({ content: [{ type: 'text', text: `Noted: ${args?.text ?? ''} (note ${notes})` }], isError: false });
    }
    case 'resources/list':
      return reply({ resources: [] });
    case 'resources/templates/list':
      return reply({ resourceTemplates: [] });
    case 'prompts/list':
      return reply({ prompts: [] });
    default:
      return { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `method not found: ${message.method}` } };
  }
}

function answerAll(body, headers) {
  if (Array.isArray(body)) {
    const out = body.map((m) => answer(m, headers)).filter(Boolean);
    return out.length ? out : null;
  }
  return answer(body, headers);
}

if (httpMode) {
  const server = http.createServer((req, res) => {
    if (!req.url.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST') {
      // No server-initiated stream.
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
      return;
    }
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
        return;
      }
      const headers = { 'x-note-token': req.headers['x-note-token'] ?? null };
      const out = answerAll(body, headers);
      if (out === null) {
        res.writeHead(202).end();
        return;
      }
      const initializing = [body].flat().some((m) => m?.method === 'initialize');
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'note-session-1' });
        res.end(JSON.stringify(out));
      }, initializing ? INITIALIZE_DELAY_MS : 0);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    let body;
    try {
      body = JSON.parse(line);
    } catch {
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })}\n`);
      return;
    }
    const out = answerAll(body, null);
    if (out !== null) process.stdout.write(`${JSON.stringify(out)}\n`);
  });
  // The client closing stdin ends the server.
  lines.on('close', () => process.exit(0));
}
setTimeout(() => process.exit(0), LIFETIME_MS).unref();
