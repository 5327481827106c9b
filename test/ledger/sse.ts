/** A small Server-Sent Events reader for tests: frames parsed as the EventSource spec reads them. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  retry?: string;
}

export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private readonly frames: SseFrame[] = [];

  constructor(readonly response: Response) {
    this.reader = response.body!.getReader();
  }

  /** The next frame that matches, waiting at most `timeoutMs`. */
  async next(match: (f: SseFrame) => boolean = (f) => f.data !== undefined, timeoutMs = 5_000): Promise<SseFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.frames.findIndex(match);
      if (index >= 0) return this.frames.splice(index, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no matching SSE frame in time");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), left))),
      ]);
      clearTimeout(timer);
      if (chunk === null) continue;
      if (chunk.done) throw new Error("the stream ended");
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      this.parse();
    }
  }

  /** `n` events, in the order received. */
  async events(n: number, timeoutMs = 5_000): Promise<SseFrame[]> {
    const out: SseFrame[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next(undefined, timeoutMs));
    return out;
  }

  /** Resolves false when no event arrives within `ms`. */
  async quietFor(ms: number): Promise<boolean> {
    try {
      await this.next(undefined, ms);
      return false;
    } catch {
      return true;
    }
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end < 0) return;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const frame: SseFrame = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) {
          frame.comment = line.slice(1).trim();
          continue;
        }
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
        else if (field === "id" || field === "event" || field === "retry") frame[field] = value;
      }
      this.frames.push(frame);
    }
  }
}
