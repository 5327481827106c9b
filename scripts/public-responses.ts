/**
 * The public responses of a seeded service, byte for byte: status, the headers that do not vary
 * from run to run, and the body. A refactoring that claims "no behaviour change" is checked by
 * comparing them with the committed golden file (test/http/public-responses.test.ts does).
 *
 *   bun run public-responses -- --write   rewrites test/golden/public-responses.json
 *   bun run public-responses -- --check   exits 1 and names the first route that differs
 *
 * Everything that could vary is pinned: the seed, the clock (the service's `now`), the master
 * secret (cursors are signed with it), the chain (a fixed fake: treasury key, balances, vault
 * readings, creator fee), the client IP (one per request, so rate-limit counters start fresh) and
 * the random nonces of the liability snapshot (generated from a counter while it is taken).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Keypair, PublicKey } from "@solana/web3.js";
import type { ChainServices } from "../src/chain/services";
import { recordSolvencySnapshot } from "../src/history";
import { takeSnapshot } from "../src/liabilities";
import { testService, type TestService } from "../test/helpers/service";
import { seedDatabase } from "./seed";

export const GOLDEN_PATH = join(import.meta.dir, "..", "test", "golden", "public-responses.json");

/** The instant the seeded history ends and the service's clock stands still at. */
export const NOW_MS = Date.UTC(2026, 10, 1, 12, 0, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TREASURY_LAMPORTS = 987_654_321_000n;

/** Headers that differ between runs of the same code (request ids, clocks) or only echo the transport. */
const VOLATILE_HEADERS = new Set(["date", "x-request-id", "x-ratelimit-reset", "server-timing", "x-response-time"]);

/** Bodies over this size are kept as their length and SHA-256, so the golden file stays readable. */
const VERBATIM_MAX_CHARS = 100_000;

export interface RecordedResponse {
  request: string;
  status: number;
  headers: Record<string, string>;
  body?: string;
  bodyLength?: number;
  bodySha256?: string;
}

function fixedKeypair(fill: number): Keypair {
  return Keypair.fromSeed(new Uint8Array(32).fill(fill));
}

/** A chain that answers the public reads with fixed figures; anything else throws. */
function fixedChain(): ChainServices {
  const treasury = fixedKeypair(7);
  const programId = fixedKeypair(8).publicKey.toBase58();
  const unsupported = () => {
    throw new Error("not used by the public reads");
  };
  return {
    treasury,
    reader: {
      async getBalances(addresses: readonly string[]) {
        return new Map(addresses.map((a) => [a, TREASURY_LAMPORTS]));
      },
    } as unknown as ChainServices["reader"],
    sender: {} as ChainServices["sender"],
    launchProgram: {
      kind: "local",
      programId,
      async readVaults(tokens: readonly { mint: string }[]) {
        return tokens.map((t, i) => ({
          mint: t.mint,
          curveLamports: 1_000_000n + BigInt(i),
          poolLamports: 0n,
          creatorLamports: 0n,
          bonded: false,
        }));
      },
      creatorFeeBps: async () => 30,
    } as unknown as ChainServices["launchProgram"],
    creatorKeypair: unsupported,
    creatorAddress: (() => new PublicKey(programId)) as ChainServices["creatorAddress"],
  };
}

/** Runs `work` with crypto.getRandomValues counting up from a fixed state, so its output is repeatable. */
function withCountingRandom<T>(work: () => T): T {
  const original = crypto.getRandomValues;
  let counter = 1;
  const counting = <A extends ArrayBufferView | null>(array: A): A => {
    if (array) {
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (counter * 31 + i * 7) & 0xff;
      counter++;
    }
    return array;
  };
  Object.defineProperty(crypto, "getRandomValues", { value: counting, configurable: true, writable: true });
  try {
    return work();
  } finally {
    Object.defineProperty(crypto, "getRandomValues", { value: original, configurable: true, writable: true });
  }
}

type Samples = ReturnType<typeof seedDatabase>["samples"] & { payingHandle: string };

async function seededService(): Promise<{ svc: TestService; samples: Samples }> {
  const svc = testService(
    { MASTER_SECRET: "public-responses-master-secret-0123456789" },
    { now: () => NOW_MS, chain: fixedChain() },
  );
  const db = svc.ctx.db;
  const { samples } = seedDatabase(db, { tokens: 60, seed: 21, nowMs: NOW_MS, days: 90, sweepsPerToken: 4 });
  // Solvency points for the proof chart, a day apart, and two liability snapshots.
  for (let d = 20; d >= 1; d--) {
    recordSolvencySnapshot(db, {
      treasuryLamports: TREASURY_LAMPORTS - BigInt(d) * 1_000_000n,
      atMs: NOW_MS - d * DAY,
      trigger: "hourly",
    });
  }
  withCountingRandom(() => {
    takeSnapshot(db, NOW_MS - 3 * DAY);
    takeSnapshot(db, NOW_MS - HOUR);
  });
  // The account with the most payouts, so its payout pages have something to page through.
  const busiest = db.$client
    .query<{ handle: string }, []>(
      `SELECT h.handle AS handle FROM handles h JOIN payouts p ON p.idp_user_id = h.idp_user_id
        GROUP BY h.handle ORDER BY COUNT(*) DESC, h.handle LIMIT 1`,
    )
    .get();
  return { svc, samples: { ...samples, payingHandle: busiest?.handle ?? samples.handles[0]! } };
}

function keptHeaders(headers: Headers): Record<string, string> {
  const all: [string, string][] = [];
  headers.forEach((value, name) => {
    if (!VOLATILE_HEADERS.has(name)) all.push([name, value]);
  });
  return Object.fromEntries(all.sort(([a], [b]) => a.localeCompare(b)));
}

/** The page links its bundle by content hash; the bundle is the page's own concern, not the API's. */
function withoutAssetHashes(html: string): string {
  return html.replace(/\/assets\/([A-Za-z0-9_.-]+?)-[A-Za-z0-9]{6,}\.(js|css|map)/g, "/assets/$1-<hash>.$2");
}

type Mode = "verbatim" | "page" | "headers-only";

interface Requester {
  get(path: string, mode?: Mode): Promise<RecordedResponse & { json?: unknown }>;
}

function requester(svc: TestService, out: RecordedResponse[]): Requester {
  let ip = 0;
  return {
    async get(path, mode = "verbatim") {
      ip++;
      const t0 = performance.now();
      const response = await svc.call(path, { ip: `198.18.${Math.floor(ip / 250)}.${(ip % 250) + 1}` });
      const recorded: RecordedResponse = {
        request: `GET ${path}`,
        status: response.status,
        headers: keptHeaders(response.headers),
      };
      let json: unknown;
      if (mode === "headers-only") {
        await response.body?.cancel();
      } else {
        let text = await response.text();
        if (mode === "page") text = withoutAssetHashes(text);
        if (text.length <= VERBATIM_MAX_CHARS) recorded.body = text;
        else {
          recorded.bodyLength = text.length;
          recorded.bodySha256 = new Bun.CryptoHasher("sha256").update(text).digest("hex");
        }
        if ((response.headers.get("content-type") ?? "").includes("json") && text) json = JSON.parse(text);
      }
      out.push(recorded);
      if (process.env.PR_DEBUG) process.stderr.write(`${Math.round(performance.now() - t0)} ms ${path}\n`);
      return { ...recorded, json };
    },
  };
}

/** What the paged reads answer besides their items. */
interface PageBody {
  nextCursor?: string | null;
  nextBefore?: string | null;
}

/** Follows `next` through up to `pages` pages, recording each; `next` builds the next path from a body. */
async function paged(
  http: Requester,
  first: string,
  pages: number,
  next: (body: PageBody, path: string) => string | null,
): Promise<unknown> {
  let path: string | null = first;
  let firstBody: unknown;
  for (let i = 0; i < pages && path; i++) {
    const { json } = await http.get(path);
    firstBody ??= json;
    path = json ? next(json as PageBody, path) : null;
  }
  return firstBody;
}

const withParam = (path: string, name: string, value: string | null) =>
  value === null ? null : `${path}${path.includes("?") ? "&" : "?"}${name}=${encodeURIComponent(value)}`;

/** Every public read on the seeded service, in a fixed order. */
export async function collectPublicResponses(): Promise<RecordedResponse[]> {
  const { svc, samples } = await seededService();
  const out: RecordedResponse[] = [];
  const http = requester(svc, out);
  try {
    await readExploreList(http, samples);
    await readTokenDetails(http, samples);
    await readAccountRecords(http, samples);
    await readLedgerFeed(http);
    await readPlatformFigures(http);
    await readSignedOutViews(http);
    await readDocumentsAndPages(http, samples);
  } finally {
    await svc.cleanup();
  }
  return out;
}

/** Explore list: each sort, a search of each kind, paging, and refusals. */
async function readExploreList(http: Requester, samples: Samples): Promise<void> {
  for (const sort of ["new", "fees", "mcap"]) {
    await paged(http, `/api/tokens?sort=${sort}&limit=7`, 3, (b, p) =>
      withParam(p.replace(/&cursor=.*$/, ""), "cursor", b.nextCursor ?? null),
    );
  }
  const listed = (await http.get("/api/tokens")).json as { tokens: { mint: string; creator: string }[] };
  const firstToken = listed.tokens[0]!;
  for (const q of [
    samples.nameFragments[0]!,
    samples.nameFragments[3]!,
    "PEPE",
    firstToken.mint,
    firstToken.creator,
    `@${samples.handles[0]}`,
    samples.handles[0]!,
    "no-such-token-anywhere",
  ]) {
    await http.get(`/api/tokens?q=${encodeURIComponent(q)}&limit=5`);
  }
  await http.get("/api/tokens?sort=fees&q=pepe&limit=3");
  await http.get("/api/tokens?sort=sideways");
  await http.get("/api/tokens?limit=0");
  await http.get("/api/tokens?limit=61");
  await http.get("/api/tokens?limit=abc");
  await http.get(`/api/tokens?q=${"x".repeat(65)}`);
  await http.get("/api/tokens?cursor=not-a-cursor");
  const newCursor = ((await http.get("/api/tokens?sort=new&limit=1")).json as { nextCursor: string }).nextCursor;
  await http.get(`/api/tokens?sort=fees&cursor=${encodeURIComponent(newCursor)}`);
}

/** Token detail, its image and history, for a spread of seeded mints. */
async function readTokenDetails(http: Requester, samples: Samples): Promise<void> {
  for (const mint of samples.mints.slice(0, 8)) {
    await http.get(`/api/tokens/${mint}`);
    await http.get(`/api/token-images/${mint}`);
    await http.get(`/api/tokens/${mint}/history`);
  }
  await http.get(`/api/tokens/${samples.mints[0]}/history?days=7`);
  await http.get(`/api/tokens/${samples.mints[0]}/history?days=0`);
  await http.get(`/api/tokens/${samples.mints[0]}/history?days=abc`);
  await http.get(`/api/tokens/${samples.mints[0]!.toLowerCase()}`);
  await http.get("/api/tokens/11111111111111111111111111111111");
  await http.get("/api/tokens/not-base58-0OIl");
  await http.get("/api/token-images/11111111111111111111111111111111");
  await http.get("/api/tokens/11111111111111111111111111111111/history");
}

/** Account records: pinned, unpinned, renamed, with paging of tokens and payouts; refusals. */
async function readAccountRecords(http: Requester, samples: Samples): Promise<void> {
  const handles = [
    ...new Set([
      ...samples.handles.slice(0, 2),
      ...samples.pinnedHandles.slice(0, 4),
      ...samples.pinnedHandles.slice(-2),
      ...samples.unpinnedHandles.slice(0, 3),
    ]),
  ];
  for (const handle of handles) {
    await http.get(`/api/idp/${handle}`);
    await http.get(`/api/idp/${handle}/history`);
  }
  await http.get(`/api/idp/@${samples.handles[0]!.toUpperCase()}`);
  // The record carries the first 100 of each list; the pages start from a keyset cursor before the newest.
  const beforeNewestToken = Buffer.from(JSON.stringify(["t", NOW_MS + DAY, "11111111111111111111111111111111"]));
  const beforeNewestPayout = Buffer.from(JSON.stringify(["p", 2 ** 31]));
  for (const handle of [samples.handles[0]!, samples.payingHandle]) {
    await paged(
      http,
      `/api/idp/${handle}/tokens?limit=2&cursor=${beforeNewestToken.toString("base64url")}`,
      3,
      (b, p) => withParam(p.replace(/&cursor=.*$/, ""), "cursor", b.nextCursor ?? null),
    );
    await paged(
      http,
      `/api/idp/${handle}/payouts?limit=1&cursor=${beforeNewestPayout.toString("base64url")}`,
      3,
      (b, p) => withParam(p.replace(/&cursor=.*$/, ""), "cursor", b.nextCursor ?? null),
    );
  }
  await http.get(`/api/idp/${samples.handles[0]}/tokens`);
  await http.get(`/api/idp/${samples.handles[0]}/tokens?cursor=zzz`);
  await http.get(`/api/idp/${samples.payingHandle}`);
  await http.get(`/api/idp/${samples.handles[0]}/payouts?cursor=${beforeNewestPayout.toString("base64url")}&limit=101`);
  await http.get("/api/idp/nobody_here_123");
  await http.get("/api/idp/not%20a%20handle");
  await http.get("/api/idp/way_too_long_handle_x");
  await http.get("/api/idp/nobody_here_123/history");
}

/** The ledger feed and its paging; refusals. */
async function readLedgerFeed(http: Requester): Promise<void> {
  await paged(http, "/api/ledger?limit=10", 4, (b, p) =>
    withParam(p.replace(/&before=.*$/, ""), "before", b.nextBefore ?? null),
  );
  await http.get("/api/ledger");
  await http.get(`/api/ledger?before=${encodeURIComponent(new Date(NOW_MS - 30 * DAY).toISOString())}&limit=5`);
  await http.get("/api/ledger?before=yesterday");
  await http.get("/api/ledger?limit=101");
  await http.get("/api/ledger?limit=-1");
}

/** Platform figures and proofs. */
async function readPlatformFigures(http: Requester): Promise<void> {
  await http.get("/api/stats");
  await http.get("/api/stats?anything=ignored");
  await http.get("/api/proof");
  await http.get("/api/proof/history");
  await http.get("/api/proof/history?days=7");
  await http.get("/api/proof/history?days=9999");
  await http.get("/api/proof/liabilities");
  await http.get(`/api/proof/liabilities?at=${encodeURIComponent(new Date(NOW_MS - 2 * DAY).toISOString())}`);
  await http.get(`/api/proof/liabilities?at=${encodeURIComponent(new Date(NOW_MS - 30 * DAY).toISOString())}`);
  await http.get("/api/proof/liabilities?at=soon");
  await http.get("/api/launch/config");
  await http.get("/api/ca");
  await http.get("/api/cron/health");
}

/** Signed-out views of the session routes. */
async function readSignedOutViews(http: Requester): Promise<void> {
  await http.get("/api/me");
  await http.get("/api/me/tokens");
  await http.get("/api/me/payouts");
  await http.get("/api/me/proof");
  await http.get("/api/me/export.csv");
  await http.get("/api/admin/session");
  await http.get("/api/admin/overview");
  await http.get("/metrics");
}

/** Documents and the page. */
async function readDocumentsAndPages(http: Requester, samples: Samples): Promise<void> {
  await http.get("/api/openapi.json");
  await http.get("/api/docs", "page");
  await http.get("/api/no-such-route");
  await http.get("/api");
  await http.get("/api/ledger/stream", "headers-only");
  await http.get("/favicon.svg");
  await http.get("/favicon.ico");
  for (const page of ["/", `/token/${samples.mints[0]}`, `/idp/${samples.handles[0]}`, "/ledger", "/proof"]) {
    await http.get(page, "page");
  }
  await http.get("/no/such/page", "page");
  await http.get("/assets/no-such-file.js");
}

export function renderGolden(responses: readonly RecordedResponse[]): string {
  return `${JSON.stringify(responses, null, 2)}\n`;
}

/** The first recorded response that differs from the golden one, described for a person; null when none does. */
export function firstDifference(
  golden: readonly RecordedResponse[],
  current: readonly RecordedResponse[],
): string | null {
  for (let i = 0; i < Math.max(golden.length, current.length); i++) {
    const want = golden[i];
    const got = current[i];
    if (!want || !got) return `response #${i}: ${want ? `missing ${want.request}` : `extra ${got!.request}`}`;
    if (want.request !== got.request) return `response #${i}: requested ${got.request}, golden has ${want.request}`;
    const wantLines = JSON.stringify(want, null, 2).split("\n");
    const gotLines = JSON.stringify(got, null, 2).split("\n");
    const line = wantLines.findIndex((l, k) => l !== gotLines[k]);
    if (line < 0 && wantLines.length === gotLines.length) continue;
    if (want.body !== undefined && got.body !== undefined && want.body !== got.body && want.status === got.status) {
      let at = 0;
      while (want.body[at] === got.body[at]) at++;
      const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 80), at + 80));
      const headersNote = JSON.stringify(want.headers) === JSON.stringify(got.headers) ? "" : " (headers differ too)";
      return `${got.request} body differs at character ${at}${headersNote}:\n  golden:  ${around(want.body)}\n  current: ${around(got.body)}`;
    }
    return `${got.request} differs:\n  golden:  ${wantLines[line]?.slice(0, 400)}\n  current: ${gotLines[line]?.slice(0, 400)}`;
  }
  return null;
}

export function readGolden(): RecordedResponse[] {
  return JSON.parse(readFileSync(GOLDEN_PATH, "utf8")) as RecordedResponse[];
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const responses = await collectPublicResponses();
  if (args.includes("--write")) {
    writeFileSync(GOLDEN_PATH, renderGolden(responses));
    process.stdout.write(`wrote ${responses.length} responses to ${GOLDEN_PATH}\n`);
  } else if (args.includes("--check")) {
    if (!existsSync(GOLDEN_PATH)) {
      process.stderr.write(`no golden file at ${GOLDEN_PATH}; run with --write first\n`);
      process.exit(1);
    }
    const difference = firstDifference(readGolden(), responses);
    if (difference) {
      process.stderr.write(`public responses differ from the golden file:\n${difference}\n`);
      process.exit(1);
    }
    process.stdout.write(`${responses.length} public responses match ${GOLDEN_PATH}\n`);
  } else {
    process.stdout.write(renderGolden(responses));
  }
  // The cancelled event stream leaves a keep-alive timer behind; the answers are all in.
  process.exit(process.exitCode ?? 0);
}
