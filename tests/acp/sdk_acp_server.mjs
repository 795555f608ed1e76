#!/usr/bin/env node
// The ACP SDK's own server transport (`experimental/server` through its
// Node adapter, `ws` for WebSocket) in front of a stdio ACP agent: the test
// peer for an agent served elsewhere (openAgentSession's `transport`),
// written from the SDK's documented pieces and nothing of this package.
// Each connection starts the agent (`ACP_SERVER_AGENT`: a JSON array,
// command then arguments) and ends it when the connection ends. Listens on
// 127.0.0.1, on `ACP_SERVER_PORT` (0: any free port), and prints
// `{"port":N}` once it does. The tests stop it by its process group.
import http from 'node:http';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import { WebSocketServer } from 'ws';

const [command, ...args] = JSON.parse(process.env.ACP_SERVER_AGENT);
const agent = {
  connect(stream) {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.on('error', () => {});
    const lines = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    stream.readable
      .pipeTo(lines.writable)
      .catch(() => {})
      .finally(() => child.kill('SIGKILL'));
    lines.readable.pipeTo(stream.writable).catch(() => {});
    return { closed: new Promise((resolve) => child.once('exit', resolve)) };
  },
};
const acp = new AcpServer({ agent });
const server = http.createServer(createNodeHttpHandler(acp));
server.on('upgrade', createNodeWebSocketUpgradeHandler(acp, new WebSocketServer({ noServer: true })));
server.listen(Number(process.env.ACP_SERVER_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
