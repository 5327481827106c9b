/**
 * The node-side helpers for pump's coins (packages/localnet/src/pump-launch.ts), which the demo and the trade
 * simulator use: a coin created with pump's SDK is listed by the node, its buys leave the creator
 * fee in the curve's creator vault, the buy that completes the curve is followed by migrate, and
 * trades then go to the pool, whose creator vault collects the fee; the simulator trades pump's
 * coins beside the local program's. The node recovers its coins from a saved state.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";
import { type LocalChain, startLocalChain } from "../../src";
import { pumpMintsIn } from "../../src/native/pump";

const SOL = BigInt(LAMPORTS_PER_SOL);
let chain: LocalChain;

beforeAll(async () => {
  chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0 });
});
afterAll(async () => {
  await chain.stop();
});

describe("pump launch helpers", () => {
  test("create, buy on the curve, complete and migrate, then buy and sell on the pool", async () => {
    const pump = chain.pump!;
    const creator = Keypair.generate().publicKey;
    const created = await pump.createToken({
      name: "Helper",
      symbol: "HLP",
      uri: "https://example.org/h.json",
      creator,
    });
    expect(created.err).toBeNull();
    expect(chain.node.pumpMints()).toContain(created.mint);
    expect(pump.creatorOf(created.mint)).toBe(creator.toBase58());
    expect(pump.creatorOf(Keypair.generate().publicKey.toBase58())).toBeNull();

    const buyer = Keypair.generate();
    chain.node.fund(buyer.publicKey, 200n * SOL);
    const first = await pump.buy({ mint: created.mint, buyer, solInLamports: SOL });
    expect(first.err).toBeNull();
    expect(first.vault).toBe("curve");
    expect(first.tokens).toBe(pump.tokenBalance(created.mint, buyer.publicKey));
    expect(first.feeLamports).toBeGreaterThan(0n);
    expect(pump.migrated(created.mint)).toBe(false);

    // 100 SOL is past what the curve can take: the buy completes it and migrate follows.
    const big = await pump.buy({ mint: created.mint, buyer, solInLamports: 100n * SOL });
    expect(big.err).toBeNull();
    expect(pump.migrated(created.mint)).toBe(true);

    const onPool = await pump.buy({ mint: created.mint, buyer, solInLamports: SOL });
    expect(onPool.err).toBeNull();
    expect(onPool.vault).toBe("pool");
    expect(onPool.feeLamports).toBeGreaterThan(0n);
    const held = pump.tokenBalance(created.mint, buyer.publicKey);
    const sold = await pump.sell({ mint: created.mint, seller: buyer, tokensIn: held / 2n });
    expect(sold.err).toBeNull();
    expect(pump.tokenBalance(created.mint, buyer.publicKey)).toBe(held - held / 2n);
  }, 60_000);

  test("the simulator trades pump's coins, and the node finds them again in its state", async () => {
    const pump = chain.pump!;
    const created = await pump.createToken({
      name: "Traded",
      symbol: "TRD",
      uri: "https://example.org/t.json",
      creator: Keypair.generate().publicKey,
    });
    expect(created.err).toBeNull();
    chain.simulator.start({ tradesPerSecond: 1, traders: 2, mints: [created.mint], seed: 7 });
    chain.simulator.stop();
    const before = chain.simulator.stats.trades;
    for (let i = 0; i < 5; i++) chain.simulator.tradeOnce([created.mint]);
    await chain.simulator.settled();
    expect(chain.simulator.stats.trades).toBe(before + 5);
    expect(chain.simulator.stats.failed).toBe(0);
    expect(chain.simulator.stats.feesLamports).toBeGreaterThan(0n);
    // What a chain continued from its saved state rebuilds its list from.
    expect(pumpMintsIn(chain.node.knownAddresses(), (a) => chain.node.getAccount(a))).toEqual(chain.node.pumpMints());
  }, 60_000);
});

describe("create_v2's metadata sizes", () => {
  test("a coin whose mint grows to exactly a multisig's length (355 bytes) is paid for as Token-2022 pads it", async () => {
    // name 11 + symbol 4 + uri 22 characters: the mint with its metadata would be 355 bytes.
    const created = await chain.pump!.createToken({
      name: "Demo Harbor",
      symbol: "HRBR",
      uri: "local://demo/hrbr.json",
      creator: Keypair.generate().publicKey,
    });
    expect(created.err).toBeNull();
  });
});
