/** `mcpwire mcp disable <id> [--scope project|global]`. */
import { setEnabledCommand } from '../mcp-enabled.js';

export default function mcpDisable(argv: string[]): Promise<number> {
  return setEnabledCommand(argv, false);
}
