/**
 * /admin shows the figures the API answers (issue 63, item 9), in Chromium against the real app:
 * while a halt refuses claims the pauses read "Claims: paused", and the health line is the public
 * health's verdict.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { clearIncidents, raiseIncident } from "../../src/custody";
import { DESKTOP, useBrowser } from "./browser";
import { seededSite, type SeededSite } from "./history-support";

const browser = useBrowser({ testTimeoutMs: 60_000 });
let site: SeededSite;

beforeAll(async () => {
  site = await seededSite();
}, 90_000);
afterAll(async () => {
  await site?.stop();
});

test("a halt: /admin says claims are paused and health is not ok, as the API does", async () => {
  const db = site.svc.ctx.db;
  raiseIncident(db, { kind: "outflow-day", detail: "a day's outflow above its cap", atMs: Date.now() });
  try {
    const publicHealth = (await (await fetch(`${site.url}/api/cron/health`)).json()) as { ok: boolean };
    const page = await browser.newPage(DESKTOP);
    await page.goto(`${site.url}/admin`);
    await page.getByLabel("Admin secret").fill(site.adminSecret);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator("#admin-pauses").waitFor({ timeout: 15_000 });
    const pauses = await page.locator("#admin-pauses").innerText();
    expect(pauses).toContain("Claims: paused");
    expect(pauses).toContain("Money is halted: see Custody.");
    // The operator did not pause claims: the control still offers the operator's own pause.
    expect(await page.locator("#admin-claims-toggle").innerText()).toBe("Pause claims");
    expect(await page.locator("#admin-health").getAttribute("data-ok")).toBe(String(publicHealth.ok));
    expect(publicHealth.ok).toBe(false);
  } finally {
    clearIncidents(db, ["outflow-day"], Date.now());
  }
});
