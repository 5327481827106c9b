/**
 * Issue 47 against the real app: sign-in opened at 127.0.0.1 while PUBLIC_URL says localhost
 * (item 1), the operator page's confirmations with a required reason, its paged runs and its
 * accessibility (item 9), compressed and minified text assets with a description and a footer
 * link to the API reference (item 11), and the payouts page's missing cursor (item 10).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { axeViolations, overflowsHorizontally, screenshot, useBrowser } from "./browser";
import { seededSite, type SeededSite } from "./history-support";
import { testService } from "../helpers/service";
import { freePort } from "../helpers/socket";
import { refreshMarket } from "../../src/market";
import { solUsdFromPairs, WSOL_MINT } from "../../src/market/adapter";

const WIDTHS = [
  ["1280", { width: 1280, height: 900 }],
  ["390", { width: 390, height: 844 }],
] as const;

const browser = useBrowser({ testTimeoutMs: 90_000 });
let site: SeededSite;

beforeAll(async () => {
  site = await seededSite();
  // Forty runs: more than one page of the operator's run list.
  const insert = site.svc.ctx.db.$client.query(
    `INSERT INTO job_runs (job, generation, holder, started_at_ms, finished_at_ms, ok, error)
     VALUES (?, 1, 'test', ?, ?, ?, ?)`,
  );
  const start = Date.now() - 40 * 60_000;
  for (let i = 0; i < 40; i++) {
    const failed = i % 7 === 3;
    insert.run(
      ["sweep", "payouts", "burns", "market"][i % 4]!,
      start + i * 60_000,
      start + i * 60_000 + 900,
      failed ? 0 : 1,
      failed ? `run ${i} failed` : null,
    );
  }
}, 90_000);
afterAll(async () => {
  await site?.stop();
});

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function expectAccessible(page: Page, where: string): Promise<void> {
  expect(await axeViolations(page, where)).toEqual([]);
}

async function adminSignIn(page: Page): Promise<void> {
  await page.goto(`${site.url}/admin`);
  const secret = page.getByLabel("Admin secret");
  const dashboard = page.locator("#admin-jobs table").first();
  await Promise.race([secret.waitFor({ timeout: 15_000 }), dashboard.waitFor({ timeout: 15_000 })]);
  if (await secret.isVisible()) {
    await secret.fill(site.adminSecret);
    await page.getByRole("button", { name: "Sign in" }).click();
  }
  await dashboard.waitFor({ timeout: 15_000 });
}

const auditRows = (limit = 5) =>
  site.svc.ctx.db.$client
    .query<{ action: string; reason: string | null }, [number]>(
      "SELECT action, reason FROM admin_audit ORDER BY id DESC LIMIT ?",
    )
    .all(limit);

describe("1. sign-in opened at 127.0.0.1 while PUBLIC_URL names localhost", () => {
  for (const [label, viewport] of WIDTHS) {
    test(`dev login works at ${label} px`, async () => {
      const port = freePort();
      const svc = testService({ PUBLIC_URL: `http://localhost:${port}`, RATE_LIMIT: "off" });
      const server = Bun.serve({ port, hostname: "127.0.0.1", fetch: (request) => svc.app.handle(request) });
      const page = await browser.newPage(viewport);
      try {
        await page.goto(`http://127.0.0.1:${port}/me`);
        await page.getByLabel("Handle").fill("newcomer");
        await page.getByRole("button", { name: "Sign in as this handle" }).click();
        await page.locator('[data-field="balance"]').waitFor({ timeout: 15_000 });
        expect(await page.locator("main").innerText()).not.toContain("another site");
        expect(await page.locator("#session").innerText()).toBe("@newcomer");
        await screenshot(page, `issue47-1-loopback-signin-${label}`);
      } finally {
        await page.close();
        await server.stop(true);
        await svc.cleanup();
      }
    });
  }
});

describe("9. the operator page", () => {
  for (const [label, viewport] of WIDTHS) {
    test(`hiding and pausing ask for a reason and a confirmation; runs are paged; no empty header (${label} px)`, async () => {
      const page = await browser.newPage(viewport);
      await adminSignIn(page);
      // Runs: ten at a time.
      const runs = page.locator("#admin-runs tbody tr");
      await runs.first().waitFor();
      expect(await runs.count()).toBe(10);
      expect(await page.locator("#admin-runs-range").innerText()).toBe("Runs 1–10 of 40");
      await page.getByRole("button", { name: "Older runs" }).click();
      expect(await page.locator("#admin-runs-range").innerText()).toBe("Runs 11–20 of 40");
      expect(await page.getByRole("button", { name: "Newer runs" }).isEnabled()).toBe(true);
      // No table anywhere has a header without a name.
      await page.locator("#admin-tokens table").waitFor();
      const headers = await page.locator("main th").allInnerTexts();
      expect(headers.filter((h) => h.trim() === "")).toEqual([]);
      // The set-aside and webhook sections answer something readable (not an error box).
      expect(await page.locator("#admin-set-aside .notice.error, #admin-webhooks .notice.error").count()).toBe(0);

      // Pause claims: a confirmation; cancelling changes nothing.
      await page.getByRole("button", { name: "Pause claims" }).click();
      const dialog = page.locator("#admin-dialog");
      await dialog.waitFor();
      expect(await dialog.locator("h2").innerText()).toBe("Pause claims?");
      await expectAccessible(page, `/admin dialog ${label}`);
      await page.getByRole("button", { name: "Cancel" }).click();
      await until(async () => (await page.locator("#admin-pauses").innerText()).includes("Nothing changed."), "cancel");
      expect(await page.locator("#admin-pauses").innerText()).toContain("Claims: open");

      // Hide a token: the reason is required, then goes to the audit log.
      await page.getByLabel("Find a token").fill("Hide Me");
      const hide = page.getByRole("button", { name: "Hide Hide Me Coin" });
      await hide.waitFor();
      await hide.click();
      await dialog.waitFor();
      await page.locator("#admin-confirm").click();
      expect(await page.locator("#admin-reason-error").innerText()).toBe(
        "Say why: the reason is kept in the audit log.",
      );
      expect(await page.locator("#admin-reason").getAttribute("aria-invalid")).toBe("true");
      expect(auditRows(1)[0]?.action).not.toBe("hide_token");
      const reason = `reported as spam (${label})`;
      await page.getByLabel("Reason").fill(reason);
      await screenshot(page, `issue47-9-admin-confirm-${label}`);
      await page.locator("#admin-confirm").click();
      await page.getByText("Hide Me Coin is hidden from Explore.").waitFor({ timeout: 10_000 });
      expect(auditRows(1)[0]).toEqual({ action: "hide_token", reason });
      await page.locator("#admin-audit td", { hasText: reason }).first().waitFor({ timeout: 10_000 });

      // And back, so the other width starts from the same state.
      await page.getByRole("button", { name: "Unhide Hide Me Coin" }).click();
      await page.getByLabel("Reason").fill("cleared after review");
      await page.locator("#admin-confirm").click();
      await page.getByText("Hide Me Coin is shown on Explore again.").waitFor({ timeout: 10_000 });
      expect(auditRows(1)[0]).toEqual({ action: "unhide_token", reason: "cleared after review" });

      expect(await overflowsHorizontally(page)).toEqual([]);
      await expectAccessible(page, `/admin ${label}`);
      await screenshot(page, `issue47-9-admin-${label}`);
      await page.close();
    });
  }
});

describe("4. SOL's price in USD from the market source", () => {
  const solPair = (priceUsd: string, priceNative: string, liquidity: number) => ({
    chainId: "solana",
    baseToken: { address: "Mint1111111111111111111111111111111111111111" },
    quoteToken: { address: WSOL_MINT },
    priceUsd,
    priceNative,
    liquidity: { usd: liquidity },
  });

  test("is the most liquid SOL-quoted pair's USD price over its SOL price, or nothing", () => {
    expect(solUsdFromPairs([solPair("0.0003", "0.000002", 10), solPair("0.00015", "0.000001", 500)], "solana")).toBe(
      150,
    );
    // A pair quoted in another token, or without both prices, says nothing about SOL.
    expect(
      solUsdFromPairs(
        [{ ...solPair("0.0003", "0.000002", 10), quoteToken: { address: "USDC" } }, { ...solPair("0.0003", "", 10) }],
        "solana",
      ),
    ).toBeNull();
  });

  test("the market job stores it and the page is served with it while it is fresh", async () => {
    const db = site.svc.ctx.db;
    const job = { signal: new AbortController().signal, assertHeld: () => {} };
    const market = { batchSize: 30, solUsd: null as number | null, fetchBatch: async () => new Map() };
    const meta = async () =>
      /<meta name="sol-usd" content="([^"]*)">/.exec(await (await site.svc.call("/")).text())![1];
    await refreshMarket(db, market, job, () => Date.now());
    expect(await meta()).toBe("");
    market.fetchBatch = async () => {
      market.solUsd = 151.25;
      return new Map();
    };
    await refreshMarket(db, market, job, () => Date.now());
    expect(await meta()).toBe("151.25");
    // Seven hours old: not about now any more, so not shown.
    await refreshMarket(db, market, job, () => Date.now() - 7 * 3_600_000);
    expect(await meta()).toBe("");
  });
});

describe("11. text assets", () => {
  const accept = (encoding: string | null) => (encoding ? { headers: { "accept-encoding": encoding } } : {});

  test("the page, its code and its styles are served brotli or gzip as the browser accepts, and minified", async () => {
    const plain = await site.svc.call("/", accept(null));
    const html = await plain.text();
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(html).toContain('<meta name="description" content="');
    expect(html).toMatch(/<footer[^>]*>[\s\S]*<a href="\/api\/docs">API reference<\/a>/);
    const app = /src="(\/assets\/app-[^"]+\.js)"/.exec(html)![1]!;
    const css = /href="(\/assets\/styles-[^"]+\.css)"/.exec(html)![1]!;
    for (const path of ["/", app, css]) {
      const identity = new Uint8Array(await (await site.svc.call(path, accept(null))).arrayBuffer());
      const br = await site.svc.call(path, accept("gzip, deflate, br"));
      expect(br.headers.get("content-encoding")).toBe("br");
      expect(br.headers.get("vary")).toBe("Accept-Encoding");
      const brBytes = new Uint8Array(await br.arrayBuffer());
      expect(brBytes.length).toBeLessThan(identity.length / 2);
      expect(new Uint8Array(brotliDecompressSync(brBytes))).toEqual(identity);
      const gzip = await site.svc.call(path, accept("gzip"));
      expect(gzip.headers.get("content-encoding")).toBe("gzip");
      expect(new Uint8Array(gunzipSync(new Uint8Array(await gzip.arrayBuffer())))).toEqual(identity);
      // Refused by q=0: the plain bytes.
      const refused = await site.svc.call(path, accept("br;q=0, gzip;q=0"));
      expect(refused.headers.get("content-encoding")).toBeNull();
    }
    // Minified: no indentation or comments left in the styles.
    const styles = await (await site.svc.call(css)).text();
    expect(styles).not.toContain("/*");
    expect(styles).not.toMatch(/\n {2}/);
  });

  test("10. the payouts page without a cursor says the cursor is missing", async () => {
    const { status, body } = await site.svc.json("/api/idp/chartist/payouts");
    expect(status).toBe(400);
    expect(body).toEqual({ error: "The query parameter 'cursor' is missing." });
  });
});
