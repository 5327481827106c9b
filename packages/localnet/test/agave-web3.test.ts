/**
 * @solana/web3.js (and @solana/spl-token) against the command in its own process, at 50 ms
 * slots: the reads, scans, token reads, history, blocks, fees, durable nonces and simulations a
 * project moving from solana-test-validator would call, answered in agave's shapes and errors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  NONCE_ACCOUNT_LENGTH,
  NonceAccount,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
  sendAndConfirmTransaction,
} from "@solana/web3.js";
import {
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  createMint,
  getOrCreateAssociatedTokenAccount,
  mintTo,
  approve,
} from "@solana/spl-token";
import bs58 from "bs58";
import { type ChainProcess, startChainProcess, until } from "./agave-process";

let chain: ChainProcess;
let connection: Connection;
let payer: Keypair;

beforeAll(async () => {
  chain = await startChainProcess(["--slot-ms", "50"]);
  connection = new Connection(chain.rpcUrl, { commitment: "confirmed", wsEndpoint: chain.wsUrl });
  payer = Keypair.generate();
  const sig = await connection.requestAirdrop(payer.publicKey, 100 * LAMPORTS_PER_SOL);
  await connection.confirmTransaction({ signature: sig, ...(await connection.getLatestBlockhash()) });
});
afterAll(async () => {
  // web3.js keeps reconnecting a socket whose server went away (a "ws error" a second, for as long
  // as the test worker lives), so the socket is closed first, normally, which ends the reconnects.
  try {
    (connection as unknown as { _rpcWebSocket: { close(): void } })._rpcWebSocket.close();
  } catch {}
  await chain?.stop();
});

async function send(instructions: Parameters<Transaction["add"]>, signers: Keypair[] = []): Promise<string> {
  return sendAndConfirmTransaction(connection, new Transaction().add(...instructions), [payer, ...signers], {
    commitment: "confirmed",
  });
}

describe("Connection reads", () => {
  test("the cluster: one validator, its vote account and leader slots, one epoch, no snapshot", async () => {
    const { identity } = (await chain.call("getIdentity")).result;
    expect(await connection.getSlotLeader()).toBe(identity);
    const slot = await connection.getSlot();
    expect(await connection.getSlotLeaders(slot, 3)).toEqual([1, 2, 3].map(() => new PublicKey(identity)));
    const votes = await connection.getVoteAccounts();
    expect(votes.current).toHaveLength(1);
    expect(votes.current[0]!.nodePubkey).toBe(identity);
    expect(votes.delinquent).toEqual([]);
    const nodes = await connection.getClusterNodes();
    expect(nodes[0]!.pubkey).toBe(identity);
    expect(nodes[0]!.rpc).toBe(new URL(chain.rpcUrl).host);
    const schedule = await connection.getEpochSchedule();
    expect(schedule.slotsPerEpoch).toBe(432_000);
    const leaderSchedule = await connection.getLeaderSchedule();
    expect(leaderSchedule[identity]).toHaveLength(432_000);
    expect((await connection.getVersion())["solana-core"]).toMatch(/^2\./);
    expect(await connection.getGenesisHash()).toBeString();
    expect((await connection.getStakeMinimumDelegation()).value).toBe(LAMPORTS_PER_SOL);
    expect((await connection.getInflationGovernor()).initial).toBe(0.08);
    expect((await connection.getInflationRate()).total).toBeGreaterThan(0);
    expect(await connection.getTransactionCount()).toBeGreaterThan(0);
    const supply = await connection.getSupply();
    expect(supply.value.total).toBeGreaterThan(100 * LAMPORTS_PER_SOL);
    expect((await connection.getLargestAccounts()).value.length).toBeGreaterThan(0);
    const snapshot = await chain.call("getHighestSnapshotSlot");
    expect(snapshot.error).toEqual({ code: -32008, message: "No snapshot" });
    expect(await connection.getFirstAvailableBlock()).toBe(await connection.getMinimumLedgerSlot());
    const production = await connection.getBlockProduction();
    const [leaderSlots, produced] = production.value.byIdentity[identity]!;
    expect(leaderSlots).toBe(produced);
    expect(await chain.call("getHealth")).toMatchObject({ result: "ok" });
    const processed = await connection.getSlot("processed");
    expect((await chain.call("getMaxRetransmitSlot")).result).toBeGreaterThanOrEqual(processed);
    expect((await chain.call("getMaxShredInsertSlot")).result).toBeGreaterThanOrEqual(processed);
    // no epoch of a local chain has ended: no rewards were paid
    expect(await connection.getInflationReward([payer.publicKey])).toEqual([null]);
    expect((await chain.call("getBlockCommitment", [processed - 1])).result.commitment).toHaveLength(32);
    // methods agave 2.x removed answer as there
    expect((await chain.call("getRecentBlockhash")).error?.code).toBe(-32601);
  });

  test("a Connection without a commitment reads finalized, as against agave", async () => {
    const plain = new Connection(chain.rpcUrl);
    const who = Keypair.generate().publicKey;
    const sig = await connection.requestAirdrop(who, 3_000_000);
    await connection.confirmTransaction({ signature: sig, ...(await connection.getLatestBlockhash()) });
    expect(await connection.getBalance(who)).toBe(3_000_000);
    expect(await plain.getBalance(who)).toBe(0);
    await until("the airdrop finalized", async () => (await plain.getBalance(who)) === 3_000_000);
    // A block can finalize between two reads, so the height is read on both sides of the blockhash.
    const heightBefore = await plain.getBlockHeight();
    const { blockhash, lastValidBlockHeight } = await plain.getLatestBlockhash();
    const heightAfter = await plain.getBlockHeight();
    expect(lastValidBlockHeight - 150).toBeGreaterThanOrEqual(heightBefore);
    expect(lastValidBlockHeight - 150).toBeLessThanOrEqual(heightAfter);
    expect(await plain.isBlockhashValid(blockhash)).toBeTruthy();
  });
});

describe("tokens and program accounts", () => {
  let mint: PublicKey;
  let holder: Keypair;
  let account: PublicKey;
  let delegate: Keypair;

  beforeAll(async () => {
    holder = Keypair.generate();
    delegate = Keypair.generate();
    mint = await createMint(connection, payer, payer.publicKey, null, 6, undefined, { commitment: "confirmed" });
    account = (await getOrCreateAssociatedTokenAccount(connection, payer, mint, holder.publicKey, false, "confirmed"))
      .address;
    const other = await getOrCreateAssociatedTokenAccount(connection, payer, mint, payer.publicKey, false, "confirmed");
    await mintTo(connection, payer, mint, account, payer, 2_500_000n, [], { commitment: "confirmed" });
    await mintTo(connection, payer, mint, other.address, payer, 1_000_000n, [], { commitment: "confirmed" });
    await approve(connection, payer, account, delegate.publicKey, holder, 400_000n, [], { commitment: "confirmed" });
  });

  test("jsonParsed mints and token accounts, supply, balances, largest accounts", async () => {
    const parsedMint = (await connection.getParsedAccountInfo(mint)).value?.data as any;
    expect(parsedMint.program).toBe("spl-token");
    expect(parsedMint.parsed).toEqual({
      type: "mint",
      info: {
        mintAuthority: payer.publicKey.toBase58(),
        supply: "3500000",
        decimals: 6,
        isInitialized: true,
        freezeAuthority: null,
      },
    });
    const parsedAccount = (await connection.getParsedAccountInfo(account)).value?.data as any;
    expect(parsedAccount.parsed.type).toBe("account");
    expect(parsedAccount.parsed.info).toMatchObject({
      mint: mint.toBase58(),
      owner: holder.publicKey.toBase58(),
      state: "initialized",
      isNative: false,
      delegate: delegate.publicKey.toBase58(),
      tokenAmount: { amount: "2500000", decimals: 6, uiAmount: 2.5, uiAmountString: "2.5" },
    });
    expect((await connection.getTokenSupply(mint)).value.uiAmountString).toBe("3.5");
    expect((await connection.getTokenAccountBalance(account)).value.amount).toBe("2500000");
    const largest = await connection.getTokenLargestAccounts(mint);
    expect(largest.value.map((a) => [a.address.toBase58(), a.amount])).toEqual([
      [account.toBase58(), "2500000"],
      [expect.any(String), "1000000"],
    ]);
    const notMint = await chain.call("getTokenSupply", [account.toBase58(), { commitment: "confirmed" }]);
    expect(notMint.error).toEqual({ code: -32602, message: "Invalid param: not a Token mint" });
  });

  test("getTokenAccountsByOwner and ByDelegate, by mint or by program", async () => {
    const byMint = await connection.getParsedTokenAccountsByOwner(holder.publicKey, { mint });
    expect(byMint.value.map((a) => a.pubkey.toBase58())).toEqual([account.toBase58()]);
    expect((byMint.value[0]!.account.data as any).parsed.info.tokenAmount.amount).toBe("2500000");
    const byProgram = await connection.getTokenAccountsByOwner(holder.publicKey, { programId: TOKEN_PROGRAM_ID });
    expect(byProgram.value.map((a) => a.pubkey.toBase58())).toEqual([account.toBase58()]);
    expect(byProgram.value[0]!.account.data.length).toBe(165);
    const byDelegate = await chain.call("getTokenAccountsByDelegate", [
      delegate.publicKey.toBase58(),
      { programId: TOKEN_PROGRAM_ID.toBase58() },
      { encoding: "jsonParsed", commitment: "confirmed" },
    ]);
    expect(byDelegate.result.value.map((a: any) => a.pubkey)).toEqual([account.toBase58()]);
    const unknown = await connection
      .getTokenAccountsByOwner(holder.publicKey, { mint: Keypair.generate().publicKey })
      .catch((e: Error) => e.message);
    expect(unknown).toContain("could not find mint");
  });

  test("getProgramAccounts: memcmp and dataSize filters, dataSlice, jsonParsed, withContext", async () => {
    const filters = [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint.toBase58() } }];
    const all = await connection.getProgramAccounts(TOKEN_PROGRAM_ID, { filters });
    expect(all.map((a) => a.pubkey.toBase58()).sort()).toHaveLength(2);
    expect(all.map((a) => a.pubkey.toBase58())).toContain(account.toBase58());
    const byOwner = await connection.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [...filters, { memcmp: { offset: 32, bytes: holder.publicKey.toBase58() } }],
      dataSlice: { offset: 64, length: 8 },
    });
    expect(byOwner).toHaveLength(1);
    expect(byOwner[0]!.account.data.readBigUInt64LE(0)).toBe(2_500_000n);
    const parsed = await connection.getParsedProgramAccounts(TOKEN_PROGRAM_ID, { filters });
    expect(parsed.every((a) => (a.account.data as any).parsed.type === "account")).toBe(true);
    const withContext = await connection.getProgramAccounts(TOKEN_PROGRAM_ID, { filters, withContext: true });
    expect(withContext.context.slot).toBeGreaterThan(0);
    expect(withContext.value).toHaveLength(2);
    const mints = await connection.getProgramAccounts(TOKEN_PROGRAM_ID, { filters: [{ dataSize: 82 }] });
    // The native mint is there from genesis, as on agave's test validator.
    expect(mints.map((a) => a.pubkey.toBase58()).sort()).toEqual([mint.toBase58(), NATIVE_MINT.toBase58()].sort());
    const base64 = await chain.call("getProgramAccounts", [
      TOKEN_PROGRAM_ID.toBase58(),
      {
        encoding: "base64",
        commitment: "confirmed",
        filters: [
          { memcmp: { offset: 0, bytes: mint.toBuffer().toString("base64"), encoding: "base64" } },
          { dataSize: 165 },
        ],
      },
    ]);
    expect(base64.result).toHaveLength(2);
    const tooMany = await chain.call("getProgramAccounts", [
      TOKEN_PROGRAM_ID.toBase58(),
      { filters: [{ dataSize: 1 }, { dataSize: 2 }, { dataSize: 3 }, { dataSize: 4 }, { dataSize: 5 }] },
    ]);
    expect(tooMany.error).toEqual({ code: -32602, message: "Too many filters provided; max 4" });
    const sliced = await chain.call("getProgramAccounts", [
      TOKEN_PROGRAM_ID.toBase58(),
      { encoding: "jsonParsed", dataSlice: { offset: 0, length: 8 } },
    ]);
    expect(sliced.error?.code).toBe(-32600);
  });
});

describe("history and blocks", () => {
  test("getSignaturesForAddress: newest first, limit, before, until", async () => {
    const to = Keypair.generate().publicKey;
    const sent: string[] = [];
    for (let i = 0; i < 3; i++)
      sent.push(
        await send([SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000_000 + i })]),
      );
    const sigs = sent as [string, string, string];
    const listed = await connection.getSignaturesForAddress(to);
    expect(listed.map((s) => s.signature)).toEqual([...sigs].reverse());
    expect(listed.every((s) => typeof s.blockTime === "number" && s.err === null)).toBe(true);
    expect((await connection.getSignaturesForAddress(to, { limit: 1 })).map((s) => s.signature)).toEqual([sigs[2]]);
    expect((await connection.getSignaturesForAddress(to, { before: sigs[2] })).map((s) => s.signature)).toEqual([
      sigs[1],
      sigs[0],
    ]);
    expect((await connection.getSignaturesForAddress(to, { until: sigs[0] })).map((s) => s.signature)).toEqual([
      sigs[2],
      sigs[1],
    ]);
    // finalized by default, once they are
    const plain = new Connection(chain.rpcUrl);
    await until("finalized", async () => (await plain.getSignaturesForAddress(to)).length === 3);
    expect((await plain.getSignaturesForAddress(to))[0]!.confirmationStatus).toBe("finalized");
  });

  test("getBlock (full, signatures, none, encodings, version), getBlocks, getBlocksWithLimit, getBlockTime", async () => {
    const to = Keypair.generate().publicKey;
    const signature = await send([
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 5_000_000 }),
    ]);
    const status = (await connection.getSignatureStatus(signature)).value!;
    const slot = status.slot;
    const block = await connection.getBlock(slot, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    expect(block).not.toBeNull();
    expect(block!.transactions.map((t) => t.transaction.signatures[0])).toContain(signature);
    expect(block!.parentSlot).toBe(slot - 1);
    const parent = await connection.getBlock(slot - 1, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    expect(block!.previousBlockhash).toBe(parent!.blockhash);
    const time = await connection.getBlockTime(slot);
    expect(time).toBe(block!.blockTime);
    expect(Math.abs(time! - Date.now() / 1000)).toBeLessThan(120);
    const signatures = await connection.getBlockSignatures(slot, "confirmed");
    expect(signatures.signatures).toContain(signature);
    const none = await chain.call("getBlock", [
      slot,
      { commitment: "confirmed", transactionDetails: "none", rewards: false },
    ]);
    expect(Object.keys(none.result).sort()).toEqual([
      "blockHeight",
      "blockTime",
      "blockhash",
      "parentSlot",
      "previousBlockhash",
    ]);
    const b64 = await chain.call("getBlock", [
      slot,
      { commitment: "confirmed", encoding: "base64", maxSupportedTransactionVersion: 0 },
    ]);
    const tx = b64.result.transactions.find((t: any) => t.meta.fee === 5000);
    expect(tx.transaction[1]).toBe("base64");
    const blocks = await connection.getBlocks(slot - 2, slot, "confirmed");
    expect(blocks).toEqual([slot - 2, slot - 1, slot]);
    const withLimit = await chain.call("getBlocksWithLimit", [slot - 1, 2, { commitment: "confirmed" }]);
    expect(withLimit.result).toEqual([slot - 1, slot]);
    const future = await chain.call("getBlock", [slot + 1_000_000, { commitment: "confirmed" }]);
    expect(future.error).toEqual({ code: -32004, message: `Block not available for slot ${slot + 1_000_000}` });
    const processed = await chain.call("getBlock", [slot, { commitment: "processed" }]);
    expect(processed.error).toEqual({ code: -32602, message: "Method does not support commitment below `confirmed`" });
    const old = await chain.call("getBlock", [0, { commitment: "confirmed" }]);
    expect(old.error?.code).toBe(-32001);
    expect((await chain.call("getBlockCommitment", [slot])).result.totalStake).toBeGreaterThan(0);
    // finalized by default: the block is there once finalized
    await until(
      "finalized",
      async () => (await chain.call("getBlock", [slot, { maxSupportedTransactionVersion: 0 }])).result,
    );
  });

  test("a v0 transaction's block needs maxSupportedTransactionVersion, as on agave", async () => {
    const { blockhash } = await connection.getLatestBlockhash();
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 1_000_000,
        }),
      ],
    }).compileToV0Message();
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    const signature = await connection.sendTransaction(tx);
    await until(
      "confirmed",
      async () => (await connection.getSignatureStatus(signature)).value?.confirmationStatus === "confirmed",
    );
    const slot = (await connection.getSignatureStatus(signature)).value!.slot;
    const refused = await chain.call("getBlock", [slot, { commitment: "confirmed" }]);
    expect(refused.error?.code).toBe(-32015);
    const block = await connection.getBlock(slot, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    expect(block!.transactions.find((t) => t.transaction.signatures[0] === signature)?.version).toBe(0);
  });

  test("getRecentPrioritizationFees: the lowest price of each recent block, and of the named accounts' writers", async () => {
    const hot = Keypair.generate().publicKey;
    const signature = await send([
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 7_777 }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: hot, lamports: 1_000_000 }),
    ]);
    const slot = (await connection.getSignatureStatus(signature)).value!.slot;
    await until("the slot closed", async () => (await connection.getSlot("processed")) > slot);
    const named = await connection.getRecentPrioritizationFees({ lockedWritableAccounts: [hot] });
    expect(named.find((f) => f.slot === slot)?.prioritizationFee).toBe(7_777);
    expect(named.length).toBeLessThanOrEqual(150);
    const other = await connection.getRecentPrioritizationFees({
      lockedWritableAccounts: [Keypair.generate().publicKey],
    });
    // nobody else wrote in that slot: the block's lowest price is the same transaction's
    expect(other.find((f) => f.slot === slot)?.prioritizationFee).toBe(7_777);
    expect(other.filter((f) => f.slot !== slot).every((f) => f.prioritizationFee === 0)).toBe(true);
  });

  test("getRecentPerformanceSamples and getBlockProduction count the blocks made", async () => {
    const samples = await connection.getRecentPerformanceSamples(5);
    expect(samples.length).toBeGreaterThan(0);
    expect(samples[0]!.numSlots).toBeGreaterThan(0);
    expect(samples[0]!.samplePeriodSecs).toBe(60);
    expect(samples[0]!.numTransactions).toBeGreaterThan(0);
  });
});

describe("durable nonces", () => {
  test("a transaction on a nonce is accepted, confirmed with the nonce strategy, and cannot be replayed", async () => {
    const nonceAccount = Keypair.generate();
    const rent = await connection.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH);
    await send(
      [
        SystemProgram.createNonceAccount({
          fromPubkey: payer.publicKey,
          noncePubkey: nonceAccount.publicKey,
          authorizedPubkey: payer.publicKey,
          lamports: rent,
        }),
      ],
      [nonceAccount],
    );
    const read = async () => {
      const info = await connection.getAccountInfoAndContext(nonceAccount.publicKey);
      return { nonce: NonceAccount.fromAccountData(info.value!.data).nonce, slot: info.context.slot };
    };
    const first = await read();
    const parsed = (await connection.getParsedAccountInfo(nonceAccount.publicKey)).value?.data as any;
    expect(parsed.program).toBe("nonce");
    expect(parsed.parsed.info.blockhash).toBe(first.nonce);

    // the nonce is no recent blockhash, and stays usable long after one would expire
    await until("the slot moved", async () => (await connection.getSlot("processed")) > first.slot + 2);
    const to = Keypair.generate().publicKey;
    const advance = SystemProgram.nonceAdvance({
      noncePubkey: nonceAccount.publicKey,
      authorizedPubkey: payer.publicKey,
    });
    const tx = new Transaction().add(
      advance,
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 4_000_000 }),
    );
    tx.recentBlockhash = first.nonce;
    tx.feePayer = payer.publicKey;
    tx.nonceInfo = { nonce: first.nonce, nonceInstruction: advance };
    tx.minNonceContextSlot = first.slot;
    const signature = await sendAndConfirmTransaction(connection, tx, [payer], { commitment: "confirmed" });
    expect(await connection.getBalance(to)).toBe(4_000_000);
    const second = await read();
    expect(second.nonce).not.toBe(first.nonce);

    // confirmTransaction's nonce strategy, on a second nonce transaction
    const again = new Transaction().add(
      SystemProgram.nonceAdvance({ noncePubkey: nonceAccount.publicKey, authorizedPubkey: payer.publicKey }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000_000 }),
    );
    again.recentBlockhash = second.nonce;
    again.feePayer = payer.publicKey;
    again.sign(payer);
    const sig2 = await connection.sendRawTransaction(again.serialize());
    const confirmed = await connection.confirmTransaction(
      {
        signature: sig2,
        nonceAccountPubkey: nonceAccount.publicKey,
        nonceValue: second.nonce,
        minContextSlot: second.slot,
      },
      "confirmed",
    );
    expect(confirmed.value.err).toBeNull();
    expect((await connection.getSignatureStatus(sig2)).value?.err).toBeNull();
    expect(await connection.getBalance(to)).toBe(5_000_000);

    // the used nonce is gone: the same message again is refused at preflight
    const replay = new Transaction().add(
      SystemProgram.nonceAdvance({ noncePubkey: nonceAccount.publicKey, authorizedPubkey: payer.publicKey }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 999 }),
    );
    replay.recentBlockhash = second.nonce;
    replay.feePayer = payer.publicKey;
    replay.sign(payer);
    await expect(connection.sendRawTransaction(replay.serialize())).rejects.toThrow("Blockhash not found");
    expect(signature).toBeString();
  });
});

describe("simulateTransaction and sendTransaction configs", () => {
  test("simulateTransaction returns the accounts asked for, as they would be after the transaction", async () => {
    const to = Keypair.generate().publicKey;
    const { blockhash } = await connection.getLatestBlockhash();
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 9_000_000 })],
    }).compileToV0Message();
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    const before = await connection.getBalance(payer.publicKey);
    const sim = await connection.simulateTransaction(tx, {
      accounts: { addresses: [to.toBase58(), payer.publicKey.toBase58()], encoding: "base64" },
    });
    expect(sim.value.err).toBeNull();
    expect(sim.value.accounts![0]!.lamports).toBe(9_000_000);
    expect(sim.value.accounts![0]!.owner).toBe(SystemProgram.programId.toBase58());
    expect(sim.value.accounts![1]!.lamports).toBe(before - 9_000_000 - 5_000);
    // nothing happened
    expect(await connection.getBalance(to)).toBe(0);
    const none = await connection.simulateTransaction(tx);
    expect(none.value.accounts).toBeNull();
    const wire = Buffer.from(tx.serialize()).toString("base64");
    const base58 = await chain.call("simulateTransaction", [
      wire,
      { encoding: "base64", accounts: { addresses: [to.toBase58()], encoding: "base58" } },
    ]);
    expect(base58.error?.code).toBe(-32602);
  });

  test("a base64 transaction sent without `encoding` is refused with -32602, as agave (base58 is the default)", async () => {
    const { blockhash } = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000,
      }),
    );
    tx.sign(payer);
    const base64 = tx.serialize().toString("base64");
    const sent = await chain.call("sendTransaction", [base64]);
    expect(sent.error?.code).toBe(-32602);
    expect(sent.error?.message).toMatch(/^invalid base58 encoding|^failed to deserialize/);
    const simulated = await chain.call("simulateTransaction", [base64]);
    expect(simulated.error?.code).toBe(-32602);
    const ok = await chain.call("sendTransaction", [bs58.encode(tx.serialize())]);
    expect(ok.result).toBe(bs58.encode(tx.signature!));
  });

  test("requestAirdrop takes a u64 JSON number, up to the faucet's 1,000,000 SOL a request", async () => {
    const who = Keypair.generate().publicKey.toBase58();
    const body = (amount: string) => `{"jsonrpc":"2.0","id":1,"method":"requestAirdrop","params":["${who}",${amount}]}`;
    expect((await chain.post(body("1000000000"))).result).toBeString();
    expect((await chain.post(body("1000000000000000"))).result).toBeString();
    expect((await chain.post(body("1000000000000001"))).error).toEqual({ code: -32603, message: "Internal error" });
    expect((await chain.post(body("18446744073709551615"))).error).toEqual({ code: -32603, message: "Internal error" });
    expect((await chain.post(body("18446744073709551616"))).error?.code).toBe(-32602);
    expect((await chain.post(body("-1"))).error?.code).toBe(-32602);
    expect((await chain.post(body("1.5"))).error?.code).toBe(-32602);
    // a string amount is refused, as agave's u64 parameter refuses it
    expect((await chain.post(body('"1000000000"'))).error).toEqual({
      code: -32602,
      message: 'Invalid params: invalid type: string "1000000000", expected u64.',
    });
  });
});
