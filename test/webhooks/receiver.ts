/** A local webhook receiver for tests: records every request and answers as the test says. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  atMs: number;
}

export type Answer = number | "hang";

export class Receiver {
  readonly received: Received[] = [];
  private server: ReturnType<typeof Bun.serve> | null = null;
  private hanging: (() => void)[] = [];
  /** answers in order; the last repeats */
  answers: Answer[] = [200];
  inFlight = 0;
  maxInFlight = 0;
  /** how long a 2xx takes, to make concurrency observable */
  delayMs = 0;

  get url(): string {
    return `http://127.0.0.1:${this.server!.port}/hook`;
  }

  start(): this {
    this.server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      idleTimeout: 0,
      fetch: async (request) => {
        const body = await request.text();
        const headers: Record<string, string> = {};
        request.headers.forEach((value, key) => {
          headers[key] = value;
        });
        this.received.push({ headers, body, atMs: Date.now() });
        const answer = this.answers.length > 1 ? this.answers.shift()! : this.answers[0]!;
        this.inFlight += 1;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        try {
          if (answer === "hang") {
            await new Promise<void>((resolve) => this.hanging.push(resolve));
            return new Response("late", { status: 200 });
          }
          if (this.delayMs) await Bun.sleep(this.delayMs);
          return new Response(answer < 300 ? "ok" : "nope", { status: answer });
        } finally {
          this.inFlight -= 1;
        }
      },
    });
    return this;
  }

  async waitFor(count: number, timeoutMs = 5_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} webhook requests, got ${this.received.length}`);
      await Bun.sleep(10);
    }
    return this.received.slice(0, count);
  }

  async stop(): Promise<void> {
    for (const release of this.hanging.splice(0)) release();
    await this.server?.stop(true);
  }
}
