/**
 * A seeded in-process service served over loopback for the history browser tests: one token with
 * sweeps spread over the last weeks, a signed-in recipient with payouts, solvency snapshots taken
 * as the sweeps landed, and a fake treasury for /api/proof. Everything goes through the money
 * services the jobs use.
 */
import { createSession, sessionCookieName } from "../../src/auth/sessions";
import { ledgerTotals } from "../../src/ledger/figures";
import { recordSolvencySnapshot } from "../../src/history/snapshots";
import { testService, type TestService } from "../helpers/service";
import { fakeChain, launch, payout, signIn, sweep } from "../helpers/read-world";
import { freePort } from "../helpers/socket";

const DAY = 86_400_000;

export interface SeededSite {
  svc: TestService;
  url: string;
  mint: string;
  hiddenCandidate: { mint: string; name: string };
  adminSecret: string;
  sessionToken(idpUserId: string): { name: string; value: string };
  stop(): Promise<void>;
}

export async function seededSite(): Promise<SeededSite> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const adminSecret = `admin-${crypto.randomUUID()}`;
  // Noon UTC today: a sweep placed an hour after another must fall on the same UTC day whatever
  // time CI runs (from now at 23:xx it crossed midnight, and the chart counted five more days).
  const now = Math.floor(Date.now() / DAY) * DAY + DAY / 2;
  let owedExtra = 0n;
  const chain = fakeChain({ treasuryLamports: async () => ledgerTotals(svc.ctx.db).owedLamports + owedExtra });
  const svc = testService({ PUBLIC_URL: url, ADMIN_SECRET: adminSecret, RATE_LIMIT: "off" }, { chain });
  const db = svc.ctx.db;
  const token = launch(db, {
    name: "Chart Coin",
    symbol: "CHART",
    image: true,
    recipients: [
      { handle: "Chartist", bps: 7000 },
      { handle: "helper", bps: 3000 },
    ],
    launchedAtMs: now - 40 * DAY,
  });
  const other = launch(db, {
    name: "Hide Me Coin",
    symbol: "HIDE",
    image: true,
    recipients: [{ handle: "helper", bps: 10_000 }],
    launchedAtMs: now - 39 * DAY,
  });
  signIn(db, "u-chartist", "Chartist", now - 35 * DAY, { routing: "hold" });
  for (let i = 0; i < 14; i++) {
    const atMs = now - (28 - 2 * i) * DAY;
    sweep(db, token.tokenId, BigInt(1_000_000_000 + i * 377_000_001), atMs);
    if (i % 3 === 0) sweep(db, token.tokenId, 123_456_789n, atMs + 3_600_000);
    // The treasury runs a little ahead of what is owed, and was short once.
    owedExtra = i === 6 ? -200_000_000n : BigInt(500_000_000 + i * 10_000_000);
    recordSolvencySnapshot(db, {
      treasuryLamports: ledgerTotals(db).owedLamports + owedExtra,
      atMs: atMs + 7_200_000,
      trigger: "sweep",
    });
    if (i === 9) payout(db, "u-chartist", 2_000_000_000n, atMs + 7_300_000, "confirmed");
  }
  sweep(db, other.tokenId, 42_000_000n, now - DAY);
  owedExtra = 1_000_000_000n;
  const server = Bun.serve({ port, hostname: "127.0.0.1", fetch: (request) => svc.app.handle(request) });
  return {
    svc,
    url,
    mint: token.mint,
    hiddenCandidate: { mint: other.mint, name: "Hide Me Coin" },
    adminSecret,
    sessionToken(idpUserId) {
      return { name: sessionCookieName(svc.ctx.config), value: createSession(db, idpUserId, Date.now()).token };
    },
    async stop() {
      await server.stop(true);
      await svc.cleanup();
    },
  };
}
