/**
 * Aggregate checks over everything the server sent during the run (every connection): what it
 * may send only when negotiated (server→client requests, list_changed, log messages), request
 * ids, error codes, `_meta` key names, and resource updates only for subscribed URIs.
 */
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/context.js';
import type { Recorded } from '../core/probe.js';
import { notApplicable, pass, violated, type CheckDef, type Verdict } from '../core/types.js';

const msg = (r: Recorded) => r.message as { method?: unknown; id?: unknown; params?: Record<string, unknown>; error?: { code?: unknown }; result?: unknown };

function seen(ctx: CheckContext): Verdict | undefined {
  return ctx.traffic.fromServer().length === 0 ? notApplicable('the server sent no messages during the run') : undefined;
}

/** Client capability each server→client request needs. */
const CLIENT_CAP: Record<string, string> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
  'tasks/get': 'tasks',
  'tasks/result': 'tasks',
  'tasks/list': 'tasks',
  'tasks/cancel': 'tasks',
};

const serverRequestsDeclared: CheckDef = {
  id: 'server-requests.declared-only',
  title: 'sampling/elicitation/roots requests only when the client declared the capability',
  clause: 'basic.lifecycle#14',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    const reqs = ctx.traffic.fromServer().filter((r) => r.kind === 'request');
    for (const r of reqs) {
      const m = String(msg(r).method);
      const cap = CLIENT_CAP[m];
      if (cap === undefined) continue;
      if (!isObject(r.clientCaps?.[cap])) {
        return violated(`both parties MUST only use capabilities that were successfully negotiated: the server sent ${m} but the client did not declare "${cap}"`, r.message);
      }
    }
    return seen(ctx) ?? pass(`${reqs.length} server requests`);
  },
};

const requestIdsUnique: CheckDef = {
  id: 'jsonrpc.request-ids-unique',
  title: "the server never reuses a request id within a session",
  clause: 'basic#5',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    const used = new Set<string>();
    let n = 0;
    for (const r of ctx.traffic.fromServer()) {
      if (r.kind !== 'request') continue;
      n++;
      const k = `${r.probe}:${JSON.stringify(msg(r).id)}`;
      if (used.has(k)) return violated(`the request ID MUST NOT have been previously used by the requestor within the same session; id ${JSON.stringify(msg(r).id)} was used twice`, r.message);
      used.add(k);
    }
    return seen(ctx) ?? (n === 0 ? notApplicable('the server sent no requests') : pass(`${n} server requests`));
  },
};

const errorCodes: CheckDef = {
  id: 'jsonrpc.error-code-integer',
  title: 'error responses carry an integer code and a message',
  clause: 'basic#10',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    let n = 0;
    for (const r of ctx.traffic.fromServer()) {
      if (r.kind !== 'error') continue;
      n++;
      const e = msg(r).error;
      if (!Number.isInteger(e?.code)) {
        r.claims.push('/error/code');
        return violated(`error codes MUST be integers; got ${JSON.stringify(e?.code)}`, r.message);
      }
    }
    return seen(ctx) ?? (n === 0 ? notApplicable('the server sent no error responses') : pass(`${n} error responses`));
  },
};

function listChanged(capability: 'tools' | 'resources' | 'prompts', clause: string): CheckDef {
  const method = `notifications/${capability}/list_changed`;
  return {
    id: `${capability}.list-changed-declared`,
    title: `${method} only when "${capability}.listChanged" was declared`,
    clause,
    level: 'MUST',
    aggregate: true,
    async run(ctx) {
      const caps = ctx.firstSession?.capabilities;
      if (caps === undefined) return notApplicable('no initialize result');
      const declared = isObject(caps[capability]) && (caps[capability] as Record<string, unknown>).listChanged === true;
      const sent = ctx.traffic.fromServer().filter((r) => r.kind === 'notification' && msg(r).method === method);
      if (sent.length > 0 && !declared) {
        return violated(`the server sent ${method} without declaring "${capability}": {"listChanged": true}; only negotiated capabilities may be used (basic.lifecycle#14)`, sent[0].message);
      }
      return pass(sent.length === 0 ? `no ${method} seen` : `${sent.length} seen, declared`);
    },
  };
}

const loggingDeclared: CheckDef = {
  id: 'logging.declared-if-emitted',
  title: 'a server that sends notifications/message declares logging',
  clause: 'server.utilities.logging#1',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    const caps = ctx.firstSession?.capabilities;
    if (caps === undefined) return notApplicable('no initialize result');
    const sent = ctx.traffic.fromServer().filter((r) => r.kind === 'notification' && msg(r).method === 'notifications/message');
    if (sent.length > 0 && !isObject(caps.logging)) return violated('servers that emit log message notifications MUST declare the logging capability; it sent notifications/message without', sent[0].message);
    return pass(sent.length === 0 ? 'no log messages seen' : `${sent.length} log messages, logging declared`);
  },
};

const updatedSubscribed: CheckDef = {
  id: 'resources.updated-subscribed-only',
  title: 'notifications/resources/updated only for URIs the client subscribed to',
  clause: 'server/resources §Subscriptions',
  level: 'SHOULD',
  aggregate: true,
  async run(ctx) {
    const subscribed = new Map<number, Set<unknown>>();
    let n = 0;
    for (const r of ctx.traffic.records) {
      const m = msg(r);
      if (r.dir === 'out' && r.kind === 'request' && m.method === 'resources/subscribe') {
        if (!subscribed.has(r.probe)) subscribed.set(r.probe, new Set());
        subscribed.get(r.probe)!.add(m.params?.uri);
      } else if (r.dir === 'in' && r.kind === 'notification' && m.method === 'notifications/resources/updated') {
        n++;
        if (!subscribed.get(r.probe)?.has(m.params?.uri)) {
          return violated(`the server sent notifications/resources/updated for ${JSON.stringify(m.params?.uri)}, which this client never subscribed to`, r.message);
        }
      }
    }
    return pass(n === 0 ? 'no resource updates seen' : `${n} updates, all subscribed`);
  },
};

// basic#21/#22/#24: `_meta` keys are `[prefix/]name`; a prefix is dot-separated labels then "/".
const LABEL = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const NAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;

/** Why a `_meta` key is malformed, or undefined. */
export function metaKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (slash >= 0) {
    const labels = key.slice(0, slash).split('.');
    const bad = labels.find((l) => !LABEL.test(l));
    if (bad !== undefined) return `prefix label ${JSON.stringify(bad)} must start with a letter, end with a letter or digit, and contain only letters, digits, hyphens (basic#22)`;
  }
  if (!NAME.test(name)) return `name ${JSON.stringify(name)} must begin and end with an alphanumeric character (basic#24)`;
  return undefined;
}

function findMeta(v: unknown, path: string, out: Array<{ path: string; key: string }>, depth = 0): void {
  if (depth > 12 || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    v.forEach((x, i) => findMeta(x, `${path}/${i}`, out, depth + 1));
    return;
  }
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === '_meta' && isObject(x)) for (const key of Object.keys(x)) out.push({ path: `${path}/_meta`, key });
    else findMeta(x, `${path}/${k}`, out, depth + 1);
  }
}

const metaKeys: CheckDef = {
  id: 'meta.key-format',
  title: '_meta keys are [prefix/]name with well-formed labels and name',
  clause: 'basic#21',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    let n = 0;
    for (const r of ctx.traffic.fromServer()) {
      const keys: Array<{ path: string; key: string }> = [];
      findMeta(r.message, '', keys);
      n += keys.length;
      for (const k of keys) {
        const why = metaKeyProblem(k.key);
        if (why !== undefined) return violated(`_meta key ${JSON.stringify(k.key)} at ${k.path}: ${why}`, r.message);
      }
    }
    return seen(ctx) ?? pass(n === 0 ? 'no _meta keys seen' : `${n} _meta keys`);
  },
};

const embeddedResources: CheckDef = {
  id: 'tools.embedded-resources-capability',
  title: 'a server whose tool results embed resources implements the resources capability',
  clause: 'server.tools#12',
  level: 'SHOULD',
  aggregate: true,
  async run(ctx) {
    const caps = ctx.firstSession?.capabilities;
    if (caps === undefined) return notApplicable('no initialize result');
    const hit = ctx.traffic.fromServer().find((r) => {
      if (r.kind !== 'result' || r.requestMethod !== 'tools/call') return false;
      const content = (msg(r).result as { content?: unknown } | undefined)?.content;
      return Array.isArray(content) && content.some((b) => isObject(b) && b.type === 'resource');
    });
    if (hit === undefined) return notApplicable('no tool result embedded a resource');
    if (!isObject(caps.resources)) return violated('a tool result embeds a resource but the server does not declare the resources capability', hit.message);
    return pass();
  },
};

export const aggregateChecks: CheckDef[] = [
  serverRequestsDeclared,
  requestIdsUnique,
  errorCodes,
  listChanged('tools', 'basic.lifecycle#14'),
  listChanged('resources', 'basic.lifecycle#14'),
  listChanged('prompts', 'basic.lifecycle#14'),
  loggingDeclared,
  updatedSubscribed,
  metaKeys,
  embeddedResources,
];
