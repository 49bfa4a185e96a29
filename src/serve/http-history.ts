/**
 * The byte budget of the Streamable HTTP sessions' resumption history (http-session.ts), shared
 * by every session of one listener: a session keeps its own bound, and all of them together
 * keep this one. Each event counts the length of its JSON text (a one-byte string's size in
 * memory; counting it costs nothing per message, unlike measuring UTF-8).
 *
 * When an event takes the total over the bound, the session that added it gives up its own
 * oldest history first (a session filling the budget pays for it), then the other sessions in
 * the order they joined, until the total is back under.
 */

/** A session's history, as the budget sees it. */
export interface HistoryHolder {
  /** Frees history, oldest first, until `bytes` are freed or nothing is left to free. */
  shed(bytes: number): void;
}

/** Default bounds: per session, and for every session of a listener together. */
export const SESSION_HISTORY_BYTES = 4 * 1024 * 1024;
export const TOTAL_HISTORY_BYTES = 64 * 1024 * 1024;

export class HistoryBudget {
  /** History bytes held by every session now. */
  bytes = 0;
  private readonly holders = new Set<HistoryHolder>();

  constructor(readonly max: number = TOTAL_HISTORY_BYTES) {}

  join(holder: HistoryHolder): void {
    this.holders.add(holder);
  }

  leave(holder: HistoryHolder): void {
    this.holders.delete(holder);
  }

  /** `bytes` more held by `from`; over the bound, history is shed (see the module comment). */
  charge(bytes: number, from: HistoryHolder): void {
    this.bytes += bytes;
    if (this.bytes <= this.max) return;
    from.shed(this.bytes - this.max);
    for (const h of this.holders) {
      if (this.bytes <= this.max) return;
      if (h !== from) h.shed(this.bytes - this.max);
    }
  }

  release(bytes: number): void {
    this.bytes -= bytes;
  }
}
