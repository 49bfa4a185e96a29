/**
 * `serve --http --store redis://…`: the replica's side of the sessions shared in Redis
 * (src/store/redis-sessions.ts). A session opened on any replica is served on every one: a
 * request whose `MCP-Session-Id` this replica does not know is looked up in the store and the
 * session re-created here from its record (its `initialize` replayed, http-shared-session.ts);
 * an id the store does not know is 404 as before; while the store is unreachable such a request
 * is 503 (sessions this replica holds go on). DELETE drops the record and tells every replica.
 *
 * What a session sets for itself follows it: its log level (`logging/setLevel`) is kept in its
 * record (`level`, beside the `initialize` params) and published to every replica, so whichever
 * replica relays a server's log messages to the session filters them by that level. Its
 * resource subscriptions are held by one replica each (the one the `resources/subscribe` came
 * to: the others let go of theirs when told, and an `resources/unsubscribe` on any replica ends
 * it), whose servers' updates reach the session's GET stream wherever it is
 * (http-shared-session.ts).
 */
import type http from 'node:http';
import type { RedisServeState } from '../store/redis-sessions.js';
import type { Gateway } from './gateway.js';
import type { GatewaySession } from './session.js';
import { SharedSessionTransport } from './http-shared-session.js';

/** The record's field holding the session's log level (never an `initialize` param: taken out before the replay). */
const LEVEL = 'mcpwire/logLevel';

/** How often a session's record has its expiry pushed back while requests come (ms). */
const TOUCH_EVERY_MS = 10_000;

export class SharedSessions {
  private readonly restoring = new Map<string, Promise<SharedSessionTransport | undefined>>();
  private readonly touched = new Map<string, number>();
  /** The records of the sessions this replica holds, stored again when Redis comes back. */
  private readonly records = new Map<string, Record<string, unknown>>();
  /** This replica's copy of each session it holds. */
  private readonly copies = new Map<string, GatewaySession>();

  constructor(
    readonly state: RedisServeState,
    private readonly gateway: Gateway,
    /** The replica's table of the sessions it holds (the router's). */
    private readonly local: Map<string, { close(): Promise<void> }>,
  ) {}

  /** A new session for `initialize`: its record is stored before its answer goes out. */
  async create(id: string, message: Record<string, unknown>): Promise<SharedSessionTransport> {
    const t = this.transport(id);
    this.local.set(id, t);
    await this.attach(id, t);
    const record = (message.params ?? {}) as Record<string, unknown>;
    this.records.set(id, record);
    const saved = this.state.saveSession(id, record).catch((err: unknown) => {
      this.gateway.log(`session ${id.slice(0, 8)} is served by this replica only: the store did not take its record (${(err as Error)?.message ?? String(err)})`);
    });
    t.gate(message.id as string | number, saved);
    return t;
  }

  /** The session re-created from the store; undefined when the store does not know it. Rejects while the store is unreachable. */
  restore(id: string): Promise<SharedSessionTransport | undefined> {
    let p = this.restoring.get(id);
    if (p === undefined) {
      p = this.load(id).finally(() => this.restoring.delete(id));
      this.restoring.set(id, p);
    }
    return p;
  }

  /** The client's answer to a request this replica sent, taken in by another replica. */
  answer(sid: string, message: string): void {
    const t = this.local.get(sid);
    if (!(t instanceof SharedSessionTransport)) return;
    try {
      t.deliverAnswer(JSON.parse(message) as Record<string, unknown>);
    } catch {
      /* not JSON: dropped */
    }
  }

  /** Redis is back (maybe restarted empty): the records of the sessions held here are stored again. */
  recovered(): void {
    for (const [id, record] of this.records) if (this.local.has(id)) this.state.saveSession(id, record).catch(() => undefined);
    this.gateway.log('the session store is reachable again');
  }

  /** A request of the session came: its record lives on (at most one write per `TOUCH_EVERY_MS`). */
  touch(id: string): void {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(id, now);
    this.state.touchSession(id);
  }

  /** DELETE: false when neither this replica nor the store knows the session. */
  async delete(id: string): Promise<boolean> {
    const here = this.local.get(id);
    const known = here !== undefined || (await this.state.loadSession(id)) !== undefined;
    if (!known) return false;
    this.local.delete(id);
    this.touched.delete(id);
    this.records.delete(id);
    await here?.close();
    await this.state.deleteSession(id);
    return true;
  }

  /** A session ended elsewhere (DELETE on another replica): this replica's copy goes. */
  ended(id: string): void {
    const t = this.local.get(id);
    this.touched.delete(id);
    if (t === undefined) return;
    this.local.delete(id);
    void t.close();
  }

  private async load(id: string): Promise<SharedSessionTransport | undefined> {
    const record = await this.state.loadSession(id);
    if (record === undefined) return undefined;
    const existing = this.local.get(id);
    if (existing instanceof SharedSessionTransport) return existing;
    const t = this.transport(id);
    this.local.set(id, t);
    this.records.set(id, record);
    const session = await this.attach(id, t);
    const { [LEVEL]: level, ...params } = record;
    await t.restore(params);
    if (typeof level === 'string') session.adoptLevel(level);
    return t;
  }

  private transport(id: string): SharedSessionTransport {
    return new SharedSessionTransport(id, this.state, { rerun: (m) => this.gateway.rerunnable(m), log: (l) => this.gateway.log(l) });
  }

  private async attach(id: string, t: SharedSessionTransport): Promise<GatewaySession> {
    const session = await this.gateway.attach(t);
    this.copies.set(id, session);
    session.onLevel = (level) => this.levelSet(id, level);
    session.onSubscription = (what, uri) =>
      this.state.publishSubscription(id, what, uri).catch((err: unknown) => {
        this.gateway.log(`session ${id.slice(0, 8)}: other replicas were not told of its ${what === 'sub' ? 'subscription' : 'unsubscription'} (${(err as Error)?.message ?? String(err)})`);
      });
    const theirs = t.onclose;
    t.onclose = (err) => {
      if (this.local.get(id) === t) {
        this.local.delete(id);
        this.records.delete(id);
      }
      if (this.copies.get(id) === session) this.copies.delete(id);
      theirs?.(err);
    };
    return session;
  }

  /** The session set its log level here: kept in its record, told to every replica. */
  private async levelSet(id: string, level: string): Promise<void> {
    const record = this.records.get(id);
    if (record !== undefined) record[LEVEL] = level;
    try {
      // stored, then told, before the answer goes out: the client's next request finds it anywhere
      if (record !== undefined) await this.state.saveSession(id, record);
      await this.state.publishLevel(id, level);
    } catch (err) {
      this.gateway.log(`session ${id.slice(0, 8)}: its log level is this replica's alone, the store did not take it (${(err as Error)?.message ?? String(err)})`);
    }
  }

  /** A session subscribed to `uri` on another replica (which holds it now), or unsubscribed: this replica's copy lets go. */
  subscriptionElsewhere(id: string, uri: string): void {
    this.copies.get(id)?.releaseSubscription(uri);
  }

  /** A session set its log level on another replica: this replica's copy adopts it. */
  levelElsewhere(id: string, level: string): void {
    const record = this.records.get(id);
    if (record !== undefined) record[LEVEL] = level;
    this.copies.get(id)?.adoptLevel(level);
  }
}

/** 503 while the store cannot say whether a session exists. */
export function storeAway(res: http.ServerResponse, json: boolean): void {
  const text = 'Service Unavailable: the session store is unreachable (this replica does not hold the session); retry shortly';
  if (json) res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: text } }));
  else res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end(`mcpwire serve: ${text}\n`);
}
