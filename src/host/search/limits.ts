/**
 * Default and largest number of hits of one search: a module of their own, so that the host's
 * tool definitions and `mcpwire/host` read them without loading the index (tool-index.ts and its
 * vocabulary load on the first search).
 */
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;
