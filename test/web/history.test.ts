/**
 * The history in headless Chromium against a seeded service: the token's fee chart and the proof
 * page's solvency chart draw at 1280 and 360 px with their text alternatives (screenshots in
 * test/artifacts/), and the signed-in page's Export CSV button downloads the statement.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import type { Page } from "playwright-core";
import { DESKTOP, useBrowser, overflowsHorizontally, PHONE, screenshot } from "./browser";
import { seededSite, type SeededSite } from "./history-support";

const browser = useBrowser({ testTimeoutMs: 60_000 });
let site: SeededSite;

beforeAll(async () => {
  site = await seededSite();
}, 90_000);
afterAll(async () => {
  await site?.stop();
});

/** Pixels drawn on the chart's canvas that are not transparent. */
async function paintedPixels(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => {
    const canvas = document.querySelector<HTMLCanvasElement>(`${sel} canvas`);
    if (!canvas) return -1;
    const data = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
    return painted;
  }, selector);
}

async function canvasWidth(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => document.querySelector(`${sel} canvas`)!.getBoundingClientRect().width, selector);
}

describe("charts", () => {
  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    test(`the token's fee chart at ${viewport.width} px`, async () => {
      browser.errors.length = 0;
      const page = await browser.newPage(viewport);
      await page.goto(`${site.url}/token/${site.mint}`);
      await page.locator("#fee-chart canvas").first().waitFor({ timeout: 15_000 });
      expect(await paintedPixels(page, "#fee-chart")).toBeGreaterThan(500);
      const width = await canvasWidth(page, "#fee-chart");
      expect(width).toBeLessThanOrEqual(viewport.width);
      expect(width).toBeGreaterThan(viewport.width / 2);
      const label = await page.locator("#fee-chart [role=img]").getAttribute("aria-label");
      const history = (await (await fetch(`${site.url}/api/tokens/${site.mint}/history`)).json()) as {
        points: { sweptLamports: string }[];
      };
      expect(history.points.length).toBe(14);
      expect(label).toContain("Fees swept on 14 of the last 90 days");
      await page.locator("#fee-chart summary").click();
      expect(await page.locator("#fee-chart table tbody tr").count()).toBe(14);
      expect(await page.locator("#fee-chart table tbody tr").first().locator("td").nth(1).innerText()).toBe(
        "1.123456789 SOL",
      );
      expect(await overflowsHorizontally(page)).toEqual([]);
      await screenshot(page, `history-token-chart-${name}`);
      // The seeded avatars name a host that does not resolve offline; anything else is a page error.
      expect(browser.errors.filter((e) => !e.includes("ERR_NAME_NOT_RESOLVED")).join("\n")).toBe("");
      await page.close();
    });

    test(`the proof page's solvency chart at ${viewport.width} px`, async () => {
      browser.errors.length = 0;
      const page = await browser.newPage(viewport);
      await page.goto(`${site.url}/proof`);
      await page.locator("#solvency-chart canvas").first().waitFor({ timeout: 15_000 });
      expect(await paintedPixels(page, "#solvency-chart")).toBeGreaterThan(500);
      expect(await canvasWidth(page, "#solvency-chart")).toBeLessThanOrEqual(viewport.width);
      const summary = await page.locator("#solvency-chart .chart-summary").innerText();
      expect(summary).toContain("Short of what was owed at 1 of 14 snapshots");
      expect(summary).toContain("The lowest surplus was -0.2 SOL");
      await page.locator("#solvency-chart summary").click();
      expect(await page.locator("#solvency-chart table tbody tr").count()).toBe(14);
      expect(await overflowsHorizontally(page)).toEqual([]);
      await screenshot(page, `history-proof-chart-${name}`);
      // The seeded avatars name a host that does not resolve offline, and no liabilities snapshot is
      // published yet (the page says so; Chromium logs the 404 of that read); anything else is a page error.
      expect(
        browser.errors
          .filter((e) => !e.includes("ERR_NAME_NOT_RESOLVED"))
          .filter(
            (e) =>
              !e.endsWith("/proof: Failed to load resource: the server responded with a status of 404 (Not Found)"),
          )
          .join("\n"),
      ).toBe("");
      expect(await page.locator("#liabilities").innerText()).toContain("No liabilities snapshot is published yet.");
      await page.close();
    });
  }
});

describe("the signed-in page", () => {
  test("Export CSV downloads the account's statement, which adds up to its figures", async () => {
    const cookie = site.sessionToken("u-chartist");
    await browser.context.addCookies([{ ...cookie, url: site.url }]);
    const page = await browser.newPage(DESKTOP);
    await page.goto(`${site.url}/me`);
    const button = page.getByRole("link", { name: "Export CSV" });
    await button.waitFor({ timeout: 15_000 });
    const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
    expect(download.suggestedFilename()).toMatch(/^fee-ledger-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = readFileSync((await download.path())!, "utf8");
    const rows = parse(text, { columns: true }) as { type: string; lamports: string; status: string }[];
    const me = await page.evaluate(async () => (await fetch("/api/me")).json());
    const sum = (type: string) =>
      rows
        .filter((r) => r.type === type && r.status !== "failed" && r.status !== "replaced")
        .reduce((n, r) => n + BigInt(r.lamports), 0n);
    expect(rows.filter((r) => r.type === "credit").length).toBe(19);
    expect(sum("credit").toString()).toBe(me.creditedLamports);
    expect(sum("payout").toString()).toBe(me.paidLamports);
    expect(me.paidLamports).toBe("2000000000");
    // The page stays where it was: a download is not a navigation.
    expect(new URL(page.url()).pathname).toBe("/me");
    await page.close();
    await browser.context.clearCookies();
  });

  test("the account page shows the pin history", async () => {
    const page = await browser.newPage(PHONE);
    await page.goto(`${site.url}/idp/chartist`);
    await page.locator("#handle-history li").first().waitFor({ timeout: 15_000 });
    expect(await page.locator("#handle-history li").first().innerText()).toContain("Signed in as @Chartist");
    expect(await overflowsHorizontally(page)).toEqual([]);
    await page.close();
  });
});
