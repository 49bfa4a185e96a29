/**
 * A raw 2026-07-28 client for tap tests: `tools/call` of the echo tool over node:http, through
 * its own keep-alive agent (one socket: the calls of one client share its connection, those of
 * two clients never do), or a new connection per call. JSON or SSE answers; resolves with the
 * echoed text.
 */
import http from 'node:http';

export const MODERN = '2026-07-28';

export interface EchoClient {
  echo(url: string, text: string, id?: number): Promise<string>;
  close(): void;
}

/** `keepAlive: false`: a new connection for every request, as a client without keep-alive. */
export function echoClient(options: { keepAlive?: boolean } = {}): EchoClient {
  const agent = new http.Agent({ keepAlive: options.keepAlive ?? true, maxSockets: 1 });
  return {
    echo: (url, text, id = 1) =>
      new Promise<string>((resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text }, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
        });
        const req = http.request(url, {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
        });
        req.on('error', reject);
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            try {
              const raw = Buffer.concat(chunks).toString('utf8');
              const sse = String(res.headers['content-type']).includes('text/event-stream');
              const data = sse ? raw.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean) : [raw];
              const m = JSON.parse(data[data.length - 1]) as { result?: { content?: Array<{ text?: string }> } };
              resolve(String(m.result?.content?.[0]?.text));
            } catch (err) {
              reject(err as Error);
            }
          });
        });
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}
