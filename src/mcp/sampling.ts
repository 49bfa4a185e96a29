/**
 * client/sampling: the checks around the host's `onSampling` handler.
 *
 * Before the handler sees a `sampling/createMessage` request (invalid → -32602 to the server):
 * - `tools`/`toolChoice` and tool-use/tool-result content only when the client declared
 *   `sampling.tools` (client.sampling#3, #4);
 * - a user message carrying tool results carries only tool results (client.sampling#8);
 * - every assistant message with `tool_use` blocks is followed by a user message of
 *   `tool_result` blocks answering each id (client.sampling#9);
 * - `includeContext` reaches the handler only when the client declared `sampling.context`
 *   (client.sampling#7; otherwise the client ignores it, which the schema allows).
 * After the handler answers: the result is a CreateMessageResult, and it honours `toolChoice`
 * (`required` → at least one tool use, `none` → none; client.sampling#10, #11); a handler that
 * breaks these gets -32603 to the server, never an invalid result.
 */
import { JsonRpcError } from '../errors.js';
import { ErrorCode } from '../jsonrpc/types.js';
import type { CreateMessageRequestParams, CreateMessageResult } from './types.js';

/** What the host's sampling handler supports beyond plain messages. */
export interface SamplingSupport {
  /** The handler runs tool loops: declares `sampling.tools`, accepts `tools`/`toolChoice`. */
  tools?: boolean;
  /** The handler honours `includeContext` ("thisServer"/"allServers"): declares `sampling.context`. */
  context?: boolean;
}

const invalid = (message: string): JsonRpcError => new JsonRpcError(ErrorCode.InvalidParams, message);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const PLAIN = new Set(['text', 'image', 'audio']);

/** The content of a message as a list of blocks. */
export function contentBlocks(content: unknown): Record<string, unknown>[] {
  const list = Array.isArray(content) ? content : [content];
  return list.filter(isObject);
}

function blockProblem(b: unknown, tools: boolean): string | undefined {
  if (!isObject(b) || typeof b.type !== 'string') return 'a content block has no "type"';
  if (b.type === 'text') return typeof b.text === 'string' ? undefined : 'a text block needs "text"';
  if (b.type === 'image' || b.type === 'audio') {
    return typeof b.data === 'string' && typeof b.mimeType === 'string' ? undefined : `an ${b.type} block needs "data" and "mimeType"`;
  }
  if (b.type === 'tool_use' || b.type === 'tool_result') {
    // client.sampling#3/#4: tool content only for a client that declared sampling.tools.
    if (!tools) return `"${b.type}" content needs the sampling.tools capability, which this client did not declare`;
    if (b.type === 'tool_use') {
      return typeof b.id === 'string' && typeof b.name === 'string' && isObject(b.input) ? undefined : 'a tool_use block needs "id", "name" and "input"';
    }
    return typeof b.toolUseId === 'string' && Array.isArray(b.content) ? undefined : 'a tool_result block needs "toolUseId" and "content"';
  }
  return `content type "${b.type}" is not allowed in sampling messages`;
}

function messageProblem(m: unknown, i: number, tools: boolean): string | undefined {
  if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) return `messages[${i}] needs role "user" or "assistant"`;
  const raw = Array.isArray(m.content) ? m.content : [m.content];
  if (raw.length === 0) return `messages[${i}] has no content`;
  for (const b of raw) {
    const p = blockProblem(b, tools);
    if (p !== undefined) return `messages[${i}]: ${p}`;
  }
  const types = contentBlocks(m.content).map((b) => b.type);
  if (m.role === 'assistant' && types.includes('tool_result')) return `messages[${i}]: tool results belong in user messages`;
  if (m.role === 'user' && types.includes('tool_use')) return `messages[${i}]: tool uses belong in assistant messages`;
  // client.sampling#8: a user message with tool results contains ONLY tool results.
  if (types.includes('tool_result') && types.some((t) => t !== 'tool_result')) {
    return `messages[${i}]: tool results mixed with other content`;
  }
  return undefined;
}

/** client.sampling#9: each assistant tool_use turn is answered by the next message, id for id. */
function pairingProblem(messages: Record<string, unknown>[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const blocks = contentBlocks(messages[i].content);
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    const results = blocks.filter((b) => b.type === 'tool_result').map((b) => b.toolUseId as string);
    if (results.length > 0) {
      const prev = i > 0 ? contentBlocks(messages[i - 1].content).filter((b) => b.type === 'tool_use').map((b) => b.id) : [];
      const orphan = results.find((id) => !prev.includes(id));
      if (orphan !== undefined) return `messages[${i}]: tool result "${orphan}" answers no tool use of the message before`;
    }
    if (uses.length === 0) continue;
    const next = messages[i + 1];
    if (next === undefined || next.role !== 'user') return `Tool result missing in request: messages[${i}] uses tools and no user message of tool results follows`;
    const answered = new Set(contentBlocks(next.content).filter((b) => b.type === 'tool_result').map((b) => b.toolUseId));
    const missing = uses.find((id) => !answered.has(id));
    if (missing !== undefined) return `Tool result missing in request: tool use "${missing}" of messages[${i}] has no result`;
  }
  return undefined;
}

function toolsProblem(p: Record<string, unknown>, support: SamplingSupport): string | undefined {
  if (p.tools === undefined && p.toolChoice === undefined) return undefined;
  // client.sampling#3/#4: tool-enabled requests only to a client that declared sampling.tools.
  if (support.tools !== true) return 'tool-enabled sampling needs the sampling.tools capability, which this client did not declare';
  if (p.tools !== undefined) {
    if (!Array.isArray(p.tools)) return '"tools" must be a list';
    const bad = p.tools.findIndex((t) => !isObject(t) || typeof t.name !== 'string' || !isObject(t.inputSchema));
    if (bad >= 0) return `tools[${bad}] needs "name" and an "inputSchema" object`;
  }
  if (p.toolChoice !== undefined) {
    const mode = isObject(p.toolChoice) ? p.toolChoice.mode : 'x';
    if (mode !== undefined && mode !== 'auto' && mode !== 'none' && mode !== 'required') return `toolChoice.mode ${JSON.stringify(mode)} is not auto, none or required`;
  }
  return undefined;
}

/**
 * The request as the handler may see it, or a -32602 error. `includeContext` is dropped unless
 * the client declared `sampling.context` (the client MAY ignore it; the server SHOULD NOT send it).
 */
export function checkCreateMessageRequest(params: unknown, support: SamplingSupport): CreateMessageRequestParams {
  if (!isObject(params) || !Array.isArray(params.messages) || typeof params.maxTokens !== 'number') {
    throw invalid('sampling/createMessage needs "messages" and "maxTokens"');
  }
  const tools = support.tools === true;
  const problem =
    toolsProblem(params, support) ??
    params.messages.map((m, i) => messageProblem(m, i, tools)).find((x) => x !== undefined) ??
    pairingProblem(params.messages as Record<string, unknown>[]);
  if (problem !== undefined) throw invalid(problem);
  const ic = params.includeContext;
  if (ic !== undefined && ic !== 'none' && ic !== 'thisServer' && ic !== 'allServers') throw invalid(`includeContext ${JSON.stringify(ic)} is not none, thisServer or allServers`);
  const out = { ...params } as CreateMessageRequestParams;
  if (support.context !== true) delete out.includeContext;
  return out;
}

/** The handler's result, checked before it goes to the server (-32603 when it is not valid). */
export function checkCreateMessageResult(req: CreateMessageRequestParams, result: unknown, support: SamplingSupport): CreateMessageResult {
  const fail = (why: string) => new JsonRpcError(ErrorCode.InternalError, `the client produced an invalid sampling result: ${why}`);
  if (!isObject(result) || result.role !== 'assistant' || typeof result.model !== 'string' || result.content === undefined) {
    throw fail('it needs role "assistant", "model" and "content"');
  }
  const raw = Array.isArray(result.content) ? result.content : [result.content];
  for (const b of raw) {
    const p = blockProblem(b, support.tools === true);
    if (p !== undefined) throw fail(p);
  }
  const uses = contentBlocks(result.content).filter((b) => b.type === 'tool_use');
  const mode = isObject(req.toolChoice) ? req.toolChoice.mode : undefined;
  // client.sampling#10/#11: "required" → the model used a tool; "none" → it used none.
  if (uses.length > 0 && !Array.isArray(req.tools)) throw fail('the result uses a tool although the request offered none');
  if (mode === 'required' && uses.length === 0) throw fail('toolChoice "required" but the result uses no tool');
  if (mode === 'none' && uses.length > 0) throw fail('toolChoice "none" but the result uses a tool');
  if (contentBlocks(result.content).some((b) => b.type === 'tool_result')) throw fail('an assistant result cannot carry tool results');
  return result as CreateMessageResult;
}
