/**
 * `mcpwire prompts [<id>] [--json]`: `prompts/list` (all pages) of the configured servers (or of
 * `--stdio` / `--url`), with each prompt's arguments (`name`, `style?` — `?` when optional),
 * what `mcpwire prompt <id> <name> key=value…` takes. `--json`: an array of the Prompt objects,
 * each with `server` (from config).
 */
import type { Prompt } from '../../index.js';
import { browse } from '../browse.js';
import { cellText, safeText } from '../output.js';

/** `topic, style?` */
export function promptArgs(p: Prompt): string {
  return (p.arguments ?? []).map((a) => `${safeText(a.name, 64)}${a.required === true ? '' : '?'}`).join(', ');
}

export default function prompts(argv: string[]): Promise<number> {
  return browse<Prompt>(argv, {
    command: 'prompts',
    noun: 'prompts',
    capability: 'prompts',
    fetch: (client) => client.listPrompts(),
    columns: ['name', 'arguments', 'description'],
    row: (p) => [cellText(p.name, 80), promptArgs(p), cellText(p.description ?? '', 300)],
  });
}
