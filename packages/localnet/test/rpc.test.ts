import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  SendTransactionError,
  Transaction,
} from "@solana/web3.js";
import { startLocalChain, type LocalChain } from "../src/index";
import { startTestChain, signedTx } from "./helpers";

let chain: LocalChain;
let connection: Connection;

beforeEach(async () => {
  ({ chain, connection } = await startTestChain());
});
afterEach(async () => {
  await chain.stop();
});

describe("local chain JSON-RPC through web3.js Connection", () => {
  test("a transfer is sent, confirmed, and read back with getTransaction and getSignatureStatuses", async () => {
    const to = Keypair.generate().publicKey;
    const before = BigInt(await connection.getBalance(chain.treasury.publicKey));
    const { tx, signature } = await signedTx(
      connection,
      [SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports: 1_234_567n })],
      chain.treasury,
    );
    expect(await connection.sendRawTransaction(tx.serialize(), { skipPreflight: false })).toBe(signature);

    const processed = await connection.getSignatureStatuses([signature]);
    expect(processed.value[0]?.confirmationStatus).toBe("processed");
    // as on a validator, getTransaction answers only once the slot reached the asked commitment
    expect(
      await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" }),
    ).toBeNull();
    chain.node.advanceSlots(1);
    const confirmed = await connection.getSignatureStatuses([signature], { searchTransactionHistory: true });
    expect(confirmed.value[0]?.confirmationStatus).toBe("confirmed");
    expect(confirmed.value[0]?.err).toBeNull();

    expect(await connection.getBalance(to)).toBe(1_234_567);
    expect(BigInt(await connection.getBalance(chain.treasury.publicKey))).toBe(before - 1_234_567n - 5000n);

    const read = await connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(read?.meta?.err).toBeNull();
    expect(read?.meta?.fee).toBe(5000);
    expect(read?.transaction.signatures[0]).toBe(signature);
    const keys = read!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    const toIndex = keys.indexOf(to.toBase58());
    expect(read!.meta!.preBalances[toIndex]).toBe(0);
    expect(read!.meta!.postBalances[toIndex]).toBe(1_234_567);
    expect(read!.meta!.logMessages?.[0]).toContain("invoke [1]");
    expect(typeof read!.blockTime).toBe("number");

    const raw = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(raw?.slot).toBe(read!.slot);

    // base64 encoding round-trips to the same signed bytes
    const res = await fetch(chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "getTransaction",
        params: [signature, { encoding: "base64", maxSupportedTransactionVersion: 0, commitment: "confirmed" }],
      }),
    });
    const body = (await res.json()) as { result: { transaction: [string, string] } };
    expect(body.result.transaction[1]).toBe("base64");
    expect(Buffer.from(body.result.transaction[0], "base64").equals(Buffer.from(tx.serialize()))).toBe(true);

    // the RPC default commitment is finalized: 32 slots later
    const byDefault = (sig: string) =>
      fetch(chain.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "getTransaction",
          params: [sig, { maxSupportedTransactionVersion: 0 }],
        }),
      }).then((r) => r.json() as Promise<{ result: unknown }>);
    expect((await byDefault(signature)).result).toBeNull();
    chain.node.advanceSlots(32);
    expect((await byDefault(signature)).result).not.toBeNull();

    // beyond the status cache only a history search finds it
    chain.node.advanceSlots(301);
    expect((await connection.getSignatureStatuses([signature])).value[0]).toBeNull();
    expect(
      (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0]
        ?.confirmationStatus,
    ).toBe("finalized");
  }, 60_000);

  test("a transaction whose blockhash expired is refused and its signature is never found", async () => {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const { tx, signature } = await signedTx(
      connection,
      [
        SystemProgram.transfer({
          fromPubkey: chain.treasury.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 1000,
        }),
      ],
      chain.treasury,
    );
    expect(tx.message.recentBlockhash).toBe(blockhash);
    expect(lastValidBlockHeight).toBe((await connection.getBlockHeight()) + 150);

    chain.node.advanceSlots(150);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(true);
    chain.node.advanceSlots(1);
    expect(await connection.getBlockHeight()).toBeGreaterThan(lastValidBlockHeight);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(false);

    let error: unknown;
    try {
      await connection.sendRawTransaction(tx.serialize());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SendTransactionError);
    expect(String((error as Error).message)).toContain("Blockhash not found");

    // skipPreflight: the node answers with the signature, and the transaction never lands
    expect(await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true })).toBe(signature);
    chain.node.advanceSlots(3);
    expect(
      (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0],
    ).toBeNull();
    expect(await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 })).toBeNull();
  }, 60_000);

  test("the wallet-facing reads answer in web3.js shapes", async () => {
    expect(await connection.getMinimumBalanceForRentExemption(0)).toBe(890_880);
    expect(await connection.getMinimumBalanceForRentExemption(165)).toBe(2_039_280);
    const version = await connection.getVersion();
    expect(version["solana-core"]).toBeString();
    const slot = await connection.getSlot();
    chain.node.advanceSlots(2);
    expect(await connection.getSlot()).toBe(slot + 2);

    const who = Keypair.generate();
    const airdrop = await connection.requestAirdrop(who.publicKey, 2 * LAMPORTS_PER_SOL);
    expect((await connection.getSignatureStatuses([airdrop])).value[0]).not.toBeNull();
    expect(await connection.getBalance(who.publicKey)).toBe(2 * LAMPORTS_PER_SOL);

    const [a, b] = await connection.getMultipleAccountsInfo([who.publicKey, Keypair.generate().publicKey]);
    expect(a?.lamports).toBe(2 * LAMPORTS_PER_SOL);
    expect(a?.owner.toBase58()).toBe(SystemProgram.programId.toBase58());
    expect(b).toBeNull();
    expect(await connection.getAccountInfo(Keypair.generate().publicKey)).toBeNull();

    const { tx } = await signedTx(
      connection,
      [SystemProgram.transfer({ fromPubkey: who.publicKey, toPubkey: chain.treasury.publicKey, lamports: 1 })],
      who,
    );
    expect((await connection.getFeeForMessage(tx.message)).value).toBe(5000);
    const sim = await connection.simulateTransaction(tx);
    expect(sim.value.err).toBeNull();
    expect(sim.value.logs?.length).toBeGreaterThan(0);
    // simulation changes nothing
    expect(await connection.getBalance(who.publicKey)).toBe(2 * LAMPORTS_PER_SOL);

    // a wallet's legacy transaction, sent the way web3.js sends one
    const legacy = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: who.publicKey, toPubkey: chain.treasury.publicKey, lamports: 1_000 }),
    );
    const legacySig = await connection.sendTransaction(legacy, [who]);
    chain.node.advanceSlots(1);
    const read = await connection.getTransaction(legacySig, { maxSupportedTransactionVersion: 0 });
    expect(read?.version).toBe("legacy");
    expect(read?.meta?.err).toBeNull();
    expect(await connection.getBalance(who.publicKey)).toBe(2 * LAMPORTS_PER_SOL - 1_000 - 5_000);
  }, 60_000);

  test("a failed transaction lands with its error and charges the fee", async () => {
    const poor = Keypair.generate();
    await connection.requestAirdrop(poor.publicKey, 1_000_000);
    const { tx, signature } = await signedTx(
      connection,
      [SystemProgram.transfer({ fromPubkey: poor.publicKey, toPubkey: chain.treasury.publicKey, lamports: 5_000_000 })],
      poor,
    );
    await expect(connection.sendRawTransaction(tx.serialize())).rejects.toThrow("custom program error: 0x1");
    expect((await connection.getSignatureStatuses([signature])).value[0]).toBeNull();
    await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    chain.node.advanceSlots(1);
    const st = (await connection.getSignatureStatuses([signature])).value[0];
    expect(st?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await connection.getBalance(poor.publicKey)).toBe(1_000_000 - 5000);
  }, 60_000);

  test("the recorded fee is what the payer paid, priority fee included, and getFeeForMessage agrees", async () => {
    const before = BigInt(await connection.getBalance(chain.treasury.publicKey));
    const { tx, signature } = await signedTx(
      connection,
      [
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 50_000 }),
        SystemProgram.transfer({
          fromPubkey: chain.treasury.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 1_000_000n,
        }),
      ],
      chain.treasury,
    );
    const quoted = (await connection.getFeeForMessage(tx.message)).value;
    await connection.sendRawTransaction(tx.serialize());
    chain.node.advanceSlots(1);
    const fee = (await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))!.meta!.fee;
    expect(fee).toBe(5000 + 300); // two builtin instructions budget 6,000 units at 0.05 lamports each
    expect(quoted).toBe(fee);
    expect(BigInt(await connection.getBalance(chain.treasury.publicKey))).toBe(before - 1_000_000n - BigInt(fee));
  }, 60_000);

  test("getSignaturesForAddress pages newest first", async () => {
    const who = Keypair.generate();
    const sigs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { tx, signature } = await signedTx(
        connection,
        [
          SystemProgram.transfer({
            fromPubkey: chain.treasury.publicKey,
            toPubkey: who.publicKey,
            lamports: 1_000_000 + i,
          }),
        ],
        chain.treasury,
      );
      await connection.sendRawTransaction(tx.serialize());
      chain.node.advanceSlots(1);
      sigs.push(signature);
    }
    const all = await connection.getSignaturesForAddress(who.publicKey);
    expect(all.map((s) => s.signature)).toEqual([...sigs].reverse());
    expect(all[0]?.confirmationStatus).toBe("confirmed");
    const page = await connection.getSignaturesForAddress(who.publicKey, { before: sigs[2]!, limit: 1 });
    expect(page.map((s) => s.signature)).toEqual([sigs[1]!]);
  }, 60_000);

  test("a landed transaction whose full record was forgotten still has its status", async () => {
    const small = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, txHistoryLimit: 2 });
    try {
      const c = new Connection(small.rpcUrl, "confirmed");
      const sigs: string[] = [];
      for (let i = 0; i < 4; i++) {
        const { tx, signature } = await signedTx(
          c,
          [
            SystemProgram.transfer({
              fromPubkey: small.treasury.publicKey,
              toPubkey: Keypair.generate().publicKey,
              lamports: 1_000_000,
            }),
          ],
          small.treasury,
        );
        await c.sendRawTransaction(tx.serialize());
        sigs.push(signature);
      }
      small.node.advanceSlots(1);
      expect(await c.getTransaction(sigs[0]!, { maxSupportedTransactionVersion: 0 })).toBeNull();
      expect(await c.getTransaction(sigs[3]!, { maxSupportedTransactionVersion: 0 })).not.toBeNull();
      const st = await c.getSignatureStatuses(sigs, { searchTransactionHistory: true });
      expect(st.value.map((v) => v?.confirmationStatus)).toEqual(["confirmed", "confirmed", "confirmed", "confirmed"]);
    } finally {
      await small.stop();
    }
  }, 60_000);

  test("over HTTP: health, 405 for other verbs, 413 past 5 MB, a parse error, and addresses refused as PublicKey refuses them", async () => {
    const health = await fetch(`${chain.rpcUrl}/health`);
    expect([health.status, await health.text()]).toEqual([200, "ok"]);
    expect((await fetch(chain.rpcUrl, { method: "PUT" })).status).toBe(405);
    const big = await fetch(chain.rpcUrl, { method: "POST", body: "x".repeat(5 * 1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    const bad = await fetch(chain.rpcUrl, { method: "POST", body: "{not json" });
    expect((await bad.json()).error.code).toBe(-32700);

    const call = async (params: unknown[]) => {
      const res = await fetch(chain.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getMultipleAccounts", params }),
      });
      return res.json();
    };
    const funded = Keypair.generate().publicKey;
    await connection.requestAirdrop(funded, 5_000_000);
    const system = "11111111111111111111111111111111";
    const good = await call([
      [funded.toBase58(), Keypair.generate().publicKey.toBase58()],
      { encoding: "base64", commitment: "confirmed" },
    ]);
    expect(good.result.value[0].lamports).toBe(5_000_000);
    expect(good.result.value[0].owner).toBe(system);
    expect(good.result.value[1]).toBeNull();
    // 31 bytes, 33 bytes (45 characters: an address of 43 with one more could still spell 32), not
    // base58, not a string: each refused as new PublicKey refuses it.
    for (const wrong of [system.slice(1), funded.toBase58().padEnd(45, "2"), "0OIl".repeat(8), 42]) {
      const answer = await call([[funded.toBase58(), wrong]]);
      expect(answer.error).toEqual({ code: -32602, message: "Invalid param: Invalid" });
    }
  });

  test("a missing or bad signature is refused like a validator's RPC refuses it", async () => {
    const other = Keypair.generate();
    const { tx } = await signedTx(
      connection,
      [SystemProgram.transfer({ fromPubkey: other.publicKey, toPubkey: chain.treasury.publicKey, lamports: 1 })],
      chain.treasury,
    );
    await expect(connection.sendRawTransaction(tx.serialize())).rejects.toThrow("signature verification failure");
    // agave verifies signatures in preflight only: skipped, the send answers and the leader drops it
    const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    chain.node.advanceSlots(1);
    expect((await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value).toEqual([
      null,
    ]);
  }, 60_000);
});
