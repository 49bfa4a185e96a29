/** `mcpwire mcp enable <id> [--scope project|global]`. */
import { setEnabledCommand } from '../mcp-enabled.js';

export default function mcpEnable(argv: string[]): Promise<number> {
  return setEnabledCommand(argv, true);
}
