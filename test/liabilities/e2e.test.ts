/**
 * End to end on the embedded local chain, with the real process: after a sweep of the demo tokens
 * and a claim paid by the payouts run, a demo recipient's proof (from /api/me/proof) verifies with
 * `bun run verify-liabilities`, the published root and total are exactly what the treasury's memo
 * on chain says (read back from the chain with web3.js), and the total is `owedLamports`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Connection, Keypair } from "@solana/web3.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchBrowser } from "../web/browser";
import { overHttp, runJob } from "../helpers/cron";
import { freePortsSync } from "../helpers/socket";
import { serviceExecutable } from "../helpers/executable";

const root = join(import.meta.dir, "..", "..");
const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

async function verifyWithScript(dir: string, name: string, proof: unknown): Promise<{ code: number; out: string }> {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(proof));
  const child = Bun.spawn([process.execPath, "run", "verify-liabilities", file], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code: await child.exited, out: out + err };
}

describe("proof of liabilities on the local chain", () => {
  // A timed-out test never reaches its finally: the service must not outlive it and load the
  // tests that follow.
  let service: ReturnType<typeof Bun.spawn> | null = null;
  afterAll(() => service?.kill("SIGKILL"));

  test("after a sweep and a claim: a demo recipient's proof verifies, the root is the anchored memo, the total is owedLamports", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cfl-pol-"));
    // The RPC port and the next (its WebSocket), then the HTTP port: one pick, so they cannot overlap.
    const [rpcPort, , port] = freePortsSync(3) as [number, number, number];
    const base = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const child = Bun.spawn([await serviceExecutable()], {
      env: {
        ...env,
        DATA_DIR: dataDir,
        PORT: String(port),
        PUBLIC_URL: base,
        LOCAL_CHAIN_RPC_PORT: String(rpcPort),
        LOCAL_CHAIN_GRPC_PORT: "0",
        LOCAL_CHAIN_SLOT_MS: "100",
        CRON_SECRET: "pol-cron-secret-0123456789abcdef0123",
        SWEEP_MIN_LAMPORTS: "1",
        // Every token read at every sweep run. With the jobs off no indexer tells the reading
        // schedule which tokens trade: a token the demo had not traded yet at the first run would
        // wait out its quiet interval (~107 s measured), and alice's or bob's could be one of them.
        SWEEP_QUIET_MAX_INTERVAL_MS: "0",
        MIN_CLAIM_LAMPORTS: "1",
        LOG_LEVEL: "warn",
        JOBS: "0",
        RATE_LIMIT: "off",
      },
      stdout: "ignore",
      stderr: "inherit",
    });
    service = child;
    const cron = async (job: string) => {
      const run = await runJob(overHttp(base), job, "pol-cron-secret-0123456789abcdef0123");
      expect(run.state).toBe("succeeded");
    };
    const login = async (handle: string) => {
      const r = await fetch(`${base}/api/auth/dev-login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base },
        body: JSON.stringify({ handle }),
      });
      expect(r.status).toBeLessThan(400);
      return (r.headers.get("set-cookie") ?? "").split(";")[0]!;
    };
    try {
      const deadline = Date.now() + 20_000;
      let tokens: unknown[] = [];
      while (Date.now() < deadline && tokens.length === 0) {
        tokens = await fetch(`${base}/api/tokens`)
          .then(
            (r) => (r.ok ? r.json() : { tokens: [] }),
            () => ({ tokens: [] }),
          )
          .then((b) => b.tokens);
        if (tokens.length === 0) await Bun.sleep(200);
      }
      expect(tokens.length).toBeGreaterThan(0);

      // Sweep until two demo recipients have been credited.
      const credited = async (handle: string) =>
        BigInt((await (await fetch(`${base}/api/idp/${handle}`)).json()).creditedLamports);
      for (let i = 0; i < 40 && ((await credited("alice_demo")) === 0n || (await credited("bob_demo")) === 0n); i++) {
        await Bun.sleep(500);
        await cron("sweep");
      }
      expect(await credited("alice_demo")).toBeGreaterThan(0n);

      // Alice claims half of her balance; the payouts run pays it, then snapshots and anchors.
      const alice = await login("alice_demo");
      const bob = await login("bob_demo");
      const before = await (await fetch(`${base}/api/me`, { headers: { cookie: alice } })).json();
      const balance = BigInt(before.balanceLamports);
      expect(balance).toBeGreaterThan(1n);
      // Her wallet already exists on chain (a payout below rent exemption to a new wallet would fail).
      const connection = new Connection(`http://127.0.0.1:${rpcPort}`, "confirmed");
      const wallet = Keypair.generate().publicKey;
      await connection.requestAirdrop(wallet, 1_000_000_000);
      for (let i = 0; i < 100 && (await connection.getBalance(wallet, "confirmed")) === 0; i++) await Bun.sleep(100);
      const claim = await fetch(`${base}/api/claim`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base, cookie: alice },
        body: JSON.stringify({ wallet: wallet.toBase58(), lamports: (balance / 2n).toString() }),
      });
      expect(claim.status).toBe(200);
      await cron("payouts");
      const me = await (await fetch(`${base}/api/me`, { headers: { cookie: alice } })).json();
      expect(me.payouts.map((p: { status: string; lamports: string }) => [p.status, p.lamports])).toEqual([
        ["confirmed", (balance / 2n).toString()],
      ]);

      const published = await (await fetch(`${base}/api/proof/liabilities`)).json();
      expect(published.anchorSignature).toEqual(expect.any(String));
      // Nothing moved the books since the snapshot (jobs are off): owedLamports now is owed at the snapshot.
      const reserves = await (await fetch(`${base}/api/proof`)).json();
      expect(published.totalLamports).toBe(reserves.owedLamports);

      // The memo, read back from the chain: the treasury signed it and it names this root and total.
      const tx = await connection.getTransaction(published.anchorSignature, {
        maxSupportedTransactionVersion: 0,
        commitment: "confirmed",
      });
      expect(tx?.meta?.err).toBeNull();
      const keys = tx!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
      const memos = tx!.transaction.message.compiledInstructions
        .filter((ix) => keys[ix.programIdIndex] === MEMO_PROGRAM)
        .map((ix) => ({
          text: Buffer.from(ix.data).toString("utf8"),
          signers: ix.accountKeyIndexes.map((i) => keys[i]),
        }));
      // The anchor's own memo first; the command key naming its snapshot last (docs/money-jobs.md).
      expect(memos).toHaveLength(2);
      expect(memos[0]).toEqual({
        text: `liabilities:${published.root}:${published.totalLamports}:${published.at}`,
        signers: [reserves.treasury],
      });
      expect(memos[1]?.signers).toEqual([reserves.treasury]);
      expect(memos[1]?.text).toMatch(/^fl1:a:[0-9a-z]+$/);
      expect(keys[0]).toBe(reserves.treasury);

      // Each demo recipient's own proof verifies with the independent verifier.
      for (const [name, cookie] of [
        ["alice", alice],
        ["bob", bob],
      ] as const) {
        const r = await fetch(`${base}/api/me/proof`, { headers: { cookie } });
        expect(r.status).toBe(200);
        expect(r.headers.get("cache-control")).toBe("private, no-store");
        const proof = await r.json();
        expect(proof.root).toBe(published.root);
        expect(proof.at).toBe(published.at);
        const account = await (await fetch(`${base}/api/me`, { headers: { cookie } })).json();
        expect(proof.leaf.lamports).toBe(account.balanceLamports);
        const verdict = await verifyWithScript(dataDir, name, proof);
        expect(verdict).toMatchObject({ code: 0 });
        expect(verdict.out).toContain(
          `OK: ${proof.leaf.lamports} lamports are inside the total of ${published.totalLamports}`,
        );
        expect(JSON.stringify(published)).not.toContain(proof.leaf.nonce);
        // One lamport more, or a sibling changed, and it fails.
        const more = await verifyWithScript(dataDir, `${name}-more`, {
          ...proof,
          leaf: { ...proof.leaf, lamports: (BigInt(proof.leaf.lamports) + 1n).toString() },
        });
        expect(more.code).toBe(1);
        expect(more.out).toContain("NOT VERIFIED");
      }
      const left = balance - balance / 2n;
      expect(
        BigInt((await (await fetch(`${base}/api/me`, { headers: { cookie: alice } })).json()).balanceLamports),
      ).toBe(left);

      // The signed-in page checks the same proof in the browser and says so in words.
      const browser = await launchBrowser();
      try {
        const [name, value] = alice.split("=") as [string, string];
        await browser.context.addCookies([{ name, value, url: base }]);
        const page = await browser.newPage();
        await page.goto(`${base}/me`);
        await page.waitForSelector("#liability-proof-result[data-verified]");
        expect(await page.locator("#liability-proof-result").getAttribute("data-verified")).toBe("true");
        const words = await page.locator("#liability-proof-result").innerText();
        const solText = (lamports: bigint) =>
          `${lamports / 1_000_000_000n}.${(lamports % 1_000_000_000n).toString().padStart(9, "0")}`.replace(
            /\.?0+$/,
            "",
          );
        expect(words).toContain(
          `your ${solText(left)} SOL is inside the published total of ${solText(BigInt(published.totalLamports))} SOL`,
        );
        expect(await page.locator("#liability-proof-result [title]").first().getAttribute("title")).toBe(
          published.anchorSignature,
        );
        expect(browser.errors).toEqual([]);
      } finally {
        await browser.close();
      }
    } finally {
      child.kill("SIGTERM");
      await child.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000); // 18 s alone; a parallel run on two loaded cores took 90 s
});
