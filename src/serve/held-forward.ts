/**
 * A 2026-07-28 retry (it carries `requestState`) that lands on a replica that does not hold its
 * call (`serve --http --store`): the replica holding it is looked up in the store and the POST is
 * forwarded there — one HTTP hop to that replica's internal address, carrying the client's own
 * headers plus `Mcp-Forwarded: <proof>`, an HMAC of the replicas' shared secret, so the holder
 * serves it without forwarding again; its answer (JSON or SSE) streams back as it comes.
 *
 * When no live replica holds the call (it was killed, its call expired or ended), the client gets
 * at once a -32602 error saying to send the request again without its state — never a hang.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { RedisServeState } from '../store/redis-sessions.js';
import { refuseModern } from './http-stateless.js';
import { heldCallIdOf } from './input-rounds.js';

export const FORWARDED_HEADER = 'mcp-forwarded';

/** Headers of the client's POST carried over the hop. */
const CARRIED = /^(content-type|accept|authorization|mcp-protocol-version|mcp-method|mcp-name|mcp-param-.*)$/;

export class HeldForwarder {
  private readonly proof: Buffer;

  constructor(
    private readonly state: RedisServeState,
    secret: string,
    private readonly holdsHere: (id: string) => boolean,
  ) {
    this.proof = createHmac('sha256', secret).update('mcpwire serve forwarded retry').digest();
  }

  /** Whether the request came over the hop from another replica (a wrong proof is refused by `check`). */
  forwarded(headers: http.IncomingHttpHeaders): boolean {
    return typeof headers[FORWARDED_HEADER] === 'string';
  }

  /** A forwarded request's proof is the replicas' own. */
  check(headers: http.IncomingHttpHeaders): boolean {
    const given = Buffer.from(String(headers[FORWARDED_HEADER] ?? ''), 'base64url');
    return given.length === this.proof.length && timingSafeEqual(given, this.proof);
  }

  /**
   * Serves the retry elsewhere when another replica holds its call: true when this function
   * answered `res` (forwarded, or the call-again error); false when this replica serves it.
   */
  async route(message: Record<string, unknown>, body: Buffer, headers: http.IncomingHttpHeaders, res: http.ServerResponse): Promise<boolean> {
    const params = message.params as Record<string, unknown> | undefined;
    const id = heldCallIdOf(params?.requestState);
    if (id === undefined || this.holdsHere(id) || this.forwarded(headers)) return false;
    let address: string | undefined;
    try {
      const holder = await this.state.holderOf(id);
      address = holder === undefined || holder === this.state.replica ? undefined : await this.state.replicaAddress(holder);
    } catch {
      address = undefined;
    }
    if (address === undefined) {
      callAgain(res, message.id, 'no gateway replica holds its call any more (the replica holding it is gone, or the call ended or expired)');
      return true;
    }
    await this.forward(address, message, body, headers, res);
    return true;
  }

  private forward(address: string, message: Record<string, unknown>, body: Buffer, headers: http.IncomingHttpHeaders, res: http.ServerResponse): Promise<void> {
    const out: http.OutgoingHttpHeaders = { host: address, [FORWARDED_HEADER]: this.proof.toString('base64url'), 'content-length': body.length };
    for (const [k, v] of Object.entries(headers)) if (CARRIED.test(k) && v !== undefined) out[k] = v;
    const url = new URL(`http://${address}/mcp`);
    return new Promise<void>((resolve) => {
      const req = http.request({ host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: '/mcp', method: 'POST', headers: out }, (up) => {
        const h: http.OutgoingHttpHeaders = {};
        for (const k of ['content-type', 'cache-control']) if (up.headers[k] !== undefined) h[k] = up.headers[k];
        res.writeHead(up.statusCode ?? 502, h);
        up.pipe(res);
        up.on('error', () => res.end());
        up.on('close', () => resolve());
      });
      req.on('error', () => {
        // The holder died between the lookup and the hop (or during it).
        if (!res.headersSent) callAgain(res, message.id, 'the gateway replica holding its call is gone');
        else res.end();
        resolve();
      });
      res.on('close', () => req.destroy());
      req.end(body);
    });
  }
}

function callAgain(res: http.ServerResponse, id: unknown, why: string): void {
  refuseModern(res, id, { code: -32602, message: `Invalid params: requestState can no longer be served: ${why}; send the request again without requestState and inputResponses` });
}
