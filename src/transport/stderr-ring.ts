/** A bounded ring of the last N bytes a server wrote to stderr, decoded only when asked. */
export class StderrRing {
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly capacity: number) {}

  push(chunk: Buffer): void {
    if (chunk.length >= this.capacity) {
      this.chunks = [chunk.subarray(chunk.length - this.capacity)];
      this.bytes = this.capacity;
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes - this.chunks[0].length >= this.capacity) {
      this.bytes -= this.chunks.shift()!.length;
    }
  }

  /**
   * The kept bytes as text, trimmed, with a leading partial UTF-8 character dropped and Windows
   * line ends (CRLF) as LF, so a tail reads the same whichever platform the server runs on.
   */
  text(): string {
    if (this.bytes === 0) return '';
    let buf = Buffer.concat(this.chunks, this.bytes);
    if (buf.length > this.capacity) buf = buf.subarray(buf.length - this.capacity);
    let start = 0;
    while (start < buf.length && start < 4 && (buf[start] & 0xc0) === 0x80) start++;
    return buf.toString('utf8', start).replace(/\r\n/g, '\n').trim();
  }
}
