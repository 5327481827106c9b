/**
 * Real clients, end to end, against the embedded chain as an integrator meets it:
 *  - web3.js against `npm start`'s chain (the service process, embedded defaults) given only the
 *    RPC URL: the WebSocket is found at the RPC port + 1, as web3.js assumes;
 *  - @solana/kit's RPC, RPC subscriptions and sendAndConfirmTransactionFactory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  AddressLookupTableProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
  type AccountInfo,
} from "@solana/web3.js";
import {
  address,
  airdropFactory,
  appendTransactionMessageInstruction,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  fetchAddressesForLookupTables,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  AccountRole,
  assertIsTransactionWithBlockhashLifetime,
  type Address,
  type Instruction,
} from "@solana/kit";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalChain, type LocalChain } from "@fee-ledger/localnet";
import { freePortsSync } from "../../helpers/socket";
import { serviceExecutable } from "../../helpers/executable";

describe("web3.js against npm start's chain, given only the RPC URL", () => {
  let child: ReturnType<typeof Bun.spawn> | null = null;
  let dataDir = "";
  let rpcUrl = "";
  let connection: Connection | null = null;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cfl-clients-"));
    const [rpcPort, , port] = freePortsSync(3) as [number, number, number];
    rpcUrl = `http://127.0.0.1:${rpcPort}`;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    child = Bun.spawn([await serviceExecutable()], {
      env: {
        ...env,
        DATA_DIR: dataDir,
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        LOCAL_CHAIN_RPC_PORT: String(rpcPort),
        LOCAL_CHAIN_GRPC_PORT: "0",
        LOCAL_CHAIN_SLOT_MS: "20",
        DEMO: "0",
        JOBS: "0",
        LOG_LEVEL: "warn",
      },
      stdout: "ignore",
      stderr: "inherit",
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const ok = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"jsonrpc":"2.0","id":1,"method":"getHealth"}',
      }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error("the service did not start");
      await Bun.sleep(100);
    }
  });
  afterAll(async () => {
    // web3.js has no public close; a normal close (1000) stops its reconnect loop once the chain is gone.
    (connection as unknown as { _rpcWebSocket?: { close(): void } } | null)?._rpcWebSocket?.close();
    child?.kill("SIGTERM");
    await child?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("airdrop, sendAndConfirmTransaction, getTransaction, onAccountChange, and an expired blockhash refused", async () => {
    connection = new Connection(rpcUrl, "confirmed");
    const payer = Keypair.generate();
    const to = Keypair.generate();

    const airdrop = await connection.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL);
    const latest = await connection.getLatestBlockhash();
    const confirmed = await connection.confirmTransaction({ signature: airdrop, ...latest }, "confirmed");
    expect(confirmed.value.err).toBeNull();
    expect(await connection.getBalance(payer.publicKey)).toBe(2 * LAMPORTS_PER_SOL);

    const changes: AccountInfo<Buffer>[] = [];
    const subscription = connection.onAccountChange(to.publicKey, (info) => changes.push(info), {
      commitment: "confirmed",
    });

    const signature = await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports: 50_000_000 }),
      ),
      [payer],
    );
    expect(await connection.getBalance(to.publicKey)).toBe(50_000_000);

    const read = await connection.getTransaction(signature, {
      commitment: "confirmed",
      maxSupportedTransactionVersion: 0,
    });
    expect(read?.meta?.err).toBeNull();
    expect(read?.meta?.fee).toBe(5000);
    const keys = read!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    const i = keys.indexOf(to.publicKey.toBase58());
    expect(read!.meta!.postBalances[i]! - read!.meta!.preBalances[i]!).toBe(50_000_000);

    // the subscription heard the credit
    const deadline = Date.now() + 5_000;
    while (changes.length === 0 && Date.now() < deadline) await Bun.sleep(20);
    expect(changes[0]?.lamports).toBe(50_000_000);
    expect(changes[0]?.owner.equals(SystemProgram.programId)).toBe(true);
    await connection.removeAccountChangeListener(subscription);

    // Finalized: sendAndConfirmTransaction at the strictest commitment resolves too.
    const finalSig = await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports: 1_000_000 }),
      ),
      [payer],
      { commitment: "finalized" },
    );
    expect((await connection.getSignatureStatus(finalSig)).value?.confirmationStatus).toBe("finalized");

    // A transaction whose blockhash expired is refused, not silently accepted.
    const old = await connection.getLatestBlockhash();
    const stale = new Transaction({ feePayer: payer.publicKey, ...old }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports: 1 }),
    );
    stale.sign(payer);
    const expiry = Date.now() + 15_000;
    while ((await connection.isBlockhashValid(old.blockhash)).value && Date.now() < expiry) await Bun.sleep(100);
    expect((await connection.isBlockhashValid(old.blockhash)).value).toBe(false);
    await expect(connection.sendRawTransaction(stale.serialize())).rejects.toThrow(/Blockhash not found/);
    // and a confirmation waiting on it ends with the block height exceeded instead of hanging
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    await expect(
      connection.confirmTransaction({ signature: "1".repeat(64), blockhash, lastValidBlockHeight }, "confirmed"),
    ).rejects.toThrow(/block height exceeded/);
    expect(await connection.getBalance(to.publicKey)).toBe(51_000_000);
  }, 60_000);
});

/** System program transfer, built by hand (kit ships no program clients). */
function transferInstruction(from: Address, to: Address, amount: bigint): Instruction {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true);
  view.setBigUint64(4, amount, true);
  return {
    programAddress: address(SystemProgram.programId.toBase58()),
    accounts: [
      { address: from, role: AccountRole.WRITABLE_SIGNER },
      { address: to, role: AccountRole.WRITABLE },
    ],
    data,
  };
}

describe("@solana/kit against the embedded chain", () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 25 });
  });
  afterAll(async () => {
    await chain.stop();
  });

  test("createSolanaRpc, createSolanaRpcSubscriptions and sendAndConfirmTransactionFactory land a transfer, and a v0 transaction through a lookup table", async () => {
    const rpc = createSolanaRpc(chain.rpcUrl);
    const rpcSubscriptions = createSolanaRpcSubscriptions(chain.wsUrl);
    const payer = await generateKeyPairSigner();
    const to = await generateKeyPairSigner();
    await airdropFactory({ rpc, rpcSubscriptions })({
      recipientAddress: payer.address,
      lamports: lamports(1_000_000_000n),
      commitment: "confirmed",
    });
    expect((await rpc.getBalance(payer.address, { commitment: "confirmed" }).send()).value).toBe(
      lamports(1_000_000_000n),
    );

    const { value: latestBlockhash } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latestBlockhash, m),
      (m) => appendTransactionMessageInstruction(transferInstruction(payer.address, to.address, 25_000_000n), m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    assertIsTransactionWithBlockhashLifetime(signed);
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(signed, { commitment: "confirmed" });
    const signature = getSignatureFromTransaction(signed);

    expect((await rpc.getBalance(to.address, { commitment: "confirmed" }).send()).value).toBe(lamports(25_000_000n));
    const tx = await rpc
      .getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0, encoding: "json" })
      .send();
    expect(tx?.meta?.err).toBeNull();
    expect(tx?.version).toBe(0);
    expect(tx?.meta?.fee).toBe(lamports(5000n));

    // A subscription through kit hears the next credit.
    const abort = new AbortController();
    const notifications = await rpcSubscriptions
      .accountNotifications(to.address, { commitment: "confirmed", encoding: "base64" })
      .subscribe({ abortSignal: abort.signal });
    chain.node.airdrop(new PublicKey(to.address), 5_000_000n);
    for await (const n of notifications) {
      expect(n.value.lamports).toBe(lamports(30_000_000n));
      break;
    }
    abort.abort();

    // A v0 transaction through a lookup table: the table is made by the lookup-table program
    // (set up here with web3.js's instruction builders), the message compressed by kit.
    const recipients = Array.from({ length: 30 }, () => Keypair.generate().publicKey);
    const [create, table] = AddressLookupTableProgram.createLookupTable({
      authority: chain.treasury.publicKey,
      payer: chain.treasury.publicKey,
      recentSlot: chain.node.getSlot(),
    });
    expect(chain.node.submitInstructions([create], chain.treasury).err).toBeNull();
    for (let i = 0; i < recipients.length; i += 15) {
      const extend = AddressLookupTableProgram.extendLookupTable({
        lookupTable: table,
        authority: chain.treasury.publicKey,
        payer: chain.treasury.publicKey,
        addresses: recipients.slice(i, i + 15),
      });
      expect(chain.node.submitInstructions([extend], chain.treasury).err).toBeNull();
    }
    const extendedAt = chain.node.getSlot();
    while (chain.node.getSlot() <= extendedAt) await Bun.sleep(10); // usable from the next slot
    const { value: blockhash2 } = await rpc.getLatestBlockhash().send();
    const many = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash2, m),
      (m) =>
        appendTransactionMessageInstructions(
          recipients.map((r) => transferInstruction(payer.address, address(r.toBase58()), 1_000_000n)),
          m,
        ),
    );
    // kit reads the table itself (getMultipleAccounts, jsonParsed)
    const tables = await fetchAddressesForLookupTables([address(table.toBase58())], rpc, { commitment: "confirmed" });
    expect(tables[address(table.toBase58())]).toEqual(recipients.map((r) => address(r.toBase58())));
    const compressed = compressTransactionMessageUsingAddressLookupTables(many, tables);
    const signedV0 = await signTransactionMessageWithSigners(compressed);
    assertIsTransactionWithBlockhashLifetime(signedV0);
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(signedV0, { commitment: "confirmed" });
    const v0 = await rpc
      .getTransaction(getSignatureFromTransaction(signedV0), {
        commitment: "confirmed",
        maxSupportedTransactionVersion: 0,
        encoding: "json",
      })
      .send();
    expect(v0?.meta?.err).toBeNull();
    const lookups = (v0?.transaction.message as { addressTableLookups?: readonly { accountKey: string }[] } | undefined)
      ?.addressTableLookups;
    expect(lookups?.map((l) => l.accountKey)).toEqual([address(table.toBase58())]);
    // kit orders the loaded keys its own way; the set is what the table held
    expect([...(v0?.meta?.loadedAddresses?.writable ?? [])].map(String).sort()).toEqual(
      recipients.map((r) => r.toBase58()).sort(),
    );
    expect((await rpc.getBalance(address(recipients[29]!.toBase58()), { commitment: "confirmed" }).send()).value).toBe(
      lamports(1_000_000n),
    );
  }, 30_000);
});
