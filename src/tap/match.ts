/**
 * Comparing recorded params with live ones. A trace holds redacted and truncated values, so a
 * recorded `"[redacted]"` matches anything and a truncated string matches what it begins with;
 * `_meta.progressToken` (chosen afresh by each client) is ignored.
 */
import { REDACTED } from '../trace/redact.js';

const TRUNCATED = '…[truncated by mcpwire:';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `params` without `_meta.progressToken` (and without `_meta` if nothing else is left in it). */
export function normalizeParams(params: unknown): unknown {
  if (!isObject(params) || !isObject(params._meta) || !('progressToken' in params._meta)) return params;
  const { progressToken: _drop, ...meta } = params._meta;
  const out: Record<string, unknown> = { ...params };
  if (Object.keys(meta).length) out._meta = meta;
  else delete out._meta;
  return out;
}

/**
 * What a request is about, beyond its method: the tool of `tools/call`, the prompt of
 * `prompts/get`, the resource of `resources/read` and (un)subscribe, the reference of
 * `completion/complete`. A replay never answers a request with a recorded one about another
 * thing, however alike the rest of their params.
 */
export function requestSubject(method: string, params: unknown): unknown {
  const p = isObject(params) ? params : {};
  switch (method) {
    case 'tools/call':
    case 'prompts/get':
      return p.name;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return p.uri;
    case 'completion/complete':
      return p.ref;
    default:
      return undefined;
  }
}

/** Whether the live value equals the recorded one, redaction and truncation allowed for. */
export function sameValue(recorded: unknown, live: unknown): boolean {
  if (recorded === REDACTED) return true;
  if (typeof recorded === 'string') {
    if (typeof live !== 'string') return false;
    if (recorded === live) return true;
    const cut = recorded.indexOf(TRUNCATED);
    if (cut >= 0 && live.startsWith(recorded.slice(0, cut))) return true;
    // A string that had a credential inside it was redacted in place.
    if (recorded.includes(REDACTED)) return redactedPattern(recorded).test(live);
    return false;
  }
  if (Array.isArray(recorded)) {
    return Array.isArray(live) && live.length === recorded.length && recorded.every((v, i) => sameValue(v, live[i]));
  }
  if (isObject(recorded)) {
    if (!isObject(live)) return false;
    const keys = new Set([...Object.keys(recorded), ...Object.keys(live)]);
    for (const k of keys) {
      if (recorded[k] === undefined && live[k] === undefined) continue;
      if (!(k in recorded) || !(k in live) || !sameValue(recorded[k], live[k])) return false;
    }
    return true;
  }
  return Object.is(recorded, live) || recorded === live;
}

function redactedPattern(s: string): RegExp {
  const parts = s.split(REDACTED).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`);
}

/** 0…1: how much of the two values agree (1 = the same). */
export function similarity(recorded: unknown, live: unknown, depth = 0): number {
  if (sameValue(recorded, live)) return 1;
  if (depth > 8) return 0;
  if (isObject(recorded) && isObject(live)) {
    const keys = new Set([...Object.keys(recorded), ...Object.keys(live)]);
    if (keys.size === 0) return 1;
    let sum = 0;
    for (const k of keys) sum += k in recorded && k in live ? similarity(recorded[k], live[k], depth + 1) : 0;
    return sum / keys.size;
  }
  if (Array.isArray(recorded) && Array.isArray(live)) {
    const n = Math.max(recorded.length, live.length);
    if (n === 0) return 1;
    let sum = 0;
    for (let i = 0; i < Math.min(recorded.length, live.length); i++) sum += similarity(recorded[i], live[i], depth + 1);
    return sum / n;
  }
  return 0;
}
