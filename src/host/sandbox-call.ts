/**
 * A failing call to a sandboxed server says so (`sandbox-note.ts`): its result gets `sandbox`
 * (grants, and what the sandbox refused during the call or what the error shows it probably
 * denied) and one more text item naming them, so the model and the user see why.
 */
import type { HostCallResult } from './outcome.js';
import { inferDenials, sandboxErrorNote, sandboxStatus } from './sandbox-note.js';
import type { ServerSlot } from './server-slot.js';

/** `result` with the sandbox note when it is an error of a sandboxed server; `mark`: the denial count when the attempt began. */
export function withSandboxNote(result: HostCallResult, slot: ServerSlot, mark: number): HostCallResult {
  const grants = slot.server.config.sandbox;
  if (grants === undefined || (result.outcome === 'ok' && result.isError !== true)) return result;
  const text = [...(result.content ?? [])].map((c) => (c.type === 'text' ? c.text : '')).join('\n') + (result.rpcError ? `\n${result.rpcError.message}` : '');
  const denied = [...slot.denials.since(mark), ...inferDenials(text, grants)];
  const st = sandboxStatus(grants, denied);
  result.sandbox = st;
  result.content = [...(result.content ?? []), { type: 'text', text: sandboxErrorNote(slot.server.id, st) }];
  return result;
}
