/**
 * Strangers' lamports, through HTTP only, on `npm start`'s demo chain (issue 61, item 2): a demo
 * account is routed to burn; a stranger (a wallet of its own, through the chain's public JSON-RPC)
 * sends 0.00089 SOL, less than a token account's rent, to each of the treasury's token accounts of
 * that account's mints before the service buys them. Before, the next burn buy of such a mint
 * showed more spent than its budget, and the process stopped (exit 70) at every burns run after
 * every restart. Now the service stays up, and the burns of those very mints show on /api/ledger.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { freePortsSync } from "../helpers/socket";
import { answering, serviceExecutable } from "../helpers/executable";
import { appendTail, followStderr } from "../helpers/stderr";

const STRANGER_LAMPORTS = 890_880;
const HANDLE = "bob_demo";

const [rpcPort, , httpPort] = freePortsSync(3) as [number, number, number];
const base = `http://127.0.0.1:${httpPort}`;
const rpcUrl = `http://127.0.0.1:${rpcPort}`;
const dataDir = mkdtempSync(join(tmpdir(), "cfl-strangers-burns-"));
let child: ReturnType<typeof Bun.spawn> | null = null;
let stderrTail = "";

afterAll(async () => {
  if (child) {
    child.kill("SIGTERM");
    await child.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** Waits for `probe` to answer; fails at once, with the service's last words, if the service exits. */
async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child?.exitCode !== null)
      throw new Error(
        `the service exited (${child?.exitCode}) waiting for ${what}; its stderr ended with:\n${stderrTail}`,
      );
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; the service's stderr ended with:\n${stderrTail}`);
    await Bun.sleep(300);
  }
}

const get = async <T>(path: string, cookie?: string): Promise<T> => {
  const res = await fetch(`${base}${path}`, cookie ? { headers: { cookie } } : {});
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as T;
};

test("a stranger pre-funds the treasury's token accounts of an account routed to burn: the service stays up and burns go on", async () => {
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) inherited[k] = v;
  delete inherited.CRASH_AT;
  child = Bun.spawn([await serviceExecutable()], {
    env: {
      ...inherited,
      DATA_DIR: dataDir,
      PORT: String(httpPort),
      PUBLIC_URL: base,
      LOCAL_CHAIN_RPC_PORT: String(rpcPort),
      LOCAL_CHAIN_GRPC_PORT: "0",
      LOCAL_CHAIN_SLOT_MS: "100",
      SWEEP_SCHEDULE: "*/5 * * * * *",
      BURNS_SCHEDULE: "*/3 * * * * *",
      RATE_LIMIT: "0",
      LOG_LEVEL: "warn",
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  followStderr(child.stderr as ReadableStream<Uint8Array>, (text) => {
    stderrTail = appendTail(stderrTail, text);
  });
  await answering(child, `${base}/api/stats`, () => stderrTail, 60_000);

  // The account is routed to burn, over HTTP.
  const login = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ handle: HANDLE }),
  });
  expect(login.status).toBeLessThan(400);
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  const routed = await fetch(`${base}/api/routing`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base, cookie },
    body: JSON.stringify({ routing: "burn" }),
  });
  expect(routed.status).toBe(200);
  const { tokens } = await get<{ tokens: { mint: string }[] }>("/api/me", cookie);
  expect(tokens.length).toBeGreaterThan(0);
  const { treasury } = await until("the proof of reserves", 30_000, () => get<{ treasury: string }>("/api/proof"));

  // The stranger: a wallet funded by the chain's faucet, acting through public JSON-RPC only.
  const chain = new Connection(rpcUrl, "confirmed");
  const stranger = Keypair.generate();
  await chain.requestAirdrop(stranger.publicKey, LAMPORTS_PER_SOL);
  await until("the stranger's airdrop", 30_000, async () =>
    (await chain.getBalance(stranger.publicKey)) >= LAMPORTS_PER_SOL ? true : null,
  );
  const prefunded: { mint: string; account: PublicKey }[] = [];
  for (const { mint } of tokens) {
    // The treasury's associated token account under the mint's own token program.
    const mintAccount = await chain.getAccountInfo(new PublicKey(mint));
    expect(mintAccount).not.toBeNull();
    const account = getAssociatedTokenAddressSync(
      new PublicKey(mint),
      new PublicKey(treasury),
      true,
      mintAccount!.owner,
    );
    // Nothing was routed to burn for this mint before: no buy has created the account yet.
    expect(await chain.getAccountInfo(account)).toBeNull();
    const { blockhash } = await chain.getLatestBlockhash();
    const tx = new Transaction({ feePayer: stranger.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: stranger.publicKey, toPubkey: account, lamports: STRANGER_LAMPORTS }),
    );
    tx.sign(stranger);
    await chain.sendRawTransaction(tx.serialize());
    await until(`the stranger's lamports in ${account.toBase58()}`, 30_000, async () =>
      (await chain.getBalance(account)) === STRANGER_LAMPORTS ? true : null,
    );
    prefunded.push({ mint, account });
  }

  // A buy of such a mint tops the stranger's lamports up to a token account, and its burn closes
  // that account again: a pre-funded account back at 0 and a burn of its mint on the public
  // ledger show a whole buy-and-burn went through it, with the service up all along.
  const burned = await until("a burn of a pre-funded mint", 240_000, async () => {
    const { events } = await get<{ events: { type: string; mint?: string; signature?: string }[] }>(
      "/api/ledger?limit=100",
    );
    for (const { mint, account } of prefunded) {
      const burn = events.find((e) => e.type === "burn" && e.mint === mint);
      if (burn && (await chain.getBalance(account)) === 0) return burn;
    }
    return null;
  });
  expect(burned.signature).toBeString();
  expect(child.exitCode).toBeNull();
  // Still serving, and not halted: burns and everything else go on.
  const health = await get<{ halted: unknown }>("/api/cron/health");
  expect(health.halted).toBeNull();
  expect((await fetch(`${base}/api/stats`)).status).toBe(200);
}, 300_000);
