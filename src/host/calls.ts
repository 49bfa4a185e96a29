/**
 * Executing agent tool calls (seed §7.3): resolve the public name, check the server is ready,
 * ask permission (`permissions.ts`), send `tools/call` with the server's timeout, bound the
 * result. Every failure — unknown tool, server down, denied, timeout, disconnect mid-call — is
 * a tool error result, never a throw: the agent loop carries on (seed §6). Also runs the four
 * host tools for resources and prompts. Nothing a server's config holds secret reaches the agent:
 * results and error texts go through the server's redaction (`redaction.ts`).
 */
import type { CallToolOptions } from '../mcp/client.js';
import type { ServerCapabilities } from '../mcp/types.js';
import { decidePermission, type PermissionHook } from './permissions.js';
import { hostToolError, promptGetResult, promptsListResult, resourceReadResult, resourcesListResult } from './host-tool-results.js';
import { isHostToolName, parseHostToolArgs, type HostToolCall } from './host-tools.js';
import { errorText, type ServerSlot } from './server-slot.js';
import { sanitizeText } from './text.js';
import { boundToolResult, redactData, redactToolResult, type BoundOptions, type ToolResultForAgent } from './tool-result.js';
import type { ToolCatalog } from './tools.js';

/** What a call needs from the host. */
export interface CallContext {
  catalog: ToolCatalog;
  slots: ReadonlyMap<string, ServerSlot>;
  permission: PermissionHook | 'allow' | undefined;
  bound: BoundOptions;
}

/**
 * Options of one agent tool call. A task-required tool runs as a task (basic/utilities/tasks):
 * still one awaited result; `onTaskStatus` sees its status changes, aborting sends `tasks/cancel`.
 */
export type AgentCallOptions = Pick<CallToolOptions, 'signal' | 'timeoutMs' | 'onProgress' | 'onTaskStatus'>;

/** Runs one agent tool call by public name (see the module comment). */
export async function executeToolCall(ctx: CallContext, publicName: string, args: unknown, options: AgentCallOptions = {}): Promise<ToolResultForAgent> {
  if (isHostToolName(publicName)) return executeHostTool(ctx, publicName, args, options);
  const entry = ctx.catalog.byName.get(publicName);
  if (entry === undefined) return hostToolError(`unknown tool "${sanitizeText(publicName, 128, true)}"`);
  const origin = `${entry.server}/${sanitizeText(entry.tool.name, 128, true)}`;
  const slot = ctx.slots.get(entry.server);
  const client = slot?.state === 'ready' ? slot.client : undefined;
  if (slot === undefined || client === undefined) return hostToolError(`MCP server "${entry.server}" is not connected (${slot?.state ?? 'unknown'})`);
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return hostToolError(`MCP tool ${origin}: arguments must be a JSON object`);
  const decision = await decidePermission(
    { server: entry.server, tool: entry.tool.name, publicName, arguments: args as Record<string, unknown>, annotations: entry.tool.annotations, signal: options.signal },
    slot.server.config.permissions,
    ctx.permission,
  );
  if (!decision.allowed) return hostToolError(`permission denied for MCP tool ${origin} (${decision.reason})`);
  // The HTTP session id is a bearer credential of this server: never the agent's to see.
  slot.redaction.addSecrets([(client as { sessionId?: string }).sessionId]);
  try {
    const result = await client.callTool(entry.tool.name, args as Record<string, unknown>, {
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? slot.server.config.requestTimeoutMs,
      onProgress: options.onProgress,
      onTaskStatus: options.onTaskStatus,
    });
    return boundToolResult(redactToolResult(result, slot.redaction), ctx.bound);
  } catch (err) {
    return hostToolError(`MCP tool ${origin} failed: ${errorText(err, slot.redaction.text)}`);
  }
}

async function executeHostTool(ctx: CallContext, name: string, args: unknown, options: AgentCallOptions): Promise<ToolResultForAgent> {
  const parsed = parseHostToolArgs(name, args);
  if (!parsed.ok) return hostToolError(parsed.error);
  const call = parsed.call;
  try {
    return await runHostTool(ctx, call, options);
  } catch (err) {
    // Which server failed is not known here: every server's secrets are taken out.
    return hostToolError(`${call.tool} failed: ${errorText(err, (s) => [...ctx.slots.values()].reduce((t, slot) => slot.redaction.text(t), s))}`);
  }
}

async function runHostTool(ctx: CallContext, call: HostToolCall, options: AgentCallOptions): Promise<ToolResultForAgent> {
  const feature = call.tool === 'mcp_resources_list' || call.tool === 'mcp_resource_read' ? 'resources' : 'prompts';
  const targets = pickServers(ctx, call.server, feature);
  if (typeof targets === 'string') return hostToolError(targets);
  for (const s of targets) s.redaction.addSecrets([(s.client as { sessionId?: string } | undefined)?.sessionId]);
  const req = (slot: ServerSlot) => ({ signal: options.signal, timeoutMs: options.timeoutMs ?? slot.server.config.requestTimeoutMs });
  switch (call.tool) {
    case 'mcp_resources_list': {
      const { ok, failed } = await eachServer(targets, async (s) => ({
        server: s.server.id,
        resources: redactData(await s.client!.listResources(req(s)), s.redaction),
        templates: redactData(s.client!.listResourceTemplates ? await s.client!.listResourceTemplates(req(s)).catch(() => []) : [], s.redaction),
      }));
      return withFailures(resourcesListResult(ok, { ...ctx.bound, cursor: call.cursor }), failed, targets.length);
    }
    case 'mcp_prompts_list': {
      const { ok, failed } = await eachServer(targets, async (s) => ({ server: s.server.id, prompts: redactData(await s.client!.listPrompts(req(s)), s.redaction) }));
      return withFailures(promptsListResult(ok, { ...ctx.bound, cursor: call.cursor }), failed, targets.length);
    }
    case 'mcp_resource_read':
      return resourceReadResult(call.server, call.uri, redactData(await targets[0].client!.readResource(call.uri, req(targets[0])), targets[0].redaction), ctx.bound);
    case 'mcp_prompt_get':
      return promptGetResult(call.server, call.name, redactData(await targets[0].client!.getPrompt(call.name, call.arguments, req(targets[0])), targets[0].redaction), ctx.bound);
  }
}

/** Runs `fn` on every server; one server failing does not fail the others. */
async function eachServer<T>(slots: ServerSlot[], fn: (s: ServerSlot) => Promise<T>): Promise<{ ok: T[]; failed: string[] }> {
  const settled = await Promise.allSettled(slots.map(fn));
  const ok: T[] = [];
  const failed: string[] = [];
  settled.forEach((r, i) => (r.status === 'fulfilled' ? ok.push(r.value) : failed.push(`${slots[i].server.id}: ${errorText(r.reason, slots[i].redaction.text)}`)));
  return { ok, failed };
}

/** Notes the servers whose listing failed; an error result when all of them failed. */
function withFailures(result: ToolResultForAgent, failed: string[], total: number): ToolResultForAgent {
  if (failed.length === 0) return result;
  if (failed.length === total) return hostToolError(`listing failed on every server: ${failed.join('; ')}`);
  result.content.push({ type: 'text', text: `[mcpwire: listing failed on ${failed.length} server(s): ${failed.join('; ')}]` });
  return result;
}

/** The ready servers offering `feature` (one when `id` is given), or why there are none. */
function pickServers(ctx: CallContext, id: string | undefined, feature: keyof ServerCapabilities & ('resources' | 'prompts')): ServerSlot[] | string {
  const offers = (s: ServerSlot) => s.state === 'ready' && s.client !== undefined && s.client.serverCapabilities?.[feature] !== undefined;
  if (id !== undefined) {
    const slot = ctx.slots.get(id);
    if (slot === undefined) return `unknown MCP server "${sanitizeText(id, 64, true)}"`;
    if (slot.state !== 'ready' || slot.client === undefined) return `MCP server "${id}" is not connected (${slot.state})`;
    if (!offers(slot)) return `MCP server "${id}" does not offer ${feature}`;
    return [slot];
  }
  return [...ctx.slots.values()].filter(offers).sort((a, b) => (a.server.id < b.server.id ? -1 : 1));
}
