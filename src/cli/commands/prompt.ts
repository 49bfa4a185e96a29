/**
 * `mcpwire prompt <id> <name> [--args '<json>'] [--json]`: `prompts/get` on a configured server
 * (or `mcpwire --stdio "<cmd>" | --url <url> prompt <name>` on an ad-hoc one). `--args` is a
 * JSON object of string values (the prompt's arguments; also `@file.json` or `-` for stdin), and
 * `key=value` pairs add to it. Prints the messages as `role: text`
 * lines; `--json` prints the GetPromptResult.
 */
import type { GetPromptResult, McpClient, Prompt } from '../../index.js';
import { argsText, parseJsonObject, UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { isKeyValue } from '../kv-args.js';
import { withOneServer } from '../config-client.js';
import { CliFailure, CONFIG_OPTIONS } from '../config-target.js';
import { printJson, safeText } from '../output.js';
import { didYouMean } from '../suggest.js';
import { adHocServer } from '../target.js';
import { promptArgs } from './prompts.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.prompt;

export default function prompt(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { args: { type: 'string' }, imports: CONFIG_OPTIONS.imports } }, async ({ values, positionals }, run) => {
    const adHoc = adHocServer(values) !== undefined;
    const fixed = adHoc ? 1 : 2;
    const [id, name] = adHoc ? [undefined, positionals[0]] : positionals;
    const pairs = positionals.slice(fixed);
    if (!name || positionals.length < fixed || isKeyValue(name) || pairs.some((p) => !isKeyValue(p))) throw new UsageError(USAGE);
    const raw: Record<string, unknown> = parseJsonObject(await argsText(values.args), '--args');
    for (const p of pairs) raw[p.slice(0, p.indexOf('='))] = p.slice(p.indexOf('=') + 1);
    const args: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw)) {
      if (typeof v !== 'string') throw new UsageError(`--args: prompt arguments are strings (argument "${safeText(k, 40)}" is not)`);
      args[k] = v;
    }
    const result: GetPromptResult = await withOneServer(values, id, run, async (client: McpClient, timeoutMs?: number) => {
      await checkPrompt(client, name, args, id);
      return client.getPrompt(name, args, timeoutMs === undefined ? {} : { timeoutMs });
    });
    if (values.json) {
      printJson(result);
      return 0;
    }
    if (result.description) process.stdout.write(`# ${safeText(result.description, 500)}\n`);
    for (const m of result.messages ?? []) {
      const c = m.content as { type: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string } };
      const body = c.type === 'text' ? (c.text ?? '') : c.type === 'resource' && typeof c.resource?.text === 'string' ? c.resource.text : `[${c.type}${c.mimeType ? ` ${safeText(c.mimeType, 80)}` : ''}]`;
      process.stdout.write(`${m.role}: ${body}\n`);
    }
    return 0;
  });
}

/**
 * Before `prompts/get`: the prompt must be listed ("did you mean" otherwise), its required
 * arguments given and every argument one it declares. A listing that fails leaves the decision
 * to the server.
 */
async function checkPrompt(client: McpClient, name: string, args: Record<string, string>, id: string | undefined): Promise<void> {
  if (client.serverCapabilities?.prompts === undefined) return;
  let list: Prompt[];
  try {
    list = await client.listPrompts();
  } catch {
    return;
  }
  const p = list.find((x) => x.name === name);
  if (p === undefined) {
    throw new CliFailure(`unknown prompt "${safeText(name, 128)}"${id ? ` on server "${id}"` : ''}${didYouMean(name, list.map((x) => x.name))} (list them: mcpwire prompts${id ? ` ${id}` : ''}); nothing was sent`);
  }
  const declared = (p.arguments ?? []).map((a) => a.name);
  const problems = [
    ...(p.arguments ?? []).filter((a) => a.required === true && !(a.name in args)).map((a) => `missing required argument "${safeText(a.name, 64)}"`),
    ...Object.keys(args).filter((k) => !declared.includes(k)).map((k) => `unknown argument "${safeText(k, 64)}"${didYouMean(k, declared)}`),
  ];
  if (problems.length > 0) {
    throw new UsageError(`invalid arguments for prompt "${safeText(name, 64)}": ${problems.join('; ')}; nothing was sent\n  usage: ${safeText(name, 64)} ${promptArgs(p) || '(no arguments)'}`);
  }
}
