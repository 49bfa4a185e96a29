/**
 * The host tools (`host-tools.ts`) run as agent tool calls: `mcp_result_read` pages through a
 * result cut for size (`result-pages.ts`); `mcp_resources_list` / `mcp_prompts_list` ask every
 * ready server offering the feature (one failing server does not fail the others);
 * `mcp_resource_read` / `mcp_prompt_get` ask one. Failures are typed error results, never throws,
 * and what the servers sent goes through their redaction like tool results do.
 */
import type { ServerCapabilities } from '../mcp/types.js';
import type { AgentCallOptions, CallContext } from './call-context.js';
import { hostToolError, promptGetResult, promptsListResult, resourceReadResult, resourcesListResult } from './host-tool-results.js';
import { parseHostToolArgs, type HostToolCall } from './host-tools.js';
import { classifyError, OUTCOME_CODES, typedResult, type HostCallResult } from './outcome.js';
import { defaultPageBytes } from './result-pages.js';
import { errorText, type ServerSlot } from './server-slot.js';
import { sanitizeText } from './text.js';
import { redactData, type ToolResultForAgent } from './tool-result.js';

/** Runs host tool `name` (see the module comment). */
export async function executeHostTool(ctx: CallContext, name: string, args: unknown, options: AgentCallOptions): Promise<HostCallResult> {
  const parsed = parseHostToolArgs(name, args);
  if (!parsed.ok) return typedResult(hostToolError(parsed.error), 'invalid_arguments', OUTCOME_CODES.invalidArguments);
  const call = parsed.call;
  if (call.tool === 'mcp_result_read') return readResult(ctx, call.resultId, call.cursor);
  // Which server failed is not known here: every server's secrets are taken out.
  const all = {
    text: (s: string) => [...ctx.slots.values()].reduce((t, slot) => slot.redaction.text(t), s),
    data: (s: string) => [...ctx.slots.values()].reduce((t, slot) => slot.redaction.data(t), s),
  };
  try {
    const r = await runHostTool(ctx, call, options);
    if ('outcome' in r) return r as HostCallResult;
    return typedResult(r, r.isError ? 'tool_error' : 'ok', r.isError ? OUTCOME_CODES.toolError : OUTCOME_CODES.ok, { attempts: 1, ...(call.server !== undefined ? { server: call.server } : {}) });
  } catch (err) {
    const c = classifyError(err, all);
    const extra: Partial<HostCallResult> = { attempts: 1, ...(call.server !== undefined ? { server: call.server } : {}) };
    if (c.rpcError !== undefined) extra.rpcError = c.rpcError;
    return typedResult(hostToolError(`${call.tool} failed: ${errorText(err, all.text)}`), c.outcome, c.code, extra);
  }
}

/** `mcp_result_read`: one page of a result that was cut for size. */
function readResult(ctx: CallContext, id: string, cursor: string | undefined): HostCallResult {
  const store = ctx.state?.results;
  const page = store?.read(id, cursor, defaultPageBytes(ctx.bound)) ?? { error: `unknown result "${sanitizeText(id, 64, true)}"` };
  if ('error' in page) return typedResult(hostToolError(`mcp_result_read: ${sanitizeText(page.error, 300, true)}`), 'invalid_arguments', OUTCOME_CODES.invalidArguments);
  const content = [...page.content];
  const structuredContent: Record<string, unknown> = { resultId: id, server: page.server, tool: page.tool };
  if (page.nextCursor !== undefined) {
    structuredContent.nextCursor = page.nextCursor;
    content.push({ type: 'text', text: `[mcpwire: more of this result: call mcp_result_read with {"resultId":"${id}","cursor":"${page.nextCursor}"}]` });
  } else {
    content.push({ type: 'text', text: '[mcpwire: end of this result]' });
  }
  return typedResult({ content, structuredContent, isError: false }, 'ok', OUTCOME_CODES.ok, { server: page.server, tool: page.tool, resultId: id });
}

async function runHostTool(ctx: CallContext, call: Exclude<HostToolCall, { tool: 'mcp_result_read' }>, options: AgentCallOptions): Promise<ToolResultForAgent | HostCallResult> {
  const feature = call.tool === 'mcp_resources_list' || call.tool === 'mcp_resource_read' ? 'resources' : 'prompts';
  const targets = pickServers(ctx, call.server, feature);
  if (typeof targets === 'string') return typedResult(hostToolError(targets), 'unavailable', OUTCOME_CODES.unavailable, call.server !== undefined ? { server: call.server } : {});
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
function withFailures(result: ToolResultForAgent, failed: string[], total: number): ToolResultForAgent | HostCallResult {
  if (failed.length === 0) return result;
  if (failed.length === total) return typedResult(hostToolError(`listing failed on every server: ${failed.join('; ')}`), 'transport', 'MCPWIRE_LISTING_FAILED', { attempts: 1 });
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
