/**
 * The RPC polling fallback, for deployments with only an RPC URL: every `pollMs` it does what the
 * stream's catch-up does (every watched account read again, every pending signature resolved
 * through the jobs' resolvers, every reading stored), so readings and confirmations stay at most
 * one poll old. Slower and costlier than the stream, and never wrong for lack of it.
 */
import { countProviderRequest } from "../src/chain/rpc";
import { log } from "../src/lib/log";
import { scrubErrorText } from "../src/lib/scrub";
import type { IndexerCore } from "./core";

export interface PollOptions {
  pollMs?: number;
  /** JSON-RPC URL, for the slot the state reports; the reads go through the chain ports */
  rpcUrl: string | null;
}

export class RpcPoller {
  connected = false;
  lastError: string | null = null;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly core: IndexerCore,
    private readonly o: PollOptions,
  ) {}

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = null;
        this.schedule(this.o.pollMs ?? 2_000);
      });
    }, ms);
  }

  private async tick(): Promise<void> {
    try {
      const slot = this.o.rpcUrl ? await currentSlot(this.o.rpcUrl) : null;
      if (slot !== null) this.core.noteHead(slot);
      await this.core.syncWatched();
      await this.core.catchUp(slot ?? this.core.headSlot);
      if (slot !== null) this.core.noteSlot(slot);
      if (!this.connected) log.info("indexer: polling over RPC", { tokens: this.core.tokenCount });
      this.connected = true;
    } catch (error) {
      this.connected = false;
      this.lastError = scrubErrorText(error);
      log.warn("indexer: poll failed", { error: this.lastError });
    }
  }
}

async function currentSlot(rpcUrl: string): Promise<bigint | null> {
  let text: string | null = null;
  try {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot", params: [{ commitment: "confirmed" }] }),
      signal: AbortSignal.timeout(5_000),
    });
    text = await res.text();
    countProviderRequest("getSlot", text);
    const body = JSON.parse(text) as { result?: number };
    return typeof body.result === "number" ? BigInt(body.result) : null;
  } catch {
    if (text === null) countProviderRequest("getSlot", null);
    // The slot is for the state report only; the poll itself goes on without it.
    return null;
  }
}
