/**
 * Issue 65: the page as a person uses it, third walk, in Chromium against the fake API
 * (test/web/fake-api.ts): a page whose code fails to load, focus after signing in, the live
 * ledger's order, /me while the API is down, the page without JavaScript, the figures' display
 * and the proof chart's axes.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Page, Route } from "playwright-core";
import { axeViolations, DESKTOP, screenshot, useBrowser, until } from "./browser";
import { solShort } from "../../public/src/money";
import { dayLabel } from "../../public/src/time";
import { FakeApi } from "./fake-api";
import * as fx from "./fixtures";
import { eventId } from "./fixtures";

const browser = useBrowser({ testTimeoutMs: 60_000 });
let api: FakeApi;
let page: Page;

beforeEach(async () => {
  api = await new FakeApi().start();
  browser.errors.length = 0;
});
afterEach(async () => {
  await page?.close();
  await api?.stop();
});

const text = (selector: string) => page.locator(selector).first().innerText();

async function open(path: string, viewport = DESKTOP): Promise<void> {
  page = await browser.newPage(viewport);
  await page.goto(`${api.url}${path}`);
}

async function devLogin(handle = "alice"): Promise<void> {
  await open("/me");
  await page.getByLabel("Handle").fill(handle);
  await page.getByRole("button", { name: "Sign in as this handle" }).click();
  await page.locator('[data-field="balance"]').waitFor();
}

/** Every page chunk (`/assets/chunk-<hash>.js`): the code of every page but Explore. */
const CHUNKS = /\/assets\/chunk-[^/]+\.js$/;

/** Counts the page's document loads (the first one and each reload). */
function countDocumentLoads(p: Page): { count: number } {
  const loads = { count: 0 };
  p.on("request", (request) => {
    if (request.resourceType() === "document") loads.count++;
  });
  return loads;
}

/** Explore, then a click on the first token: its page's code is a chunk loaded on the way. */
async function openTokenFromExplore(): Promise<string> {
  await page.locator("#token-list > li[data-mint] a").first().waitFor();
  const mint = (await page.locator("#token-list > li[data-mint]").first().getAttribute("data-mint"))!;
  await page.locator("#token-list > li[data-mint] a").first().click();
  return mint;
}

const retryBox = () => page.locator('main [role="alert"]', { hasText: "could not be loaded" });

describe("1. a page whose code fails to load", () => {
  test("with the service unreachable, the retry box shows (no reload), and Try again loads the page", async () => {
    await open("/");
    const loads = countDocumentLoads(page);
    let down = true;
    await page.route(CHUNKS, (route: Route) => (down ? route.abort("connectionrefused") : route.continue()));
    const mint = await openTokenFromExplore();
    await retryBox().waitFor();
    expect(await text("main h1")).toBe("Token");
    expect(new URL(page.url()).pathname).toBe(`/token/${mint}`);
    expect(loads.count).toBe(0);
    await screenshot(page, "issue65-1-retry-box");

    down = false;
    await page.getByRole("button", { name: "Try again" }).click();
    await page.locator('[data-field="swept"]').waitFor();
    expect(await retryBox().count()).toBe(0);
    expect(loads.count).toBe(0);
  });

  test("a chunk a deploy removed (404) reloads the page once, and the new build's page shows", async () => {
    await open("/");
    const loads = countDocumentLoads(page);
    // The old build's chunks are gone until the reload fetches the page again (the new build).
    await page.route(CHUNKS, (route: Route) =>
      loads.count === 0 ? route.fulfill({ status: 404, json: { error: "No such route." } }) : route.continue(),
    );
    const mint = await openTokenFromExplore();
    await page.locator('[data-field="swept"]').waitFor();
    expect(loads.count).toBe(1);
    expect(new URL(page.url()).pathname).toBe(`/token/${mint}`);
  });

  test("a chunk that stays missing reloads once only, then shows the retry box", async () => {
    await open("/");
    await page.locator("#token-list > li[data-mint] a").first().waitFor();
    const loads = countDocumentLoads(page);
    // The entry's own shared chunk loaded with the page; every page chunk it has not loaded yet is gone.
    const loaded = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
    await page.route(CHUNKS, (route: Route) =>
      loaded.includes(route.request().url())
        ? route.continue()
        : route.fulfill({ status: 404, json: { error: "No such route." } }),
    );
    await openTokenFromExplore();
    await until(() => loads.count === 1, "the one reload");
    await retryBox().waitFor();
    expect(await text("main h1")).toBe("Token");
    // The box is the end of it: another failed attempt does not reload again.
    await page.getByRole("button", { name: "Try again" }).click();
    await until(async () => (await retryBox().count()) === 1, "the retry box again");
    expect(loads.count).toBe(1);
  });
});

describe("9. focus after signing in", () => {
  test("after dev sign-in keyboard focus is on the page's heading, not <body>", async () => {
    await devLogin();
    await until(() => page.evaluate(() => document.activeElement?.tagName === "H1"), "focus on the heading");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(await text("main h1"));
    // Signing out lands on the sign-in page's heading too.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#dev-login").waitFor();
    await until(() => page.evaluate(() => document.activeElement?.textContent === "Sign in"), "focus on Sign in");
    expect(await axeViolations(page, "/me signed out")).toEqual([]);
  });
});

describe("8. the live ledger's order", () => {
  test("events of one second from the stream show newest first, in the order of their ids", async () => {
    await open("/ledger");
    await until(async () => (await page.locator("#ledger li").count()) === 4, "the first page");
    await until(() => api.ledgerStreams.size === 1, "the stream");
    const second = api.now + 2_000;
    const at = new Date(second).toISOString();
    const [t0, t1, t2] = api.tokens;
    // One sweep run: three sweeps committed in one second, a microsecond apart.
    for (const [bump, t] of [t0!, t1!, t2!].entries()) {
      api.pushLedgerEvent(eventId(second, bump), {
        type: "sweep",
        at,
        mint: t.mint,
        symbol: t.symbol,
        signature: "7".repeat(87),
        totalLamports: "1000000000",
        platformLamports: "100000000",
      } as { type: string });
    }
    await until(async () => (await page.locator("#ledger li").count()) === 7, "the three live sweeps");
    const tickers = async (n: number) =>
      (await page.locator("#ledger li").allInnerTexts()).slice(0, n).map((t) => /\$[A-Z0-9]+/.exec(t)?.[0]);
    const newestFirst = [t2!, t1!, t0!].map((t) => `$${t.symbol}`);
    expect(await tickers(3)).toEqual(newestFirst);
    // A fresh load reads the feed's own order (newest id first): the same.
    api.ledgerEvents = [2, 1, 0].map((bump) => ({
      type: "sweep",
      id: eventId(second, bump),
      at,
      mint: api.tokens[bump]!.mint,
      symbol: api.tokens[bump]!.symbol,
      signature: "7".repeat(87),
      totalLamports: "1000000000",
      platformLamports: "100000000",
    }));
    await page.reload();
    await until(async () => (await page.locator("#ledger li").count()) === 3, "the page read");
    expect(await tickers(3)).toEqual(newestFirst);
    expect(await axeViolations(page, "/ledger")).toEqual([]);
  });
});

describe("3. /me while the API is down", () => {
  test("a failed refresh says the figures may be out of date and since when; a good one takes the notice away", async () => {
    // A payout on its way: the page refreshes every 2 s (the fake moves it on by reads; this one stays).
    api.payouts.push({
      id: 99,
      lamports: "500000000",
      wallet: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
      kind: "claim",
      status: "queued",
      signature: null,
      createdAt: new Date().toISOString(),
      confirmedAt: null,
      reads: -1_000_000,
    });
    await devLogin();
    const stale = page.locator('#stale-figures [role="alert"]');
    expect(await stale.count()).toBe(0);
    api.override("/api/me", { status: 503, body: { error: "The service is restarting." }, times: 1_000_000 });
    await stale.waitFor();
    const said = await stale.innerText();
    expect(said).toContain("These figures may be out of date");
    expect(said).toContain("The service is restarting.");
    expect(said).toMatch(/They are as of (just now|\d+ seconds? ago)/);
    // The figures stay shown (they are the last known), under the notice.
    expect(await text('[data-field="balance"]')).toBe("2 SOL");
    expect(await axeViolations(page, "/me stale")).toEqual([]);
    await screenshot(page, "issue65-3-me-stale");
    api.overrides.delete("/api/me");
    await until(async () => (await stale.count()) === 0, "the notice gone after a good refresh");
  });
});

describe("14. without JavaScript", () => {
  test("the needs-JavaScript note is at the top of main, in view, above the footer", async () => {
    page = await browser.newPage({ width: 390, height: 844 });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setScriptExecutionDisabled", { value: true });
    await page.goto(`${api.url}/token/${api.tokens[0]!.mint}`);
    const note = page.locator("main p.notice", { hasText: "This page needs JavaScript" });
    await note.waitFor();
    expect(await page.evaluate(() => document.querySelector("main")?.firstElementChild?.tagName)).toBe("NOSCRIPT");
    const box = (await note.boundingBox())!;
    const footer = (await page.locator("footer.site").boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(844);
    expect(box.y).toBeLessThan(footer.y);
    await screenshot(page, "issue65-14-no-javascript");
  });
});

describe("11. figures that say one thing", () => {
  test("the short form keeps four decimals, what makes a tiny amount non-zero, and never rounds up", () => {
    expect(solShort("1500000001")).toBe("1.5 SOL");
    expect(solShort("999999999")).toBe("0.9999 SOL");
    expect(solShort("12345")).toBe("0.000012 SOL");
    expect(solShort("1")).toBe("0.000000001 SOL");
    expect(solShort("100000")).toBe("0.0001 SOL");
    expect(solShort("0")).toBe("0 SOL");
    expect(solShort("18446744073709551615")).toBe("18,446,744,073.7095 SOL");
  });

  test("Stats: a job with nothing to do here says Not configured and shows no run beside it", async () => {
    api.health = (now) => {
      const report = fx.health(now);
      // The market job runs without a data source too (it finds nothing to ask), so it has runs.
      report.jobs[4] = {
        ...report.jobs[4]!,
        lastRunAt: new Date(now - 60_000).toISOString(),
        lastOkAt: new Date(now - 60_000).toISOString(),
        secondsSinceOk: 60,
        stale: false,
        runs: 40,
      };
      return report;
    };
    await open("/stats");
    const market = page.locator("#main tbody tr", { hasText: "market" });
    await market.waitFor();
    expect(await market.locator("td").allInnerTexts()).toEqual(["market", "Not configured", "–", "–", "–", "–"]);
    expect(await axeViolations(page, "/stats")).toEqual([]);
  });

  test("an account whose follower count is unknown (0 from the API) shows no count; a known one does", async () => {
    const bob = { ...fx.account("bob_unclaimed", api.tokens[0]!, false), followers: 0 };
    api.override("/api/idp/bob_unclaimed", { status: 200, body: bob });
    await open("/idp/bob_unclaimed");
    await page.locator('[data-field="balance"]').waitFor();
    expect(await text(".account-head p.muted")).toBe("@bob_unclaimed");
    await page.goto(`${api.url}/idp/alice`);
    await page.locator('[data-field="balance"]').waitFor();
    expect(await text(".account-head p.muted")).toBe("@Alice · 1,234 followers");
  });

  test("amounts show up to four decimals, the exact figure on hover and one tap away", async () => {
    const token = api.tokens[0]!;
    await open(`/token/${token.mint}`);
    const swept = page.locator('[data-field="swept"]');
    await swept.waitFor();
    expect(await swept.innerText()).toBe("9,007,199.2547 SOL");
    expect(await swept.getAttribute("title")).toBe(`${fx.BIG_SOL} exactly`);
    expect(await swept.getAttribute("data-lamports")).toBe(token.sweptLamports);
    await swept.click();
    expect(await swept.innerText()).toBe(fx.BIG_SOL);
    expect(await swept.getAttribute("aria-expanded")).toBe("true");
    // A non-zero amount below 0.0001 SOL keeps what makes it non-zero; nothing to cut is plain text.
    expect(await text('[data-field="unswept"]')).toBe("0.000000001 SOL");
    expect(await page.locator('[data-field="unswept"]').evaluate((e) => e.tagName)).toBe("SPAN");
    expect(await axeViolations(page, "/token")).toEqual([]);

    // On Explore the amount sits inside a card its link covers: the tap opens the amount, not the token.
    await page.goto(`${api.url}/`);
    const card = page.locator("#token-list > li[data-mint]").first();
    const cardSwept = card.locator('[data-figure="swept"] dd .money');
    await cardSwept.waitFor();
    expect(await cardSwept.innerText()).toBe("9,007,199.2547 SOL");
    await cardSwept.click();
    expect(await cardSwept.innerText()).toBe(fx.BIG_SOL);
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await axeViolations(page, "/ (Explore)")).toEqual([]);
  });

  test("on a phone a lone fee bar (today's) answers a touch within 12 px of it", async () => {
    const mint = api.tokens[0]!.mint;
    const today = new Date().toISOString().slice(0, 10);
    api.override(`/api/tokens/${mint}/history`, {
      status: 200,
      body: { points: [{ day: today, sweptLamports: "2500000000", platformLamports: "250000000", sweeps: 2 }] },
      times: 5,
    });
    await open(`/token/${mint}`, { width: 390, height: 844 });
    const over = page.locator("#fee-chart .u-over");
    await over.waitFor();
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    const todayCentre = box.x + (box.width * 89.5) / 90;
    // Three days' slots to the left of the bar (a 3 px slot each): still today's bar.
    await page.mouse.move(todayCentre - 10, box.y + box.height / 2);
    await page.locator("#fee-chart .chart-tip").waitFor();
    expect(await text("#fee-chart .chart-tip")).toStartWith(`${dayLabel(today)}: 2.5 SOL swept`);
    // Far from any bar, a day is still its own day.
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await until(async () => (await text("#fee-chart .chart-tip")).endsWith("nothing swept"), "an empty day's tip");
  });
});

/** Records the text a page draws on canvases (uPlot's axis labels), from its last full redraw. */
const RECORD_CANVAS_TEXT = `(() => {
  const proto = CanvasRenderingContext2D.prototype;
  window.__drawn = [];
  const clear = proto.clearRect;
  proto.clearRect = function (x, y, w, h) {
    if (x === 0 && y === 0 && w === this.canvas.width && h === this.canvas.height) window.__drawn = [];
    return clear.call(this, x, y, w, h);
  };
  const fill = proto.fillText;
  proto.fillText = function (text, x, y, ...rest) {
    const m = this.getTransform();
    window.__drawn.push({ text: String(text), x, y, align: this.textAlign, width: this.measureText(String(text)).width, rotated: m.b !== 0 });
    return fill.call(this, text, x, y, ...rest);
  };
})();`;

interface Drawn {
  text: string;
  x: number;
  y: number;
  align: string;
  width: number;
  rotated: boolean;
}

describe("10. the proof chart's axes", () => {
  test("at 1366 px the time labels do not overlap and the SOL axis reads 1M, not 1000.0k", async () => {
    const start = Date.now() - 3 * 3_600_000;
    const points = Array.from({ length: 19 }, (_, i) => {
      const treasury = 1_000_000_000_000_000n + BigInt(i) * 1_000_000_000n;
      const owed = 900_000_000_000_000n;
      return {
        at: new Date(start + i * 600_000).toISOString(),
        treasuryLamports: treasury.toString(),
        owedLamports: owed.toString(),
        surplusLamports: (treasury - owed).toString(),
        solvent: true,
      };
    });
    api.override("/api/proof/history", { status: 200, body: { points }, times: 5 });
    page = await browser.newPage({ width: 1366, height: 768 });
    await page.addInitScript(RECORD_CANVAS_TEXT);
    await page.goto(`${api.url}/proof`);
    await page.locator("#solvency-chart .u-over").waitFor();
    const drawn = async () => (await page.evaluate("window.__drawn")) as Drawn[];
    await until(async () => (await drawn()).some((d) => d.align === "center" && !d.rotated), "the axis labels");
    const labels = await drawn();
    const xLabels = labels.filter((d) => d.align === "center" && !d.rotated).sort((a, b) => a.x - b.x);
    expect(xLabels.length).toBeGreaterThanOrEqual(3);
    for (const [i, label] of xLabels.entries()) {
      const next = xLabels[i + 1];
      if (next) expect(next.x - next.width / 2).toBeGreaterThan(label.x + label.width / 2);
    }
    const yLabels = labels.filter((d) => d.align !== "center" && !d.rotated).map((d) => d.text);
    expect(yLabels).toContain("1M");
    for (const y of yLabels) expect(y).toMatch(/^(0|\d{1,3}(\.\d)?[KM])$/);
    await screenshot(page, "issue65-10-proof-chart-1366");
  });
});
