/**
 * The `sandbox` of a stdio server's entry (docs/sandbox.md): `true` or `{}` turns it on with the
 * defaults (system directories and the server's own package read-only, a private temp dir, no
 * home, the environment reduced to what the entry names, no network); the object grants more:
 * `{ filesystem: { read, write }, network: "none" | { allow: [host names] }, env: [names] }`.
 * Strict: a misspelt key is an error, never a silently wider or narrower sandbox.
 */
import path from 'node:path';
import type { z } from 'zod';
import type { SandboxSpec } from '../../transport/spawn/sandbox-policy.js';
import { lazy, lazyObject } from './zod.js';

/** A normalized sandbox: every list present. */
export interface SandboxSettings extends SandboxSpec {
  filesystem: { read: string[]; write: string[] };
  network: 'none' | { allow: string[] };
  env: string[];
}

/** `api.github.com`, `*.npmjs.org`, `localhost:8080`, `[::1]:8080`. */
const HOST_PATTERN = /^(?:(?:\*\.)?[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The `sandbox` field's zod schema, built on first use (./zod.ts). */
export const sandboxZod = lazy((z) => {
  const absolutePath = z
    .string()
    .min(1)
    .refine((p) => !/[\0\r\n]/.test(p), 'must not contain NUL or line breaks')
    .refine((p) => path.isAbsolute(p), 'must be an absolute path');
  return z.union([
    z.boolean(),
    z
      .object({
        filesystem: z.object({ read: z.array(absolutePath).max(256).optional(), write: z.array(absolutePath).max(256).optional() }).strict().optional(),
        network: z
          .union([
            z.literal('none'),
            z.object({ allow: z.array(z.string().regex(HOST_PATTERN, 'must be a host name, *.domain or host:port')).max(256) }).strict(),
          ])
          .optional(),
        env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')).max(256).optional(),
      })
      .strict(),
  ]);
});

/** The same schema as an object (built when first touched). */
export const sandboxSchema: ReturnType<typeof sandboxZod> = lazyObject(sandboxZod);

/** The normalized sandbox, or undefined when off (absent or `false`). */
export function sandboxSettings(raw: z.infer<ReturnType<typeof sandboxZod>> | undefined): SandboxSettings | undefined {
  if (raw === undefined || raw === false) return undefined;
  const o = raw === true ? {} : raw;
  return {
    filesystem: { read: (o.filesystem?.read ?? []).map((p) => path.resolve(p)), write: (o.filesystem?.write ?? []).map((p) => path.resolve(p)) },
    network: o.network === undefined || o.network === 'none' ? 'none' : { allow: [...o.network.allow] },
    env: [...(o.env ?? [])],
  };
}

/** A problem converting an imported sandbox (the field inside the imported entry). */
export interface SandboxImportNote {
  field: string;
  message: string;
}

/**
 * VS Code's `sandboxEnabled` + `sandbox` (`filesystem.allowWrite`, `network.allowedDomains`) as
 * the native `sandbox`; `expand` resolves `${workspaceFolder}`, `${userHome}`… in paths. VS
 * Code's deny lists have no counterpart (ours grants by allow-list: what is not granted is not
 * there) and are reported as ignored.
 */
export function sandboxFromVsCode(raw: Record<string, unknown>, expand: (s: string, field: string) => string, notes: SandboxImportNote[]): unknown {
  if (raw.sandboxEnabled !== true) {
    if (raw.sandbox !== undefined) notes.push({ field: 'sandbox', message: 'ignored: "sandboxEnabled" is not true, the server runs unsandboxed' });
    return undefined;
  }
  const src = typeof raw.sandbox === 'object' && raw.sandbox !== null ? (raw.sandbox as Record<string, Record<string, unknown> | undefined>) : {};
  const out: Record<string, unknown> = {};
  const list = (v: unknown, field: string): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').map((x) => expand(x, field)) : []);
  const write = list(src.filesystem?.allowWrite, 'sandbox.filesystem.allowWrite');
  if (write.length > 0) out.filesystem = { write };
  const allow = list(src.network?.allowedDomains, 'sandbox.network.allowedDomains');
  if (allow.length > 0) out.network = { allow };
  for (const [k, f] of [['filesystem', 'denyRead'], ['filesystem', 'denyWrite'], ['network', 'deniedDomains']] as const) {
    if (src[k]?.[f] !== undefined) notes.push({ field: `sandbox.${k}.${f}`, message: 'ignored: the sandbox grants by allow-list (what is not granted is not reachable)' });
  }
  return out;
}

/**
 * Whether `after` grants a server more than `before`: the sandbox removed, a path readable or
 * writable that was not (a grant inside an old one is no more), a host, an env name, any network
 * where there was none. The trust of a project server survives a change only when it is not.
 */
export function sandboxLoosened(before: SandboxSettings | undefined, after: SandboxSettings | undefined): boolean {
  if (before === undefined) return false;
  if (after === undefined) return true;
  const inside = (p: string, dirs: readonly string[]) => dirs.some((d) => p === d || p.startsWith(d.endsWith('/') ? d : d + '/'));
  if (after.filesystem.write.some((p) => !inside(p, before.filesystem.write))) return true;
  if (after.filesystem.read.some((p) => !inside(p, [...before.filesystem.read, ...before.filesystem.write]))) return true;
  if (after.env.some((n) => !before.env.includes(n))) return true;
  if (after.network === 'none') return false;
  return before.network === 'none' || after.network.allow.some((h) => !(before.network as { allow: string[] }).allow.includes(h));
}
