/**
 * What the client remembers of the server's tools from its listings: each tool's
 * `outputSchema` (structured results are checked against it, server/tools) and
 * `execution.taskSupport` (whether a call runs as a task, basic.utilities.tasks#5/#7). A changed
 * tool list (`notifications/tools/list_changed`) makes it all unknown again until the next listing.
 */
import type { TaskSupport, Tool } from './types.js';

export class ToolCatalog {
  private readonly outputSchemas = new Map<string, object>();
  /** Input schemas: the `x-mcp-header` annotations of a 2026-07-28 HTTP call (eras/http-modern.ts). */
  private readonly inputSchemas = new Map<string, unknown>();
  private readonly taskSupport = new Map<string, TaskSupport | undefined>();
  /** A whole listing (to its last page) has been seen since the last change. */
  private complete = false;

  /** One page of `tools/list`; `last`: it had no `nextCursor`. */
  page(tools: Tool[], last: boolean): void {
    for (const t of tools) this.remember(t);
    if (last) this.complete = true;
  }

  /** The tool list changed: a tool may have become task-required (basic.utilities.tasks#7). */
  changed(): void {
    this.complete = false;
    this.taskSupport.clear();
  }

  get listed(): boolean {
    return this.complete;
  }

  knows(name: string): boolean {
    return this.taskSupport.has(name);
  }

  taskSupportOf(name: string): TaskSupport | undefined {
    return this.taskSupport.get(name);
  }

  inputSchemaOf(name: string): unknown {
    return this.inputSchemas.get(name);
  }

  outputSchemaOf(name: string): object | undefined {
    return this.outputSchemas.get(name);
  }

  private remember(t: Tool): void {
    if (!t || typeof t.name !== 'string') return;
    const support = t.execution?.taskSupport;
    this.taskSupport.set(t.name, support === 'required' || support === 'optional' || support === 'forbidden' ? support : undefined);
    this.inputSchemas.set(t.name, t.inputSchema);
    if (t.outputSchema && typeof t.outputSchema === 'object') this.outputSchemas.set(t.name, t.outputSchema);
    else this.outputSchemas.delete(t.name);
  }
}
