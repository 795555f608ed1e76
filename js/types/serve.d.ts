
/**
 * What the ACP SDK's server asks of an agent for each accepted connection
 * (`AgentConnector`): an agent app of the SDK (`acp.agent(…)`) is one.
 */
export interface AcpAgentConnector {
  /** `stream`: the connection's `{ readable, writable }` web streams of JSON-RPC messages. */
  connect(stream: { readable: unknown; writable: unknown }, options?: unknown): unknown;
}

/** `serveAgent`'s options (docs/serving.md). */
export interface ServeAgentOptions {
  /**
   * The agent each connection gets: an ACP agent on its stdio, started (in
   * `cd`, in a process group of its own) for each connection and ended with
   * it — `env` is its whole environment, the server's when not given —; or
   * an ACP SDK connector.
   */
  agent: { command: string; args?: string[]; env?: Record<string, string> } | AcpAgentConnector;
  /** The folder every session works in: a client's `cwd` must lie inside it. */
  cd: string;
  /** Where to listen: 127.0.0.1 and port 7700 unless told (port 0: any free port). */
  listen?: { host?: string; port?: number };
  /** The one path both transports answer on; default '/acp'. */
  path?: string;
  /**
   * The bearer token every request carries: at least 16 characters of
   * `A-Z a-z 0-9 . _ ~ -`. Generated (32 random bytes, base64url) when not
   * given, and returned in `token`, nowhere else.
   */
  token?: string;
  /** Browser origins allowed (`scheme://host[:port]`, or 'null'); a request with any other `Origin` is refused. */
  origins?: string[];
  /** More names the `Host` may carry (`name`, any port, or `name:port`): a load balancer's. */
  allowedHosts?: string[];
  /** Lets a client's stdio MCP servers (commands run on this machine) through; default false. */
  allowClientMcp?: boolean;
  /** 16 MiB a message, 64 connections, 120 seconds without traffic or pong, unless told. */
  limits?: { maxMessageBytes?: number; maxConnections?: number; idleTimeout?: number };
  /** Hears refusals and idle closes (never a token or a header's value); warnings go to `warn`. */
  logger?: { info?(message: string): void; warn?(message: string): void } | ((message: string, level: 'info' | 'warn') => void);
}

/** A running server. */
export interface AgentServer {
  /** `http://host:port/path`; the same with `ws://` for WebSocket. */
  readonly url: string;
  /** The bearer token (the one given, or the one generated). */
  readonly token: string;
  /** Stops listening, closes every connection; resolves once every agent it started is gone. */
  close(): Promise<void>;
}

/**
 * Serves an ACP agent over Streamable HTTP and WebSocket on one URL, behind
 * a bearer token, the `Host` and `Origin` checks and limits
 * (docs/serving.md). Node only; needs the packages `@agentclientprotocol/sdk`
 * and `ws`. Rejects with `INVALID_INPUT` naming a bad option.
 */
export function serveAgent(options: ServeAgentOptions): Promise<AgentServer>;
