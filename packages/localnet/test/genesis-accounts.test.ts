/**
 * One's own programs and accounts loaded at genesis with solana-test-validator's flags
 * (`--bpf-program`, `--upgradeable-program`, `--account`, `--account-dir`), through the `localnet`
 * command run as a separate process and reached with web3.js, as a project would.
 *
 * The program is a real SBF ELF: the SPL Memo program's bytes as LiteSVM ships them, written to a
 * `.so` file and loaded at a new address, where the chain's VM runs it.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction, TransactionInstruction } from "@solana/web3.js";
import bs58 from "bs58";
import { LiteSVM } from "litesvm";
import { startLocalChain } from "../src/index";
import { type ChainProcess, startChainProcess, until } from "./agave-process";

const LOADER = new PublicKey("BPFLoaderUpgradeab1e11111111111111111111111");
const SYSTEM = "11111111111111111111111111111111";
const MEMO_ELF = new LiteSVM().getAccount(new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"))!.data;

const work = mkdtempSync(join(tmpdir(), "localnet-genesis-"));
const memoSo = join(work, "memo.so");
writeFileSync(memoSo, MEMO_ELF);
const running: ChainProcess[] = [];

afterEach(async () => {
  for (const p of running.splice(0)) await p.stop();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function start(args: string[]): Promise<ChainProcess> {
  const p = await startChainProcess(["--slot-ms", "0", ...args]);
  running.push(p);
  return p;
}

async function stop(p: ChainProcess): Promise<void> {
  running.splice(running.indexOf(p), 1);
  await p.stop();
}

function keypairFile(name: string): { keypair: Keypair; file: string } {
  const keypair = Keypair.generate();
  const file = join(work, name);
  writeFileSync(file, JSON.stringify([...keypair.secretKey]));
  return { keypair, file };
}

/** An account file as `solana account <ADDRESS> --output json --output-file <FILE>` writes it. */
function accountFile(
  name: string,
  account: { pubkey: PublicKey; lamports: number; owner: PublicKey; data: Uint8Array },
  encoding: "base64" | "base58" | "base64+zstd" = "base64",
): string {
  const blob =
    encoding === "base58"
      ? bs58.encode(account.data)
      : Buffer.from(encoding === "base64" ? account.data : Bun.zstdCompressSync(account.data)).toString("base64");
  const file = join(work, name);
  writeFileSync(
    file,
    `{"pubkey":"${account.pubkey.toBase58()}","account":{"lamports":${account.lamports},"data":["${blob}","${encoding}"],"owner":"${account.owner.toBase58()}","executable":false,"rentEpoch":18446744073709551615,"space":${account.data.length}}}`,
  );
  return file;
}

async function fundedPayer(p: ChainProcess, connection: Connection): Promise<Keypair> {
  const payer = Keypair.generate();
  const signature = await connection.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
  await p.advance(1);
  await until("the airdrop landed", async () => (await connection.getSignatureStatus(signature)).value !== null);
  return payer;
}

/** ProgramData as BPFLoaderUpgradeable lays it out: tag 3, slot, Some(authority), the ELF. */
function programData(data: Buffer) {
  return {
    tag: data.readUInt32LE(0),
    slot: data.readBigUInt64LE(4),
    authority: data[12] === 1 ? new PublicKey(data.subarray(13, 45)).toBase58() : null,
    elf: data.subarray(45),
  };
}

function programDataAddress(program: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync([program.toBytes()], LOADER)[0];
}

/** Calls the memo ELF at `program` through web3.js and answers the landed transaction's logs. */
async function callMemo(p: ChainProcess, program: PublicKey, text: string): Promise<string[]> {
  const connection = new Connection(p.rpcUrl, "confirmed");
  const payer = await fundedPayer(p, connection);
  const tx = new Transaction().add(
    new TransactionInstruction({
      programId: program,
      keys: [{ pubkey: payer.publicKey, isSigner: true, isWritable: false }],
      data: Buffer.from(text),
    }),
  );
  const signature = await connection.sendTransaction(tx, [payer]);
  await p.advance(1);
  const landed = await until("the call landed", () =>
    connection.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 }),
  );
  expect(landed.meta?.err).toBeNull();
  return landed.meta?.logMessages ?? [];
}

test("a program loaded with --bpf-program is called at its address and logs as it runs", async () => {
  const { keypair: programKey, file: programKeypair } = keypairFile("program-keypair.json");
  const program = programKey.publicKey;
  const p = await start(["--bpf-program", programKeypair, memoSo]);
  const connection = new Connection(p.rpcUrl, "confirmed");

  // deployed as agave's --bpf-program: upgradeable loader, authority 1111…1111 (upgrades disabled), slot 0
  const account = (await connection.getAccountInfo(program))!;
  expect({ owner: account.owner.toBase58(), executable: account.executable }).toEqual({
    owner: LOADER.toBase58(),
    executable: true,
  });
  expect(new PublicKey(account.data.subarray(4, 36)).equals(programDataAddress(program))).toBe(true);
  const data = programData((await connection.getAccountInfo(programDataAddress(program)))!.data);
  expect({ tag: data.tag, slot: data.slot, authority: data.authority }).toEqual({
    tag: 3,
    slot: 0n,
    authority: SYSTEM,
  });
  expect(Buffer.from(data.elf).equals(Buffer.from(MEMO_ELF))).toBe(true);

  const text = "hello from a loaded program";
  const logs = await callMemo(p, program, text);
  expect(logs[0]).toBe(`Program ${program.toBase58()} invoke [1]`);
  expect(logs).toContain(`Program log: Memo (len ${text.length}): "${text}"`);
  expect(logs.at(-1)).toBe(`Program ${program.toBase58()} success`);
});

test("--upgradeable-program names the upgrade authority, which the loader then obeys", async () => {
  const program = Keypair.generate().publicKey;
  const frozen = Keypair.generate().publicKey;
  const { keypair: authority, file: authorityKeypair } = keypairFile("authority-keypair.json");
  const p = await start([
    ...["--upgradeable-program", program.toBase58(), memoSo, authorityKeypair],
    ...["--upgradeable-program", frozen.toBase58(), memoSo, "none"],
  ]);
  const connection = new Connection(p.rpcUrl, "confirmed");
  const readAuthority = async (of: PublicKey) =>
    programData((await connection.getAccountInfo(programDataAddress(of)))!.data).authority;
  expect(await readAuthority(program)).toBe(authority.publicKey.toBase58());
  expect(await readAuthority(frozen)).toBe(SYSTEM); // agave writes "none" as Pubkey::default()

  // SetAuthority (loader instruction 4), signed by the authority the flag named
  const payer = await fundedPayer(p, connection);
  const next = Keypair.generate().publicKey;
  const setAuthority = new TransactionInstruction({
    programId: LOADER,
    keys: [
      { pubkey: programDataAddress(program), isSigner: false, isWritable: true },
      { pubkey: authority.publicKey, isSigner: true, isWritable: false },
      { pubkey: next, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([4, 0, 0, 0]),
  });
  const signature = await connection.sendTransaction(new Transaction().add(setAuthority), [payer, authority]);
  await p.advance(1);
  await until("SetAuthority landed", async () => (await connection.getSignatureStatus(signature)).value !== null);
  expect((await connection.getSignatureStatus(signature)).value?.err).toBeNull();
  expect(await readAuthority(program)).toBe(next.toBase58());
});

test("--account and --account-dir load `solana account --output json` files byte for byte", async () => {
  const owner = Keypair.generate().publicKey;
  const dumped = [0, 1, 2, 3].map((i) => ({
    pubkey: Keypair.generate().publicKey,
    lamports: 2_039_280 + i,
    owner,
    data: crypto.getRandomValues(new Uint8Array(165 + i * 100)),
  }));
  const elsewhere = Keypair.generate().publicKey;
  const dir = join(work, "accounts");
  mkdirSync(dir);
  accountFile(join("accounts", "c.json"), dumped[2]!, "base64+zstd");
  accountFile(join("accounts", "d.json"), dumped[3]!);
  writeFileSync(join(dir, "notes.txt"), "not an account");
  const p = await start([
    ...["--account", "-", accountFile("a.json", dumped[0]!)],
    ...["--account", elsewhere.toBase58(), accountFile("b.json", dumped[1]!, "base58")],
    ...["--account-dir", dir],
  ]);
  const connection = new Connection(p.rpcUrl, "confirmed");

  const expected = [
    { address: dumped[0]!.pubkey, from: dumped[0]! },
    { address: elsewhere, from: dumped[1]! }, // the address given wins over the file's pubkey
    { address: dumped[2]!.pubkey, from: dumped[2]! },
    { address: dumped[3]!.pubkey, from: dumped[3]! },
  ];
  for (const { address, from } of expected) {
    const read = (await connection.getAccountInfo(address))!;
    expect(read).not.toBeNull();
    expect({ lamports: read.lamports, owner: read.owner.toBase58(), executable: read.executable }).toEqual({
      lamports: from.lamports,
      owner: owner.toBase58(),
      executable: false,
    });
    expect(Buffer.from(read.data).equals(Buffer.from(from.data))).toBe(true);
  }
  expect(await connection.getAccountInfo(dumped[1]!.pubkey)).toBeNull();
  const listed = await connection.getProgramAccounts(owner);
  expect(listed.map((a) => a.pubkey.toBase58()).sort()).toEqual(expected.map((e) => e.address.toBase58()).sort());
});

test("with --state the flags load a fresh chain only; --reset loads them again", async () => {
  const state = join(work, "state");
  const first = { pubkey: Keypair.generate().publicKey, lamports: 1_000_000, owner: Keypair.generate().publicKey };
  const second = { ...first, pubkey: Keypair.generate().publicKey };
  const firstFile = accountFile("first.json", { ...first, data: new Uint8Array([1, 2, 3]) });
  const secondFile = accountFile("second.json", { ...second, data: new Uint8Array([4, 5, 6]) });
  const exists = async (p: ChainProcess, address: PublicKey) =>
    (await new Connection(p.rpcUrl, "confirmed").getAccountInfo(address)) !== null;

  const program = Keypair.generate().publicKey;
  const fresh = await start([
    "--state",
    state,
    "--account",
    "-",
    firstFile,
    "--bpf-program",
    program.toBase58(),
    memoSo,
  ]);
  expect(await exists(fresh, first.pubkey)).toBe(true);
  await stop(fresh);

  const continued = await start(["--state", state, "--account", "-", secondFile]);
  expect([await exists(continued, first.pubkey), await exists(continued, second.pubkey)]).toEqual([true, false]);
  // the program the chain began with is kept, and still runs
  expect(await callMemo(continued, program, "still here")).toContain('Program log: Memo (len 10): "still here"');
  await stop(continued);

  const reset = await start(["--state", state, "--reset", "--account", "-", secondFile]);
  expect([await exists(reset, first.pubkey), await exists(reset, second.pubkey)]).toEqual([false, true]);
});

test("a file that cannot be loaded stops the start with its name", async () => {
  const base = { rpcPort: 0, grpcPort: 0, slotMs: 0 };
  const program = Keypair.generate().publicKey.toBase58();
  await expect(
    startLocalChain({ ...base, bpfPrograms: [{ address: program, program: join(work, "missing.so") }] }),
  ).rejects.toThrow(`program file does not exist: ${join(work, "missing.so")}`);
  await expect(
    startLocalChain({ ...base, bpfPrograms: [{ address: program, program: new Uint8Array([1, 2, 3, 4]) }] }),
  ).rejects.toThrow(`--bpf-program ${program}: ${program} could not be loaded`);
  const parsed = join(work, "parsed.json");
  writeFileSync(
    parsed,
    `{"pubkey":"${program}","account":{"lamports":1,"data":{"program":"spl-token","parsed":{},"space":82},"owner":"${SYSTEM}","executable":false,"rentEpoch":0}}`,
  );
  await expect(startLocalChain({ ...base, accounts: [{ file: parsed }] })).rejects.toThrow(
    /unable to deserialize .*parsed\.json: `data` must be/,
  );
  await expect(startChainProcess(["--bpf-program", program])).rejects.toThrow(
    "--bpf-program needs <ADDRESS_OR_KEYPAIR> <PROGRAM.so>",
  );
});
