/**
 * "A person is answering a server's question right now": the elicitation prompt (elicit.ts)
 * says when it starts and ends, and a call's deadline (call-deadline.ts) listens, so a form
 * being typed on the terminal is never cut off by the call's request timeout. One CLI process
 * runs one command, so this is process-wide.
 */
type Listener = (answering: boolean) => void;

const listeners = new Set<Listener>();
let open = 0;

/** Tells the listeners a person started answering; the returned function says they stopped. */
export function startAnswering(): () => void {
  if (open++ === 0) for (const l of listeners) l(true);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--open === 0) for (const l of listeners) l(false);
  };
}

/** Calls `fn(true)` when a person starts answering and `fn(false)` when they are done; returns the unsubscribe. */
export function onAnswering(fn: Listener): () => void {
  listeners.add(fn);
  if (open > 0) fn(true);
  return () => listeners.delete(fn);
}
