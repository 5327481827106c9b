/**
 * @solana/kit against the command in its own process. kit sends `commitment: "finalized"` as no
 * commitment at all, since finalized is agave's default; its finalized reads are only right if the
 * node defaults to finalized too (kit's own default, for calls that name none, is confirmed). The
 * clock stands still (--slot-ms 0) and moves by localnet_advanceSlots, so processed and finalized
 * are apart by exactly 33 slots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { address, createSolanaRpc, lamports } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import { type ChainProcess, startChainProcess } from "./agave-process";

let chain: ChainProcess;
beforeAll(async () => {
  chain = await startChainProcess(["--slot-ms", "0"]);
});
afterAll(async () => {
  await chain?.stop();
});

const FINALIZED = { commitment: "finalized" } as const;

describe("@solana/kit finalized reads (sent with no commitment, agave's default)", () => {
  test("getSlot, getBlockHeight, getEpochInfo: finalized is 33 slots behind processed, and is the default", async () => {
    await chain.advance(50);
    const rpc = createSolanaRpc(chain.rpcUrl);
    const finalized = await rpc.getSlot(FINALIZED).send();
    const processed = await rpc.getSlot({ commitment: "processed" }).send();
    expect(processed - finalized).toBe(33n);
    // what kit sent: no commitment
    expect(BigInt((await chain.call("getSlot")).result)).toBe(finalized);
    const height = await rpc.getBlockHeight(FINALIZED).send();
    expect(await rpc.getBlockHeight({ commitment: "processed" }).send()).toBe(height + 33n);
    const epoch = await rpc.getEpochInfo(FINALIZED).send();
    expect(epoch.absoluteSlot).toBe(finalized);
    expect(epoch.blockHeight).toBe(height);
  });

  test("getLatestBlockhash: the finalized blockhash with its own lastValidBlockHeight", async () => {
    const rpc = createSolanaRpc(chain.rpcUrl);
    const byDefault = await rpc.getLatestBlockhash(FINALIZED).send();
    const processed = await rpc.getLatestBlockhash({ commitment: "processed" }).send();
    const height = await rpc.getBlockHeight(FINALIZED).send();
    expect(byDefault.context.slot).toBe(await rpc.getSlot(FINALIZED).send());
    expect(byDefault.value.blockhash).not.toBe(processed.value.blockhash);
    // a blockhash is valid for 150 blocks after the block that produced it
    expect(byDefault.value.lastValidBlockHeight).toBe(height + 150n);
    expect(processed.value.lastValidBlockHeight).toBe(height + 33n + 150n);
    expect((await rpc.isBlockhashValid(byDefault.value.blockhash, FINALIZED).send()).value).toBe(true);
    // the finalized node has not seen the newest blockhash yet
    expect((await rpc.isBlockhashValid(processed.value.blockhash, FINALIZED).send()).value).toBe(false);
    expect((await rpc.isBlockhashValid(processed.value.blockhash, { commitment: "processed" }).send()).value).toBe(
      true,
    );
  });

  test("getBalance: an airdrop shows at processed now, at finalized 33 slots later", async () => {
    const rpc = createSolanaRpc(chain.rpcUrl);
    const who = address(Keypair.generate().publicKey.toBase58());
    await rpc.requestAirdrop(who, lamports(2_000_000n)).send();
    expect((await rpc.getBalance(who, { commitment: "processed" }).send()).value).toBe(lamports(2_000_000n));
    expect((await rpc.getBalance(who, FINALIZED).send()).value).toBe(lamports(0n));
    expect((await rpc.getAccountInfo(who, FINALIZED).send()).value).toBeNull();
    await chain.advance(1);
    expect((await rpc.getBalance(who).send()).value).toBe(lamports(2_000_000n));
    expect((await rpc.getBalance(who, FINALIZED).send()).value).toBe(lamports(0n));
    await chain.advance(33);
    expect((await rpc.getBalance(who, FINALIZED).send()).value).toBe(lamports(2_000_000n));
    expect((await rpc.getAccountInfo(who, { ...FINALIZED, encoding: "base64" }).send()).value?.lamports).toBe(
      lamports(2_000_000n),
    );
  });

  test("minContextSlot above the asked commitment's slot is refused with -32016", async () => {
    const processed = (await chain.call("getSlot", [{ commitment: "processed" }])).result as number;
    const refused = await chain.call("getBalance", [chain.treasury, { minContextSlot: processed }]);
    expect(refused.error?.code).toBe(-32016);
    expect(refused.error?.message).toBe("Minimum context slot has not been reached");
    const ok = await chain.call("getBalance", [chain.treasury, { minContextSlot: processed, commitment: "processed" }]);
    expect(ok.result.context.slot).toBe(processed);
    expect((await chain.call("getSlot", [{ commitment: "recent" }])).error?.code).toBe(-32602);
  });
});
