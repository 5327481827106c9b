/** The page's own logic without a browser: money, times, the API client's retries, transaction signing. */
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair, PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import fc from "fast-check";
import { api, ApiError, retryAfterSeconds, setSleep, sleep } from "../../public/src/api";
import { bpsToPercent, lamportsToSol, percentToBps, sol, solToLamports } from "../../public/src/money";
import { absoluteTime, relativeTime, utcTime } from "../../public/src/time";
import { firstSignature, parseTransaction, withSignature } from "../../public/src/txwire";
import { LocalKey } from "../../public/src/wallet";
import { verifyEd25519 } from "./ed25519";

describe("SOL formatting", () => {
  test.each([
    ["0", "0 SOL"],
    ["1", "0.000000001 SOL"],
    ["10000000", "0.01 SOL"],
    ["1000000000", "1 SOL"],
    ["1500000001", "1.500000001 SOL"],
    ["9007199254740993", "9,007,199.254740993 SOL"],
    ["18446744073709551615", "18,446,744,073.709551615 SOL"],
  ])("%s lamports is %s", (lamports, shown) => {
    expect(sol(lamports)).toBe(shown);
  });

  test("unknown is said, not shown as zero", () => {
    expect(sol(null)).toBe("unknown");
  });

  test("anything but whole lamports is refused rather than guessed", () => {
    for (const bad of ["1.5", "-1", "1e9", " 1", ""]) expect(() => lamportsToSol(bad)).toThrow();
  });

  test("typed SOL amounts become exact lamports, and back", () => {
    expect(solToLamports("0.5")).toBe(500_000_000n);
    expect(solToLamports("1,000.000000001")).toBe(1_000_000_000_001n);
    expect(solToLamports(".1")).toBe(100_000_000n);
    expect(solToLamports("0.0000000001")).toBeNull();
    expect(solToLamports("abc")).toBeNull();
    expect(solToLamports(".")).toBeNull();
  });

  test("a comma is the decimal mark wherever it cannot be a thousands separator", () => {
    expect(solToLamports("0,05")).toBe(50_000_000n);
    expect(solToLamports("1,5")).toBe(1_500_000_000n);
    expect(solToLamports("12,3456")).toBe(12_345_600_000n);
    expect(solToLamports("0,050")).toBe(50_000_000n);
    expect(solToLamports("1.000,25")).toBe(1_000_250_000_000n);
    expect(solToLamports("1 000,5")).toBe(1_000_500_000_000n);
    // Groups of three after a non-zero lead are thousands, as before.
    expect(solToLamports("1,000")).toBe(1_000_000_000_000n);
    expect(solToLamports("1,000.25")).toBe(1_000_250_000_000n);
    // Marks that read two ways are refused rather than guessed.
    expect(solToLamports("1,2,3")).toBeNull();
    expect(solToLamports("1.2.3")).toBeNull();
    expect(solToLamports("1,000,5")).toBeNull();
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) => solToLamports(lamportsToSol(n)) === n));
  });

  test("shares in basis points are exact percentages", () => {
    expect(bpsToPercent(3333)).toBe("33.33%");
    expect(bpsToPercent(10_000)).toBe("100%");
    expect(bpsToPercent(50)).toBe("0.5%");
    expect(percentToBps("66.67")).toBe(6667);
    expect(percentToBps("100")).toBe(10_000);
    expect(percentToBps("100.01")).toBeNull();
    expect(percentToBps("1.234")).toBeNull();
  });
});

describe("times", () => {
  const now = Date.parse("2026-11-21T12:00:00Z");
  test("relative and absolute", () => {
    expect(relativeTime("2026-11-21T11:58:00Z", now)).toBe("2 minutes ago");
    expect(relativeTime("2026-11-21T11:59:58Z", now)).toBe("just now");
    expect(relativeTime("2026-11-20T12:00:00Z", now)).toBe("yesterday");
    expect(utcTime("2026-11-21T11:58:00.123Z")).toBe("2026-11-21 11:58:00 UTC");
    // One format everywhere, in the zone the browser is in.
    expect(absoluteTime("2026-11-21T11:58:00.123Z", { timeZone: "Europe/Berlin" })).toBe("21 Nov 2026, 12:58:00 CET");
    expect(absoluteTime("2026-11-21T11:58:00.123Z", { timeZone: "America/New_York", seconds: false })).toBe(
      "21 Nov 2026, 06:58 GMT-5",
    );
    expect(relativeTime("not a time", now)).toBe("unknown");
  });
});

describe("API client", () => {
  const realFetch = globalThis.fetch;
  const realSleep = sleep;
  afterEach(() => {
    globalThis.fetch = realFetch;
    setSleep(realSleep);
  });

  async function failure(promise: Promise<unknown>): Promise<ApiError> {
    try {
      await promise;
    } catch (error) {
      return error as ApiError;
    }
    throw new Error("expected the call to fail");
  }

  function answers(...responses: Response[]) {
    const calls: string[] = [];
    globalThis.fetch = (async (input: string) => {
      calls.push(String(input));
      return responses.shift()!;
    }) as typeof fetch;
    return calls;
  }

  test("a 429 waits the retry-after seconds, then retries", async () => {
    const waits: number[] = [];
    setSleep(async (ms) => void waits.push(ms));
    const calls = answers(
      Response.json({ error: "slow down" }, { status: 429, headers: { "retry-after": "3" } }),
      Response.json({ ok: 1 }),
    );
    expect(await api("/api/stats")).toEqual({ ok: 1 });
    expect(calls).toEqual(["/api/stats", "/api/stats"]);
    expect(waits).toEqual([3000]);
  });

  test("retrying gives up after three 429s and shows the server's sentence", async () => {
    setSleep(async () => {});
    const limited = () =>
      Response.json(
        { error: "Too many requests; retry after the time in retry-after." },
        { status: 429, headers: { "retry-after": "1" } },
      );
    answers(limited(), limited(), limited(), limited());
    const error = await failure(api("/api/tokens"));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect(error.message).toBe("Too many requests; retry after the time in retry-after.");
  });

  test("errors carry the envelope's sentence, or a plain one when there is none", async () => {
    answers(Response.json({ error: "No token with that mint was launched here." }, { status: 404 }));
    expect((await failure(api("/api/tokens/x"))).message).toBe("No token with that mint was launched here.");
    answers(new Response("<html>bad gateway</html>", { status: 502 }));
    expect((await failure(api("/api/tokens"))).message).toBe(
      "The service is having trouble right now; try again shortly.",
    );
    globalThis.fetch = (async () => {
      throw new TypeError("Failed to fetch");
    }) as unknown as typeof fetch;
    expect((await failure(api("/api/tokens"))).message).toBe(
      "The service could not be reached. Check your connection and try again.",
    );
  });

  test("retry-after is bounded and defaults to a second", () => {
    expect(retryAfterSeconds("5")).toBe(5);
    expect(retryAfterSeconds(null)).toBe(1);
    expect(retryAfterSeconds("soon")).toBe(1);
    expect(retryAfterSeconds("100000")).toBe(60);
  });
});

describe("transaction signing without web3.js", () => {
  test("the wallet and the mint key each fill their own slot, and the result verifies", async () => {
    const wallet = Keypair.generate();
    const { key: mint } = await LocalKey.generate();
    const ix = new TransactionInstruction({
      programId: new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"),
      keys: [{ pubkey: new PublicKey(mint.address), isSigner: true, isWritable: true }],
      data: Buffer.from("x"),
    });
    const message = new TransactionMessage({
      payerKey: wallet.publicKey,
      recentBlockhash: Keypair.generate().publicKey.toBase58(),
      instructions: [ix],
    }).compileToV0Message();
    const unsigned = new VersionedTransaction(message).serialize();
    expect(parseTransaction(unsigned).signers).toEqual([wallet.publicKey.toBase58(), mint.address]);

    const walletSigned = VersionedTransaction.deserialize(unsigned);
    walletSigned.sign([wallet]);
    const both = await mint.signTransaction(walletSigned.serialize());
    const tx = VersionedTransaction.deserialize(both);
    expect(verifyEd25519(new PublicKey(mint.address).toBytes(), tx.message.serialize(), tx.signatures[1]!)).toBe(true);
    expect(verifyEd25519(wallet.publicKey.toBytes(), tx.message.serialize(), tx.signatures[0]!)).toBe(true);
    expect(firstSignature(both)).toBe(firstSignature(walletSigned.serialize()));
  });

  test("a key that is not a signer is refused", async () => {
    const wallet = Keypair.generate();
    const message = new TransactionMessage({
      payerKey: wallet.publicKey,
      recentBlockhash: Keypair.generate().publicKey.toBase58(),
      instructions: [],
    }).compileToV0Message();
    const wire = new VersionedTransaction(message).serialize();
    expect(() => withSignature(wire, Keypair.generate().publicKey.toBase58(), new Uint8Array(64))).toThrow(
      "is not a signer",
    );
  });
});
