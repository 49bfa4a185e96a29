/**
 * macOS: the `sandbox-exec` (Seatbelt) profile of a sandboxed server, with the same meaning as
 * the Linux sandbox (`bwrap.ts`) — a pure function of the resolved policy, unit-tested here
 * since no Mac runs the suite.
 *
 * Everything is denied unless allowed: reading the granted directories (the system's, the
 * server's package, `filesystem.read`), reading and writing `filesystem.write` and the private
 * temp dir, the usual character devices, the system services name lookup and TLS need, signals
 * and process information within the sandbox only. File metadata (stat) is readable everywhere:
 * programs walk path prefixes, and Seatbelt has no per-component rule; contents stay denied.
 * No network rule but, with an allow-list, the host's proxy on 127.0.0.1:`proxyPort`.
 */
import type { SandboxPolicy } from './sandbox-policy.js';

/** The Mach services a Node or Python server needs (name resolution of users, logging, TLS trust). */
const MACH_SERVICES = [
  'com.apple.system.opendirectoryd.libinfo',
  'com.apple.system.notification_center',
  'com.apple.system.logger',
  'com.apple.logd',
  'com.apple.diagnosticd',
  'com.apple.trustd.agent',
  'com.apple.SecurityServer',
  'com.apple.cfprefsd.daemon',
  'com.apple.cfprefsd.agent',
];
const DEVICES = ['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom', '/dev/tty', '/dev/dtracehelper'];

/** A string literal of the profile language (TinyScheme): backslash and quote escaped, no control characters. */
export function sbString(s: string): string {
  if (/[\0-\x1f\x7f]/.test(s)) throw new Error('a sandbox path must not contain control characters');
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export interface SeatbeltInput {
  policy: SandboxPolicy;
  /** The private temp dir (host path, already created). */
  tmp: string;
  /** The host's proxy port on 127.0.0.1, when the network has an allow-list. */
  proxyPort?: number;
}

/** The profile text (see the module comment). */
export function seatbeltProfile(input: SeatbeltInput): string {
  const { policy } = input;
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-fork)',
    '(allow process-exec)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow file-read-metadata)',
    `(allow mach-lookup ${MACH_SERVICES.map((s) => `(global-name ${sbString(s)})`).join(' ')})`,
    '(allow ipc-posix-shm-read-data (ipc-posix-name "apple.shm.notification_center"))',
    `(allow file-read* file-write-data ${DEVICES.map((d) => `(literal ${sbString(d)})`).join(' ')})`,
    '(allow file-read* (literal "/"))',
  ];
  if (policy.read.length > 0) lines.push(`(allow file-read* ${policy.read.map((p) => `(subpath ${sbString(p)})`).join(' ')})`);
  const writable = [input.tmp, ...policy.write];
  lines.push(`(allow file-read* file-write* ${writable.map((p) => `(subpath ${sbString(p)})`).join(' ')})`);
  if (policy.network !== 'none' && input.proxyPort !== undefined) {
    lines.push(`(allow network-outbound (remote ip ${sbString(`localhost:${input.proxyPort}`)}))`);
  }
  return lines.join('\n') + '\n';
}
