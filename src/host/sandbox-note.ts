/**
 * What the host says about a sandboxed server: in its status row (that it runs sandboxed, with
 * which grants, and what the sandbox refused that the host saw: the proxy's refusals by host
 * name), and in the error of a failing call (the same, plus what the error text shows the
 * sandbox denied: a write to a read-only path, a path outside the grants, a refused connection).
 * The OS refuses (EROFS, EACCES, ENOENT, ECONNREFUSED); the host can only read the server's
 * words about it, so the inferred denials say "probably".
 */
import type { SandboxSettings } from './config/sandbox.js';
import { describePolicy, LINUX_SYSTEM_READ, DARWIN_SYSTEM_READ, underAny, type SandboxDenial } from '../transport/spawn/sandbox-policy.js';

/** The sandbox part of a status row and of a failed call's result. */
export interface SandboxStatus {
  /** Always true: the row is present only for a sandboxed server. */
  sandboxed: true;
  /** The grants as configured (paths, host names, env names: no value). */
  grants: SandboxSettings;
  /** The grants in one line. */
  summary: string;
  /** What the sandbox refused that the host saw or inferred, newest last (at most `MAX_DENIALS`). */
  denied: string[];
}

/** Denials kept per server. */
export const MAX_DENIALS = 20;

/** One denial as a line. */
export function denialText(d: SandboxDenial): string {
  return `network: ${d.host}:${d.port} refused by the host's proxy (${d.reason})`;
}

/** A bounded list of a server's denials (oldest dropped). */
export class DenialLog {
  private readonly lines: string[] = [];
  /** How many were ever recorded (a mark for `since`). */
  count = 0;
  record(line: string): void {
    this.count++;
    this.lines.push(line.slice(0, 300));
    if (this.lines.length > MAX_DENIALS) this.lines.shift();
  }
  get all(): string[] {
    return [...this.lines];
  }
  /** The lines recorded after `mark` (a value of `count` taken earlier) that are still kept. */
  since(mark: number): string[] {
    const n = Math.min(this.count - mark, this.lines.length);
    return n <= 0 ? [] : this.lines.slice(-n);
  }
}

/** The status of a sandboxed server. */
export function sandboxStatus(grants: SandboxSettings, denied: readonly string[]): SandboxStatus {
  return { sandboxed: true, grants: structuredClone(grants), summary: describePolicy(grants), denied: [...denied] };
}

const ABS_PATH = /(?:^|[\s'"`(:=])(\/[^\s'"`),:]+)/g;

/** What an error text shows the sandbox probably denied (see the module comment). */
export function inferDenials(text: string, grants: SandboxSettings, platform: NodeJS.Platform = process.platform): string[] {
  const out: string[] = [];
  const erofs = /EROFS|read-only file system/i.test(text);
  const refused = /EACCES|EPERM|permission denied|operation not permitted/i.test(text);
  const missing = /ENOENT|no such file/i.test(text);
  const system = platform === 'darwin' ? DARWIN_SYSTEM_READ : LINUX_SYSTEM_READ;
  for (const m of text.matchAll(ABS_PATH)) {
    const p = m[1].replace(/[.;]+$/, '');
    if (underAny(p, grants.filesystem.write)) continue;
    // EROFS comes only from a read-only mount: the path is visible, not writable.
    const readable = erofs || underAny(p, grants.filesystem.read) || underAny(p, system);
    if (readable && (erofs || refused)) out.push(`probably denied: write to ${p} (granted read-only)`);
    else if (!readable && (refused || missing)) out.push(`probably denied: ${p} (outside the sandbox's grants: not visible inside)`);
    if (out.length >= 5) break;
  }
  if (/ECONNREFUSED|EAI_AGAIN|ENETUNREACH|getaddrinfo/.test(text)) {
    out.push(grants.network === 'none' ? 'probably denied: network (the sandbox has none)' : `probably denied: network outside the host's proxy (only ${grants.network.allow.join(', ')} through HTTP(S)_PROXY)`);
  }
  return [...new Set(out)];
}

/** The sentence added to a failing call's error. */
export function sandboxErrorNote(serverId: string, st: SandboxStatus): string {
  const denied = st.denied.length > 0 ? `; denied: ${st.denied.join('; ')}` : '';
  return `[mcpwire] server "${serverId}" runs sandboxed (${st.summary})${denied}`;
}

/** The note of a failed call (`text`: what the server said) to a sandboxed server, or undefined when it is not sandboxed. */
export function sandboxNoteFor(server: { id: string; config: { sandbox?: SandboxSettings } }, text: string, denied: readonly string[] = []): string | undefined {
  const grants = server.config.sandbox;
  if (grants === undefined) return undefined;
  return sandboxErrorNote(server.id, sandboxStatus(grants, [...denied, ...inferDenials(text, grants)]));
}
