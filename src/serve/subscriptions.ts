/**
 * `subscriptions/listen` at the gateway (2026-07-28, basic/patterns/subscriptions): a modern
 * client's long-lived request for list changes, in place of the handshake era's unsolicited
 * `notifications/{tools,resources,prompts}/list_changed`.
 *
 * - The first message of a subscription is `notifications/subscriptions/acknowledged` with the
 *   subset honoured (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`; resource
 *   subscriptions are not offered) and `_meta["io.modelcontextprotocol/subscriptionId"]` = the
 *   listen request's id (basic.patterns.subscriptions#2); every later notification carries it.
 * - Only what was asked for is sent (basic.patterns.subscriptions#1).
 * - It ends when the client cancels it (stdio: `notifications/cancelled`; HTTP: closing the
 *   stream) — no answer then — or when the gateway closes: a `complete` answer (#5, #6).
 */
import type { IncomingRequestContext } from '../protocol/incoming.js';
import type { RequestId } from '../jsonrpc/types.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const KINDS = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' } as const;
export type ListKind = keyof typeof KINDS;

interface Open {
  kinds: Set<ListKind>;
  end(): void;
}

export class Subscriptions {
  private readonly open = new Map<RequestId, Open>();

  constructor(private readonly notify: (method: string, params: Record<string, unknown>) => Promise<void>) {}

  get size(): number {
    return this.open.size;
  }

  /** Serves one `subscriptions/listen` request until it ends (see the module comment). */
  async listen(params: Record<string, unknown> | undefined, ctx: IncomingRequestContext): Promise<Record<string, unknown>> {
    const asked = (params?.notifications ?? {}) as Record<string, unknown>;
    const kinds = new Set<ListKind>();
    const honoured: Record<string, boolean> = {};
    for (const [kind, field] of Object.entries(KINDS) as [ListKind, string][]) {
      if (asked[field] !== true) continue;
      kinds.add(kind);
      honoured[field] = true;
    }
    const meta = { [SUBSCRIPTION_ID]: ctx.id };
    await this.notify('notifications/subscriptions/acknowledged', { _meta: meta, notifications: honoured });
    return new Promise((resolve, reject) => {
      const stop = (): void => {
        this.open.delete(ctx.id);
        reject(ctx.signal.reason ?? new Error('subscription cancelled'));
      };
      if (ctx.signal.aborted) return stop();
      ctx.signal.addEventListener('abort', stop, { once: true });
      this.open.set(ctx.id, {
        kinds,
        end: () => {
          ctx.signal.removeEventListener('abort', stop);
          this.open.delete(ctx.id);
          resolve({ _meta: meta });
        },
      });
    });
  }

  /** A list changed: each subscription that asked for it hears so. */
  changed(kind: ListKind): void {
    for (const [id, s] of this.open) if (s.kinds.has(kind)) this.notify(`notifications/${kind}/list_changed`, { _meta: { [SUBSCRIPTION_ID]: id } }).catch(() => {});
  }

  /** The gateway ends every subscription gracefully: each gets its `complete` answer. */
  endAll(): void {
    for (const s of [...this.open.values()]) s.end();
  }
}
