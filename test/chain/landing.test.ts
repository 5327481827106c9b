/**
 * Landing on a congested chain, at the sender (src/chain/rpc.ts with src/chain/landing.ts) against
 * a scripted node: what a transaction pays and asks for, where its sends go, and when an absence
 * proves it expired.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ComputeBudgetProgram, Keypair, SystemProgram, VersionedTransaction } from "@solana/web3.js";
import {
  DEFAULT_LANDING_SETTINGS,
  computeUnitLimitFor,
  percentileFee,
  priorityFeeLamports,
  PRICE_GROUP_MAX_ACCOUNTS,
  prepareShareFor,
  SIMULATE_SHAPE_EVERY,
  priorityPrice,
} from "../../src/chain/landing";
import { memoComputeUnits } from "../../src/chain/memo";
import { createRpcChain } from "../../src/chain/rpc";
import { context, type FakeRpc, startFakeRpc } from "./support/fake-rpc";

let fakes: FakeRpc[] = [];
afterEach(async () => {
  await Promise.all(fakes.map((f) => f.stop()));
  fakes = [];
});
const fake = () => {
  const f = startFakeRpc();
  fakes.push(f);
  return f;
};

const payer = Keypair.generate();
const blockhash = Keypair.generate().publicKey.toBase58();
const transfer = SystemProgram.transfer({
  fromPubkey: payer.publicKey,
  toPubkey: Keypair.generate().publicKey,
  lamports: 1n,
});
const KEY = { commandKey: { kind: "withdrawal", withdrawalId: 1 } } as const;

function budgetOf(wire: Uint8Array): { limit: number; price: bigint; count: number } {
  const tx = VersionedTransaction.deserialize(wire);
  const keys = tx.message.staticAccountKeys;
  let limit = -1;
  let price = -1n;
  let count = 0;
  for (const ix of tx.message.compiledInstructions) {
    if (!keys[ix.programIdIndex]!.equals(ComputeBudgetProgram.programId)) continue;
    count++;
    const data = Buffer.from(ix.data);
    if (data[0] === 2) limit = data.readUInt32LE(1);
    if (data[0] === 3) price = data.readBigUInt64LE(1);
  }
  return { limit, price, count };
}

/** A node that hands out a blockhash at slot 900, simulates at `units` and reports these fees. */
function marketNode(units: number | null, fees: number[]): FakeRpc {
  const f = fake();
  f.handle("getLatestBlockhash", () => ({
    result: { context: { slot: 900 }, value: { blockhash, lastValidBlockHeight: 1_150 } },
  }));
  f.handle("simulateTransaction", () =>
    units === null
      ? { error: { code: -32602, message: "simulation refused" } }
      : context({ err: null, logs: [], accounts: null, unitsConsumed: units, returnData: null }),
  );
  f.handle("getRecentPrioritizationFees", () => ({
    result: fees.map((prioritizationFee, i) => ({ slot: 800 + i, prioritizationFee })),
  }));
  return f;
}

const chainOver = (url: string, landing = {}) =>
  createRpcChain({ rpcUrl: url, timeoutMs: 2_000, retries: 1, backoffBaseMs: 1, landing, sleep: async () => {} });

describe("pricing and sizing", () => {
  test("the nearest-rank percentile of recent fees; nothing recent is 0", () => {
    const fees = [0n, 5n, 5n, 10n, 10n, 10n, 10n, 20n].map((x) => x * 1_000n);
    expect(percentileFee(fees, 75)).toBe(10_000n);
    expect(percentileFee(fees, 100)).toBe(20_000n);
    expect(percentileFee(fees, 50)).toBe(10_000n);
    expect(percentileFee([], 75)).toBe(0n);
  });

  test("clamped to the bounds, ×1.5 per replacement, and never over the per-transaction cap", () => {
    const settings = { ...DEFAULT_LANDING_SETTINGS, feeMinMicroLamports: 100n, feeMaxMicroLamports: 50_000n };
    const price = (market: bigint, attempt: number, limit = 10_000) =>
      priorityPrice({ marketMicroLamports: market, attempt, computeUnitLimit: limit, settings });
    expect(price(10n, 0)).toBe(100n);
    expect(price(10_000n, 0)).toBe(10_000n);
    expect(price(10_000n, 1)).toBe(15_000n);
    expect(price(10_000n, 2)).toBe(22_500n);
    expect(price(10_000n, 9)).toBe(50_000n);
    // A market that asks nothing still pays more on a replacement.
    expect(
      priorityPrice({ marketMicroLamports: 0n, attempt: 1, computeUnitLimit: 1, settings: DEFAULT_LANDING_SETTINGS }),
    ).toBe(1_500n);
    // Fees off: nothing, whatever the attempt.
    const off = { ...DEFAULT_LANDING_SETTINGS, feeMaxMicroLamports: 0n };
    expect(priorityPrice({ marketMicroLamports: 10_000n, attempt: 3, computeUnitLimit: 1, settings: off })).toBe(0n);
    // The cap binds price × limit: 1,000 lamports over 1,000,000 units is 1,000 µlamports a unit.
    const capped = { ...settings, feeCapLamports: 1_000n };
    const p = priorityPrice({
      marketMicroLamports: 40_000n,
      attempt: 0,
      computeUnitLimit: 1_000_000,
      settings: capped,
    });
    expect(p).toBe(1_000n);
    expect(priorityFeeLamports(p, 1_000_000)).toBeLessThanOrEqual(1_000n);
  });

  test("the unit limit is consumption plus 10% (at least 100), never under a floor, never over 1.4M", () => {
    expect(computeUnitLimitFor(450)).toBe(550);
    expect(computeUnitLimitFor(100_000)).toBe(110_000);
    expect(computeUnitLimitFor(450, 2_000)).toBe(2_000);
    expect(computeUnitLimitFor(1_390_000)).toBe(1_400_000);
  });
});

describe("prepare", () => {
  test("every transaction carries a limit sized by simulation and the market's price; budget instructions given are replaced", async () => {
    const node = marketNode(450, [5_000, 10_000, 10_000, 10_000]);
    const { sender } = chainOver(node.url);
    const given = [ComputeBudgetProgram.setComputeUnitLimit({ units: 999_999 }), transfer];
    const prepared = await sender.prepare(given, payer, [], { ...KEY, job: "payouts" });
    const budget = budgetOf(prepared.wire);
    expect(budget).toEqual({ limit: 550, price: 10_000n, count: 2 });
    expect(prepared.computeUnitLimit).toBe(550);
    expect(prepared.computeUnitPriceMicroLamports).toBe(10_000n);
    expect(prepared.sentFromSlot).toBe(900n);
    // The fees asked for are those of the accounts the transaction writes.
    const asked = node.requests.find((r) => r.method === "getRecentPrioritizationFees")!.params[0] as string[];
    expect(asked).toContain(payer.publicKey.toBase58());
    expect(asked).not.toContain(ComputeBudgetProgram.programId.toBase58());
  });

  test("transactions prepared together ask the blockhash and the price once, for all their accounts; one outside asks its own", async () => {
    const node = marketNode(450, [10_000]);
    const { sender } = chainOver(node.url);
    const asks = (method: string) => node.requests.filter((r) => r.method === method);
    const to = [Keypair.generate(), Keypair.generate(), Keypair.generate()].map((k) => k.publicKey);
    const pay = (toPubkey: (typeof to)[number]) =>
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey, lamports: 1n });
    const share = { maxAgeMs: 60_000, groups: [[payer.publicKey, to[0]!, to[1]!].map((k) => k.toBase58())] };
    // Three at once, as a run's batches go: one ask of each, shared by all three.
    const prepared = await Promise.all(
      [to[0]!, to[1]!, to[0]!].map((t, i) =>
        sender.prepare([pay(t)], payer, [], { commandKey: { kind: "withdrawal", withdrawalId: i + 1 }, share }),
      ),
    );
    expect(asks("getLatestBlockhash")).toHaveLength(1);
    expect(asks("getRecentPrioritizationFees")).toHaveLength(1);
    // The price was asked for every account the group writes, not only the first transaction's.
    expect(new Set(asks("getRecentPrioritizationFees")[0]!.params[0] as string[])).toEqual(new Set(share.groups[0]));
    expect(new Set(prepared.map((p) => p.signature)).size).toBe(3);
    for (const p of prepared) expect(budgetOf(p.wire).price).toBe(10_000n);
    // A transaction writing an account the group's price was not asked for asks its own.
    await sender.prepare([pay(to[2]!)], payer, [], { commandKey: { kind: "withdrawal", withdrawalId: 9 }, share });
    expect(asks("getRecentPrioritizationFees")).toHaveLength(2);
    expect(asks("getRecentPrioritizationFees")[1]!.params[0]).toContain(to[2]!.toBase58());
    expect(asks("getLatestBlockhash")).toHaveLength(1);
    // Past its age the group asks again; without a share every transaction asks.
    const stale = { ...share, maxAgeMs: 0 };
    await sender.prepare([pay(to[0]!)], payer, [], {
      commandKey: { kind: "withdrawal", withdrawalId: 10 },
      share: stale,
    });
    await Bun.sleep(2);
    await sender.prepare([pay(to[0]!)], payer, [], {
      commandKey: { kind: "withdrawal", withdrawalId: 11 },
      share: stale,
    });
    await sender.prepare([pay(to[0]!)], payer, [], { commandKey: { kind: "withdrawal", withdrawalId: 12 } });
    expect(asks("getLatestBlockhash")).toHaveLength(4);
  });

  test("a run's transactions are packed into groups of at most 128 written accounts: one price ask per group", async () => {
    const node = marketNode(450, [10_000]);
    const { sender } = chainOver(node.url);
    const asks = () => node.requests.filter((r) => r.method === "getRecentPrioritizationFees");
    // 100 transactions, each paying two new accounts: 201 accounts written in all, the payer's
    // included, so two groups (the payer and 63 transactions' 126 accounts, then the rest).
    const transactions = Array.from({ length: 100 }, () =>
      [Keypair.generate(), Keypair.generate()].map((k) =>
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: k.publicKey, lamports: 1n }),
      ),
    );
    const share = prepareShareFor(payer.publicKey.toBase58(), transactions);
    expect(share.groups.map((g) => g.length)).toEqual([127, 75]);
    for (const group of share.groups) {
      expect(group[0]).toBe(payer.publicKey.toBase58());
      expect(group.length).toBeLessThanOrEqual(PRICE_GROUP_MAX_ACCOUNTS);
    }
    await Promise.all(
      transactions.map((instructions, i) =>
        sender.prepare(instructions, payer, [], { commandKey: { kind: "withdrawal", withdrawalId: i + 1 }, share }),
      ),
    );
    expect(asks()).toHaveLength(2);
    // The two asks race (the prepares run together), so they are compared as sets, in no order.
    const sorted = (accounts: readonly string[]) => [...accounts].sort().join(",");
    expect(
      asks()
        .map((a) => sorted(a.params[0] as string[]))
        .sort(),
    ).toEqual(share.groups.map(sorted).sort());
    // A transaction that alone writes more than a group holds is in none: it asks its own.
    const wide = Array.from({ length: 130 }, () =>
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1n }),
    );
    expect(prepareShareFor(payer.publicKey.toBase58(), [wide, transactions[0]!]).groups).toEqual([
      [payer.publicKey.toBase58(), ...transactions[0]!.map((ix) => ix.keys[1]!.pubkey.toBase58())],
    ]);
  });

  test("one shape is simulated once in SIMULATE_SHAPE_EVERY transactions; the others take the most it consumed", async () => {
    const node = marketNode(450, []);
    let units = 450;
    node.handle("simulateTransaction", () =>
      context({ err: null, logs: [], accounts: null, unitsConsumed: units, returnData: null }),
    );
    const { sender } = chainOver(node.url);
    const simulations = () => node.requests.filter((r) => r.method === "simulateTransaction").length;
    const pay = (lamports: bigint) =>
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports });
    const limits: number[] = [];
    for (let i = 0; i < 2 * SIMULATE_SHAPE_EVERY - 1; i++) {
      // The second simulation of the shape finds it consuming more: the most seen sizes it after.
      if (i === SIMULATE_SHAPE_EVERY) units = 600;
      const prepared = await sender.prepare([pay(BigInt(i + 1))], payer, [], {
        // Ids of one memo length (the key's text is base 36): one shape.
        commandKey: { kind: "withdrawal", withdrawalId: 40 + i },
      });
      limits.push(prepared.computeUnitLimit!);
    }
    expect(simulations()).toBe(2);
    const limitOf = (consumed: number, n: number) => Array(n).fill(computeUnitLimitFor(consumed));
    expect(limits.slice(0, SIMULATE_SHAPE_EVERY)).toEqual(limitOf(450, SIMULATE_SHAPE_EVERY));
    expect(limits.slice(SIMULATE_SHAPE_EVERY)).toEqual(limitOf(600, SIMULATE_SHAPE_EVERY - 1));
    // Another shape (two transfers; a longer memo) is simulated on its own.
    await sender.prepare([pay(1n), pay(2n)], payer, [], { commandKey: { kind: "withdrawal", withdrawalId: 40 } });
    await sender.prepare([pay(1n)], payer, [], { commandKey: { kind: "withdrawal", withdrawalId: 1_000_000 } });
    expect(simulations()).toBe(4);
    // A floor (a limit that proved too low) still raises a remembered shape's limit.
    const floored = await sender.prepare([pay(3n)], payer, [], {
      commandKey: { kind: "withdrawal", withdrawalId: 41 },
      computeUnitFloor: 5_000,
    });
    expect(floored.computeUnitLimit).toBe(5_000);
    expect(simulations()).toBe(4);
  });

  test("a shared ask that fails is asked again by the next transaction of the group", async () => {
    const node = marketNode(450, [10_000]);
    let refuse = true;
    node.handle("getLatestBlockhash", () =>
      refuse
        ? { error: { code: -32005, message: "node is behind" } }
        : { result: { context: { slot: 900 }, value: { blockhash, lastValidBlockHeight: 1_150 } } },
    );
    const { sender } = chainOver(node.url);
    const share = { maxAgeMs: 60_000, groups: [[payer.publicKey.toBase58()]] };
    const first = await sender.prepare([transfer], payer, [], { ...KEY, share }).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(Error);
    refuse = false;
    const second = await sender.prepare([transfer], payer, [], { ...KEY, share });
    expect(second.lastValidBlockHeight).toBe(1_150n);
  });

  test("a replacement pays the next step; a floor raises the limit; no simulation falls back to the limit given", async () => {
    const node = marketNode(450, [10_000]);
    const { sender } = chainOver(node.url);
    const second = await sender.prepare([transfer], payer, [], { ...KEY, attempt: 2, computeUnitFloor: 1_100 });
    expect(budgetOf(second.wire)).toEqual({ limit: 1_100, price: 22_500n, count: 2 });

    const blind = marketNode(null, [10_000]);
    const given = [ComputeBudgetProgram.setComputeUnitLimit({ units: 80_000 }), transfer];
    const prepared = await chainOver(blind.url).sender.prepare(given, payer, [], KEY);
    // The limit given, plus what the command key's memo ("fl1:w:1", 7 bytes) costs.
    expect(budgetOf(prepared.wire).limit).toBe(80_000 + memoComputeUnits(7));
  });

  test("fees turned off: the price instruction asks for 0 and the fees are not even read", async () => {
    const node = marketNode(450, [10_000]);
    const prepared = await chainOver(node.url, { feeMaxMicroLamports: 0n }).sender.prepare([transfer], payer, [], KEY);
    expect(budgetOf(prepared.wire).price).toBe(0n);
    expect(node.requests.some((r) => r.method === "getRecentPrioritizationFees")).toBe(false);
  });
});

describe("send", () => {
  test("the same bytes go to RPC_URL and every send endpoint, with no node retries; one accepting is enough", async () => {
    const primary = marketNode(450, []);
    const staked = fake();
    primary.handle("sendTransaction", () => ({ status: 503 }));
    staked.handle("sendTransaction", (params) => ({
      result: VersionedTransaction.deserialize(Buffer.from(params[0] as string, "base64")).signatures.length,
    }));
    const { sender } = chainOver(primary.url, { sendUrls: [staked.url] });
    const prepared = await sender.prepare([transfer], payer, [], KEY);
    await sender.send(prepared);
    const sent = [...primary.requests, ...staked.requests].filter((r) => r.method === "sendTransaction");
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const r of sent) {
      expect(r.params[0]).toBe(Buffer.from(prepared.wire).toString("base64"));
      expect(r.params[1]).toMatchObject({ encoding: "base64", skipPreflight: true, maxRetries: 0 });
    }
    // Every endpoint refusing is an error the job logs (the rebroadcast and the outcome follow).
    staked.handle("sendTransaction", () => ({ status: 503 }));
    await expect(sender.send(prepared)).rejects.toThrow();
  });
});

describe("outcome: expiry only from a history that covers the send", () => {
  /** One node: finalized height 200 (past 150), the signature absent, history from `floor`. */
  function absentFrom(floor: { minimumLedgerSlot: unknown; firstAvailableBlock: unknown }): FakeRpc {
    const f = fake();
    f.handle("getEpochInfo", () => ({
      result: { absoluteSlot: 5_000, blockHeight: 200, epoch: 0, slotIndex: 0, slotsInEpoch: 1, transactionCount: 0 },
    }));
    f.handle("getSignatureStatuses", () => ({ result: { context: { slot: 5_010 }, value: [null] } }));
    f.handle("minimumLedgerSlot", () =>
      floor.minimumLedgerSlot === "error"
        ? { error: { code: -32601, message: "no" } }
        : { result: floor.minimumLedgerSlot },
    );
    f.handle("getFirstAvailableBlock", () =>
      floor.firstAvailableBlock === "error"
        ? { error: { code: -32601, message: "no" } }
        : { result: floor.firstAvailableBlock },
    );
    return f;
  }

  /**
   * The finalized blocks from slot 4,200 (height 100), none skipped: block s has parent s - 1 and
   * height s - 4,100, and holds `holder(s)`'s signatures; `listed` may leave slots out.
   */
  function withBlocks(
    f: FakeRpc,
    options: { holder?: (slot: number) => string[]; listed?: (slot: number) => boolean; missing?: number } = {},
  ): void {
    f.handle("getBlocks", (p) => {
      const [from, to] = p as [number, number];
      const slots = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      return { result: slots.filter((s) => s <= 5_000 && (options.listed?.(s) ?? true)) };
    });
    f.handle("getBlock", (p) => {
      const slot = p[0] as number;
      if (slot === options.missing)
        return {
          error: {
            code: -32007,
            message: `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`,
          },
        };
      return { result: { parentSlot: slot - 1, blockHeight: slot - 4_100, signatures: options.holder?.(slot) ?? [] } };
    });
  }

  test("history from before the send, and every block it could have landed in read without it: expired", async () => {
    const node = absentFrom({ minimumLedgerSlot: 4_000, firstAvailableBlock: 100 });
    withBlocks(node);
    expect(await chainOver(node.url).sender.outcome("sig", 150n, 4_200n)).toEqual({ kind: "expired" });
    // From the send's slot to the first block past height 150 (slot 4,251), once each.
    const read = node.requests.filter((r) => r.method === "getBlock").map((r) => r.params[0] as number);
    expect(read.sort((a, b) => a - b)).toEqual(Array.from({ length: 52 }, (_, i) => 4_200 + i));
    expect(node.requests.find((r) => r.method === "getBlock")!.params[1]).toMatchObject({
      commitment: "finalized",
      transactionDetails: "signatures",
      rewards: false,
    });
  });

  test("a block holding it, or a block no node serves, is no proof of absence: unknown", async () => {
    // The status search missed it (a history hole, a fanned-out batch), but block 4,230 holds it.
    const holding = absentFrom({ minimumLedgerSlot: 4_000, firstAvailableBlock: 100 });
    withBlocks(holding, { holder: (slot) => (slot === 4_230 ? ["a", "sig", "b"] : ["a"]) });
    const found = await chainOver(holding.url).sender.outcome("sig", 150n, 4_200n);
    expect(found.kind).toBe("unknown");
    expect((found as { reason: string }).reason).toContain("4230");
    // A node with a hole: slots 4,220 to 4,225 are neither listed nor served.
    const hole = absentFrom({ minimumLedgerSlot: 4_000, firstAvailableBlock: 100 });
    withBlocks(hole, { listed: (slot) => slot < 4_220 || slot > 4_225, missing: 4_225 });
    expect((await chainOver(hole.url).sender.outcome("sig", 150n, 4_200n)).kind).toBe("unknown");
  });

  test("slots the list left out are read through the blocks' parents", async () => {
    const node = absentFrom({ minimumLedgerSlot: 4_000, firstAvailableBlock: 100 });
    withBlocks(node, { listed: (slot) => slot < 4_220 || slot > 4_225 });
    expect(await chainOver(node.url).sender.outcome("sig", 150n, 4_200n)).toEqual({ kind: "expired" });
    const read = node.requests.filter((r) => r.method === "getBlock").map((r) => r.params[0] as number);
    for (let slot = 4_200; slot <= 4_251; slot++) expect(read).toContain(slot);
    // Each once; the list's six missing slots make it read at most as many past the end.
    expect(new Set(read).size).toBe(read.length);
    expect(read.length).toBeLessThanOrEqual(52 + 6);
  });

  test("history that starts after the send (either floor), or that cannot be read: unknown, never expired", async () => {
    const pruned = absentFrom({ minimumLedgerSlot: 4_500, firstAvailableBlock: 100 });
    const outcome = await chainOver(pruned.url).sender.outcome("sig", 150n, 4_200n);
    expect(outcome.kind).toBe("unknown");
    expect((outcome as { reason: string }).reason).toContain("4500");
    const archive = absentFrom({ minimumLedgerSlot: 10, firstAvailableBlock: 4_300 });
    expect((await chainOver(archive.url).sender.outcome("sig", 150n, 4_200n)).kind).toBe("unknown");
    const unreadable = absentFrom({ minimumLedgerSlot: "error", firstAvailableBlock: 0 });
    expect((await chainOver(unreadable.url).sender.outcome("sig", 150n, 4_200n)).kind).toBe("unknown");
    // Signed before the journal: counted from slot 0, so only a node with everything proves it.
    const recent = absentFrom({ minimumLedgerSlot: 1, firstAvailableBlock: 1 });
    expect((await chainOver(recent.url).sender.outcome("sig", 150n)).kind).toBe("unknown");
  });

  test("a provider that does not answer batches cannot tie the floor to the search: unknown", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const body = await req.json();
        if (Array.isArray(body))
          return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch not allowed" } });
        return Response.json({ jsonrpc: "2.0", id: body.id, result: null });
      },
    });
    try {
      const outcome = await chainOver(`http://127.0.0.1:${server.port}`).sender.outcome("sig", 150n, 4_200n);
      expect(outcome.kind).toBe("unknown");
    } finally {
      await server.stop(true);
    }
  });
});
