/** Shared pieces of the account tests: a chain whose wallet reads the test controls, seeding, sign-in. */
import { Keypair, PublicKey } from "@solana/web3.js";
import type { Db } from "../../db/client";
import { chainUnavailable } from "../../src/chain/errors";
import type { AccountSnapshot } from "../../src/chain/ports";
import type { ChainServices } from "../../src/chain/services";
import { accountFigures } from "../../src/ledger/figures";
import { confirmSweep, recordSweepsSent } from "../../src/sweeps/service";
import { recordFixtureLaunch } from "../helpers/launch";
import { testService, type TestService } from "../helpers/service";
import { fakeChain as fakeChainServices } from "../fakes/chain";
import type { FakeIdp } from "../fakes/idp";

export const ORIGIN = "http://localhost:3000";
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

export interface FakeChain extends ChainServices {
  /** what getAccounts answers per address; absent = unused (null) */
  accounts: Map<string, AccountSnapshot>;
  /** when set, getAccounts fails as a node that cannot be reached */
  down: boolean;
  /** delay of every getAccounts, to let concurrent requests overlap */
  delayMs: number;
  reads: number;
}

export function fakeChain(): FakeChain {
  const chain: FakeChain = {
    ...fakeChainServices({
      usedBy: "the account routes",
      reader: {
        async getAccounts(addresses) {
          chain.reads += 1;
          if (chain.delayMs) await Bun.sleep(chain.delayMs);
          if (chain.down)
            throw chainUnavailable("CHAIN_PROVIDER_FAILED", {
              method: "getMultipleAccounts",
              detail: "node unreachable",
            });
          return new Map(addresses.map((a) => [a, chain.accounts.get(a) ?? null]));
        },
      },
    }),
    accounts: new Map<string, AccountSnapshot>(),
    down: false,
    delayMs: 0,
    reads: 0,
  };
  return chain;
}

export const systemAccount = (lamports = 1_000_000n): AccountSnapshot => ({
  lamports,
  owner: SYSTEM_PROGRAM,
  executable: false,
  data: new Uint8Array(0),
});
export const tokenAccount = (): AccountSnapshot => ({
  lamports: 2_039_280n,
  owner: TOKEN_PROGRAM,
  executable: false,
  data: new Uint8Array(165),
});
export const programAccount = (): AccountSnapshot => ({
  lamports: 1_141_440n,
  owner: "BPFLoaderUpgradeab1e11111111111111111111111",
  executable: true,
  data: new Uint8Array(36),
});

/** A fresh on-curve address nobody uses. */
export const freshWallet = () => Keypair.generate().publicKey.toBase58();

/** A program-derived address: off the curve by construction. */
export const pdaAddress = () =>
  PublicKey.findProgramAddressSync([Buffer.from("vault")], new PublicKey(TOKEN_PROGRAM))[0].toBase58();

let nextIndex = 1;

export function launchToken(
  db: Db,
  recipients: { handle: string; bps: number }[],
  opts: { platformBps?: number } = {},
) {
  const index = nextIndex++;
  const mint = Keypair.generate().publicKey.toBase58();
  const creator = Keypair.generate().publicKey.toBase58();
  const { tokenId } = recordFixtureLaunch(
    db,
    {
      mint,
      name: `Token ${index}`,
      symbol: `T${index}`,
      creatorIndex: index,
      creator,
      creatorVault: pdaAddress(),
      deployer: freshWallet(),
      launchSignature: `launch-${index}-${mint}`,
      launchedAtMs: 1_000 + index,
      platformBps: opts.platformBps ?? 0,
      recipients,
    },
    1_000,
  );
  return { tokenId, mint, creator };
}

let nextSweep = 1;
/** A confirmed sweep of `total` lamports for the token (platform share as launched). */
export function sweep(db: Db, tokenId: number, total: bigint, atMs = 5_000) {
  const sig = `sweep-sig-${nextSweep++}`;
  const [id] = recordSweepsSent(db, [{ tokenId, signature: sig, lastValidBlockHeight: 50n, atMs }]);
  confirmSweep(db, {
    sweepId: id!,
    totalLamports: total,
    atMs,
    buyback: { platformBuybackBps: 0, platformTokenMint: null },
  });
  return id!;
}

export const balanceOfUser = (db: Db, idpUserId: string) => accountFigures(db, "user", idpUserId).balanceLamports;

/** Everything a refused request must leave as it was: every ledger row and every payout row. */
export function ledgerSnapshot(db: Db) {
  const c = db.$client;
  const one = (sql: string) =>
    JSON.stringify(c.query(sql).all(), (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  return {
    entries: one("SELECT * FROM ledger_entries ORDER BY id"),
    accounts: one("SELECT kind, ref, balance FROM ledger_accounts ORDER BY id"),
    payouts: one("SELECT * FROM payouts ORDER BY id"),
    handles: one("SELECT * FROM handles ORDER BY handle"),
  };
}

/** The cookie pair `name=value` from a response's Set-Cookie lines, or null. */
export function cookieFrom(response: Response, name: string): string | null {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair!.indexOf("=");
    if (pair!.slice(0, eq) === name && pair!.slice(eq + 1) !== "") return pair!;
  }
  return null;
}

export function setCookieLine(response: Response, name: string): string | null {
  return response.headers.getSetCookie().find((l) => l.startsWith(`${name}=`)) ?? null;
}

/** Dev login (the embedded defaults): the session cookie for a handle. */
export async function devLogin(svc: TestService, handle: string, ip = "198.51.100.1"): Promise<string> {
  const response = await svc.call("/api/auth/dev-login", {
    method: "POST",
    headers: { "content-type": "application/json", origin: ORIGIN },
    body: JSON.stringify({ handle }),
    ip,
  });
  if (response.status !== 200) throw new Error(`dev login failed: ${response.status} ${await response.text()}`);
  const cookie = cookieFrom(response, "session");
  if (!cookie) throw new Error("dev login set no session cookie");
  return cookie;
}

export interface IdpSignIn {
  /** the callback's answer */
  callback: Response;
  session: string | null;
  oauthCookie: string;
  callbackPath: string;
}

/** The whole browser round trip: start, the provider's consent, the callback. */
export async function signInThroughIdp(
  svc: TestService,
  idp: FakeIdp,
  userId: string,
  returnTo = "/me",
): Promise<IdpSignIn> {
  idp.signInAs(userId);
  const start = await svc.call(`/api/auth/idp/start?returnTo=${encodeURIComponent(returnTo)}`);
  if (start.status !== 302) throw new Error(`start answered ${start.status}: ${await start.text()}`);
  const oauthCookie = cookieFrom(start, "idp_oauth");
  if (!oauthCookie) throw new Error("start set no round-trip cookie");
  const consent = await fetch(start.headers.get("location")!, { redirect: "manual" });
  const back = new URL(consent.headers.get("location")!);
  const callbackPath = `${back.pathname}${back.search}`;
  const callback = await svc.call(callbackPath, { headers: { cookie: oauthCookie } });
  return { callback, session: cookieFrom(callback, "session"), oauthCookie, callbackPath };
}

export function postJson(
  svc: TestService,
  path: string,
  body: unknown,
  init: { cookie?: string | null; origin?: string | null; ip?: string } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (init.origin !== null) headers.origin = init.origin ?? ORIGIN;
  if (init.cookie) headers.cookie = init.cookie;
  return svc.json(path, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
    ip: init.ip,
  });
}

export function serviceWith(
  env: Record<string, string> = {},
  opts: { chain?: FakeChain | null; now?: () => number } = {},
) {
  const chain = opts.chain === undefined ? fakeChain() : opts.chain;
  const svc = testService(env, { chain, now: opts.now });
  return { svc, chain };
}
