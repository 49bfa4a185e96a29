/**
 * `mcpwire … call <tool> --args '<json>' [--json]`: calls a tool and prints its CallToolResult.
 * Progress goes to stderr (a bar on a TTY, plain lines otherwise). Exit code 1 when the tool
 * reports `isError: true` or the request fails.
 */
import { parse, parseJsonObject, UsageError } from '../args.js';
import { printJson, reportError, safeText } from '../output.js';
import { progressPrinter } from '../progress.js';
import { withClient } from '../target.js';

export default async function call(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv, { args: { type: 'string' } });
    const [name] = positionals;
    if (!name) throw new UsageError('usage: mcpwire --stdio "<cmd>" call <tool> [--args \'<json>\'] [--json]');
    const args = parseJsonObject(values.args, '--args');
    const progress = progressPrinter();
    const ac = new AbortController();
    const onSigint = () => ac.abort('interrupted (SIGINT)');
    process.once('SIGINT', onSigint);
    const result = await withClient(values, (client) =>
      client.callTool(name, args, { onProgress: progress.onProgress, signal: ac.signal }),
    ).finally(() => {
      process.off('SIGINT', onSigint);
      progress.done();
    });
    if (values.json) printJson(result);
    else {
      for (const block of result.content ?? []) {
        if (block.type === 'text') process.stdout.write(`${block.text}\n`);
        else process.stdout.write(`[${block.type}${'mimeType' in block ? ` ${safeText(block.mimeType)}` : ''}]\n`);
      }
      if (result.structuredContent !== undefined) process.stdout.write(`structuredContent: ${JSON.stringify(result.structuredContent)}\n`);
    }
    return result.isError ? 1 : 0;
  } catch (err) {
    reportError(err);
    return err instanceof UsageError ? 2 : 1;
  }
}
