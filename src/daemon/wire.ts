/**
 * The daemon's socket protocol: one JSON object per line, both ways (the CLI is the only client,
 * so no versioning beyond `hello`). A request `{ id, op, … }` gets `{ id, result }` or
 * `{ id, error: { message, code? } }`; while a call runs the daemon may send `{ id, event, data }`
 * (progress, task status) and `{ ask, id, method, params, serverId }` (a server's elicitation
 * for the client's terminal), which the client answers with `{ op: 'answer', ask, result }`.
 */
import type { Socket } from 'node:net';

export type WireMessage = Record<string, unknown>;

/** Lines over a socket: `send` one object, `onmessage` each one received. */
export class LineChannel {
  private buffer = '';
  onmessage: (m: WireMessage) => void = () => {};
  onclose: () => void = () => {};

  constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('close', () => this.onclose());
    socket.on('error', () => {}); // 'close' follows
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      let m: unknown;
      try {
        m = JSON.parse(line);
      } catch {
        this.socket.destroy(); // not our peer
        return;
      }
      if (m !== null && typeof m === 'object' && !Array.isArray(m)) this.onmessage(m as WireMessage);
    }
  }

  send(m: WireMessage): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(`${JSON.stringify(m)}\n`);
  }

  close(): void {
    this.socket.end();
  }
}

/** Methods of a server's client the daemon runs for the CLI (arguments as the McpClient takes them, options last). */
export const CLIENT_METHODS = ['listTools', 'callTool', 'listResources', 'listResourceTemplates', 'readResource', 'listPrompts', 'getPrompt'] as const;
export type ClientMethod = (typeof CLIENT_METHODS)[number];
