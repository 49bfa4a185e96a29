/**
 * The common server entry checked by hand, so reading a config loads no zod: loading zod and
 * building the entry's schema costs ~50 ms of CPU, and every `mcpwire` command (a fresh process)
 * reads the config. An entry of plain fields (a command with its args, cwd and env; a URL with
 * headers; timeouts, flags, permissions, roots, a protocol version, where `mcp add
 * --from-registry` got it) that passes every rule the
 * zod schema (./schema.ts) has for those fields is returned as the entry zod would return; any
 * other entry — another field, a value that fails or that this check does not know (oauth,
 * retry, sandbox) — gets undefined, and zod decides, with its messages. So this
 * check only ever says yes where zod says yes (test/host/config-plain-entry.test.ts compares
 * both on generated entries).
 */
import path from 'node:path';
import { unsupportedRequestedVersion } from '../../mcp/versions.js';

/** A header name (RFC 9110 token) and an environment variable name, as an entry's keys (also zod's rules). */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const ENV_NAME = /^[^=\0]+$/;
const MAX_TIMEOUT_MS = 2_147_483_647;

type Check = (v: unknown) => boolean;

const isString = (v: unknown): v is string => typeof v === 'string';
const nonEmpty = (v: unknown): v is string => isString(v) && v.length > 0;
const noNul = (v: unknown): boolean => isString(v) && !v.includes('\0');
const noLineBreak = (v: unknown): boolean => isString(v) && !/[\r\n\0]/.test(v);
const bool = (v: unknown): boolean => typeof v === 'boolean';
const intIn = (max: number): Check => (v) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v <= max;
const listOf = (item: Check): Check => (v) => Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype && v.length === Object.keys(v).length && v.every(item);

/**
 * A plain `{}` (no class, no array) whose own keys are all enumerable strings, none `__proto__`:
 * what a parsed file gives, and what a copy keeps key for key.
 */
function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Reflect.ownKeys(v);
  return keys.length === Object.keys(v).length && !keys.includes('__proto__');
}

const mapOf = (key: RegExp, value: Check): Check => (v) => isRecord(v) && Object.entries(v).every(([k, x]) => key.test(k) && value(x));

/** `from_registry`: its four names, and the inputs given (lists of strings by key); another key: zod decides. */
const REGISTRY_KEYS = new Set(['registry', 'name', 'version', 'package', 'inputs']);
const fromRegistry: Check = (v) =>
  isRecord(v) &&
  Object.keys(v).every((k) => REGISTRY_KEYS.has(k)) &&
  ['registry', 'name', 'version', 'package'].every((k) => nonEmpty(v[k])) &&
  (v.inputs === undefined || mapOf(/^/, listOf(isString))(v.inputs));

/** The fields this check knows, each with zod's rules for it (./schema.ts). */
const FIELDS: Record<string, Check> = {
  transport: (v) => v === 'stdio' || v === 'http' || v === 'sse',
  enabled: bool,
  command: (v) => nonEmpty(v) && noNul(v),
  args: listOf(noNul),
  cwd: nonEmpty,
  env: mapOf(ENV_NAME, noNul),
  url: nonEmpty,
  headers: mapOf(HEADER_NAME, noLineBreak),
  secret_names: listOf(nonEmpty),
  request_timeout_ms: intIn(MAX_TIMEOUT_MS),
  permissions: (v) => isRecord(v) && Object.keys(v).every((k) => (k === 'allow' || k === 'deny') && (v[k] === undefined || listOf(nonEmpty)(v[k]))),
  roots: listOf((p) => nonEmpty(p) && path.isAbsolute(p) && noNul(p)),
  max_parallel: intIn(10_000),
  reset_timeout_on_progress: bool,
  max_total_timeout_ms: intIn(MAX_TIMEOUT_MS),
  validate_input: bool,
  trust_annotations: bool,
  keep_alive: bool,
  protocol_version: (v) => isString(v) && unsupportedRequestedVersion(v) === undefined,
  from_registry: fromRegistry,
};

/** The fields of `raw` as zod's parse returns them (lists and maps copied), or undefined: zod decides. */
export function plainEntry(raw: unknown): Record<string, unknown> | undefined {
  if (!isRecord(raw) || raw.transport === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    const check = Object.hasOwn(FIELDS, k) ? FIELDS[k] : undefined; // `hasOwnProperty` is a key like any other
    if (check === undefined || !check(v)) return undefined;
    out[k] = Array.isArray(v) ? [...(v as unknown[])] : k === 'permissions' ? copyPermissions(v as Record<string, unknown>) : k === 'from_registry' ? copyFromRegistry(v as Record<string, unknown>) : isRecord(v) ? { ...v } : v;
  }
  return out;
}

function copyPermissions(p: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const k of ['allow', 'deny'] as const) if (p[k] !== undefined) out[k] = [...(p[k] as string[])];
  return out;
}

function copyFromRegistry(r: Record<string, unknown>): Record<string, unknown> {
  const { inputs, ...names } = r;
  if (inputs === undefined) return names;
  return { ...names, inputs: Object.fromEntries(Object.entries(inputs as Record<string, string[]>).map(([k, list]) => [k, [...list]])) };
}
