/**
 * The permission hook: MCP tools cross a trust boundary, so a call is allowed only
 *
 * 1. when the server's config lists the tool in `permissions.allow` (and not in `deny`), or
 * 2. when the application's hook says `allow` after showing `server/tool` and the arguments.
 *
 * `permissions.deny` always wins. Without a hook the default decision is `confirm` with no one
 * to confirm: the call is denied (pass `permission: 'allow'` to trust every tool). Patterns
 * are tool names as the server reports them; `*` matches any run of characters.
 */
import type { ToolAnnotations } from '../mcp/types.js';
import type { PermissionSettings } from './config/types.js';

/**
 * What the hook is asked about. Annotations are the server's claims: untrusted hints
 * (server.tools#6) unless `annotationsTrusted` says the user marked the server `trust_annotations`.
 */
export interface PermissionRequest {
  server: string;
  /** The tool's original name. */
  tool: string;
  /** The public name the agent used. */
  publicName: string;
  arguments: Record<string, unknown>;
  annotations?: ToolAnnotations;
  /** True when the user trusts this server's annotations (`trust_annotations`); absent or false: they are claims only. */
  annotationsTrusted?: boolean;
  signal?: AbortSignal;
}

/** Decides a call; may ask a human. */
export type PermissionHook = (request: PermissionRequest) => 'allow' | 'deny' | Promise<'allow' | 'deny'>;

/** A decision and why. */
export interface PermissionDecision {
  allowed: boolean;
  reason: 'config-deny' | 'config-allow' | 'hook-allow' | 'hook-deny' | 'allow-all' | 'no-hook' | 'hook-error';
}

/** True when `name` matches one of `patterns` (`*` = any characters). */
export function matchesAny(name: string, patterns: readonly string[] | undefined): boolean {
  return patterns !== undefined && patterns.some((p) => (p.includes('*') ? globToRegExp(p).test(name) : p === name));
}

function globToRegExp(p: string): RegExp {
  return new RegExp(`^${p.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
}

/** Applies the config lists, then the hook (see the module comment). */
export async function decidePermission(
  request: PermissionRequest,
  settings: PermissionSettings | undefined,
  hook: PermissionHook | 'allow' | undefined,
): Promise<PermissionDecision> {
  if (matchesAny(request.tool, settings?.deny)) return { allowed: false, reason: 'config-deny' };
  if (matchesAny(request.tool, settings?.allow)) return { allowed: true, reason: 'config-allow' };
  if (hook === 'allow') return { allowed: true, reason: 'allow-all' };
  if (hook === undefined) return { allowed: false, reason: 'no-hook' };
  try {
    const answer = await hook(request);
    return answer === 'allow' ? { allowed: true, reason: 'hook-allow' } : { allowed: false, reason: 'hook-deny' };
  } catch {
    return { allowed: false, reason: 'hook-error' };
  }
}
