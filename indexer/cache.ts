/**
 * The accounts the indexer watches, as last seen, and a ChainReader over them. The launch-program
 * adapter computes readings through this reader exactly as it does through JSON-RPC (same code,
 * same decoding), so a stream update becomes a reading without a round trip to the node.
 *
 * Ordering: a stream update replaces the cached account only when it is at least as new (slot,
 * then write version); an RPC fill is written only if no stream update for that address arrived
 * while it was in flight and it is not older than the slot the stream already applied, so a
 * slow read or a replayed slot never moves an account backwards for long.
 */
import type { AccountSnapshot, ChainReader } from "../src/chain/ports";

interface Entry {
  snapshot: AccountSnapshot | null;
  slot: bigint;
  writeVersion: bigint;
  /** bumped by each stream write, so a concurrent RPC fill can tell it lost the race */
  seq: number;
}

export class AccountCache {
  private readonly entries = new Map<string, Entry>();
  hits = 0;
  misses = 0;

  constructor(private readonly rpc: ChainReader) {}

  get size(): number {
    return this.entries.size;
  }

  /** A stream update. False when it is older than what the cache holds. */
  applyStream(address: string, snapshot: AccountSnapshot | null, slot: bigint, writeVersion: bigint): boolean {
    const e = this.entries.get(address);
    if (e && (slot < e.slot || (slot === e.slot && writeVersion !== 0n && writeVersion < e.writeVersion))) return false;
    this.entries.set(address, { snapshot, slot, writeVersion, seq: (e?.seq ?? 0) + 1 });
    return true;
  }

  /**
   * Reads `addresses` over RPC and stores them, unless the stream wrote one meanwhile.
   * `atLeastSlot` is a slot the read's state is known to include (the stream head when it began).
   */
  async fill(addresses: readonly string[], atLeastSlot: bigint): Promise<void> {
    const before = new Map(addresses.map((a) => [a, this.entries.get(a)?.seq ?? 0]));
    const read = await this.rpc.getAccounts(addresses);
    for (const [address, snapshot] of read) {
      const e = this.entries.get(address);
      if ((e?.seq ?? 0) !== before.get(address)) continue;
      if (e && e.slot > atLeastSlot) continue;
      this.entries.set(address, { snapshot: live(snapshot), slot: atLeastSlot, writeVersion: 0n, seq: e?.seq ?? 0 });
    }
  }

  forget(address: string): void {
    this.entries.delete(address);
  }

  /** The adapter's reader: cached accounts from memory, the rest over RPC (and then cached). */
  reader(headSlot: () => bigint): ChainReader {
    const rpc = this.rpc;
    return {
      getAccounts: async (addresses) => {
        const out = new Map<string, AccountSnapshot | null>();
        const missing: string[] = [];
        for (const a of addresses) {
          const e = this.entries.get(a);
          if (e) out.set(a, e.snapshot);
          else missing.push(a);
        }
        this.hits += addresses.length - missing.length;
        if (missing.length > 0) {
          this.misses += missing.length;
          await this.fill(missing, headSlot());
          for (const a of missing) out.set(a, this.entries.get(a)?.snapshot ?? null);
        }
        return out;
      },
      getBalances: async (addresses) => {
        const accounts = await this.reader(headSlot).getAccounts(addresses);
        return new Map(addresses.map((a) => [a, accounts.get(a)?.lamports ?? 0n]));
      },
      getTransaction: (signature) => rpc.getTransaction(signature),
      getSignatureStatuses: (signatures, searchHistory) => rpc.getSignatureStatuses(signatures, searchHistory),
      getBlockHeight: () => rpc.getBlockHeight(),
      getLatestBlockhash: () => rpc.getLatestBlockhash(),
    };
  }
}

/** A zero-lamport account does not exist on chain; adapters test existence with a null. */
function live(snapshot: AccountSnapshot | null | undefined): AccountSnapshot | null {
  return snapshot && snapshot.lamports > 0n ? snapshot : null;
}
