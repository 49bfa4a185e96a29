/**
 * A server's row of the status view from its slot: state, retries, last error and,
 * while connected, what the server said about itself — every server-sent string sanitized and
 * capped (instructions cut to their first line unless the detail view is asked for).
 */
import type { ServerStatus } from './host-types.js';
import { capabilitySummary, instructionsSummary } from './runtime.js';
import type { ServerSlot } from './server-slot.js';
import { sandboxStatus } from './sandbox-note.js';
import { sanitizeText } from './text.js';

/** What the host knows beside the slot: its tools in the catalog, the listed tools it does not offer, the view. */
export interface StatusView {
  tools: number;
  unavailable: number;
  detail: boolean;
}

/** The status row of `s` (see the module comment). */
export function slotStatus(s: ServerSlot, view: StatusView): ServerStatus {
  const out: ServerStatus = {
    id: s.server.id,
    transport: s.server.transport,
    source: s.server.source,
    file: s.server.file,
    enabled: s.server.enabled,
    state: s.state,
    tools: view.tools,
    retries: s.retries,
  };
  if (s.lastError !== undefined) out.lastError = s.lastError;
  if (s.server.config.sandbox !== undefined) out.sandbox = sandboxStatus(s.server.config.sandbox, s.denials.all);
  if (s.lastConnectedAt !== undefined) out.lastConnectedAt = s.lastConnectedAt;
  if (s.nextRetryAt !== undefined) out.nextRetryAt = s.nextRetryAt;
  const info = s.client?.serverInfo;
  if (info) out.serverInfo = { name: sanitizeText(info.name, 100, true), version: sanitizeText(info.version, 50, true), ...(info.title ? { title: sanitizeText(info.title, 100, true) } : {}) };
  const c = s.client;
  if (c?.transportKind) out.transportKind = c.transportKind;
  if (typeof c?.pid === 'number') out.pid = c.pid;
  if (typeof c?.protocolVersion === 'string') out.protocolVersion = sanitizeText(c.protocolVersion, 40, true);
  if (c?.era !== undefined) out.era = c.era;
  const caps = capabilitySummary(c?.serverCapabilities);
  if (caps !== undefined) out.capabilities = caps;
  if (view.unavailable > 0) out.toolsUnavailable = view.unavailable;
  if (view.detail) {
    if (c?.instructions) out.instructions = sanitizeText(c.instructions, 2000);
    if (c?.serverCapabilities) out.serverCapabilities = c.serverCapabilities;
  } else {
    const short = instructionsSummary(c?.instructions);
    if (short !== undefined) out.instructions = short;
  }
  return out;
}
