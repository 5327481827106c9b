/**
 * The live ledger page against the real app once a payout's status changes are events of their own
 * (issue 64 item 2): the page keeps one row per payout and moves it on to each status the stream
 * announces, although the payout's own event keeps saying `queued`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { confirmPayouts, markPayoutsSent } from "../../src/payouts";
import { testService, type TestService } from "../helpers/service";
import { launch, payout, signIn, sweep } from "../helpers/read-world";
import { freePort } from "../helpers/socket";
import { useBrowser } from "./browser";

const browser = useBrowser({ testTimeoutMs: 60_000 });
let svc: TestService;
let server: ReturnType<typeof Bun.serve>;
let url: string;

beforeAll(() => {
  const port = freePort();
  url = `http://127.0.0.1:${port}`;
  svc = testService({ PUBLIC_URL: url, RATE_LIMIT: "off" });
  server = Bun.serve({ port, hostname: "127.0.0.1", idleTimeout: 0, fetch: (request) => svc.app.handle(request) });
});
afterAll(async () => {
  await server?.stop(true);
  await svc?.cleanup();
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 15_000;
  while (Date.now() < end) {
    if (await check()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

test("a payout's row moves on from queued to sent to confirmed, one row, as the stream announces each status", async () => {
  const db = svc.ctx.db;
  const now = Date.now();
  const t = launch(db, { symbol: "LIVE", recipients: [{ handle: "alice", bps: 10_000 }], launchedAtMs: now - 60_000 });
  sweep(db, t.tokenId, 50_000_000n, now - 30_000);
  signIn(db, "u-alice", "alice", now - 20_000);
  const page = await browser.context.newPage();
  await page.goto(`${url}/ledger`);
  await page.locator("#live-status", { hasText: "Live" }).waitFor();
  const rows = page.locator('#ledger li[data-type="payout"]');
  const status = () => rows.first().locator("[data-status]").getAttribute("data-status");

  const q = payout(db, "u-alice", 20_000_000n, Date.now(), "queued");
  await until(async () => (await rows.count()) === 1 && (await status()) === "queued", "the queued payout");
  markPayoutsSent(db, {
    payoutIds: [q.payoutId],
    signature: "3".repeat(88),
    lastValidBlockHeight: 10n,
    atMs: Date.now(),
  });
  await until(async () => (await status()) === "sent", "the payout sent");
  confirmPayouts(db, "3".repeat(88), Date.now());
  await until(async () => (await status()) === "confirmed", "the payout confirmed");
  expect(await rows.count()).toBe(1);
  expect(await page.locator("#ledger li").count()).toBe(3);

  // A fresh load reads the same from pages alone: the status events fold into the payout's row.
  await page.reload();
  await until(async () => (await rows.count()) === 1 && (await status()) === "confirmed", "the reloaded row");
  expect(await page.locator("#ledger li").count()).toBe(3);
  expect(browser.errors).toEqual([]);
  await page.close();
});
