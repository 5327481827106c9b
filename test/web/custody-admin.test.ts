/**
 * The custody controls on /admin (issue 43), against the real app: a halt is shown with its
 * reason and resumed from the page with a required reason; a held payout is approved from the page;
 * the section passes axe and does not scroll sideways at 390 px.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { moneyHalt, raiseIncident } from "../../src/custody";
import { queuePayout, refuseHeldPayout } from "../../src/payouts";
import { immediate } from "../../db/transaction";
import { axeViolations, overflowsHorizontally, screenshot, useBrowser } from "./browser";
import { seededSite, type SeededSite } from "./history-support";

const browser = useBrowser({ testTimeoutMs: 90_000 });
let site: SeededSite;

beforeAll(async () => {
  site = await seededSite();
}, 90_000);
afterAll(async () => {
  await site?.stop();
});

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

describe("custody on the operator page", () => {
  for (const [label, viewport] of [
    ["1280", { width: 1280, height: 900 }],
    ["390", { width: 390, height: 844 }],
  ] as const) {
    test(`a halt is shown and resumed with a reason; a held payout is approved (${label} px)`, async () => {
      const db = site.svc.ctx.db;
      raiseIncident(db, { kind: "outflow-day", detail: `a test halt at ${label} px`, atMs: Date.now() });
      const held = queuePayout(db, {
        idpUserId: "u-chartist",
        lamports: 1_000_000n,
        wallet: "11111111111111111111111111111112",
        kind: "claim",
        minLamports: 1n,
        atMs: Date.now(),
        reviewLamports: 1n,
      });
      expect(held.status).toBe("held");
      const page = await browser.newPage(viewport);
      await adminSignIn(page);
      const halt = page.locator("#admin-halt");
      await halt.waitFor({ timeout: 15_000 });
      expect(await halt.innerText()).toContain(`a test halt at ${label} px`);
      await page.locator("#admin-custody table").first().waitFor();
      expect(await axeViolations(page, `the custody panel at ${label} px`, "#admin-custody")).toEqual([]);
      expect(await overflowsHorizontally(page)).toEqual([]);
      await screenshot(page, `issue43-admin-custody-${label}`);

      // Resume: the reason is required, then it is audited and money moves.
      await page.locator("#admin-resume").click();
      await page.locator("#admin-dialog").waitFor();
      await page.locator("#admin-confirm").click();
      expect(await page.locator("#admin-reason-error").isVisible()).toBe(true);
      expect(moneyHalt(db)).not.toBeNull();
      await page.getByLabel("Reason").fill(`checked the day's outflow (${label})`);
      await page.locator("#admin-confirm").click();
      await page.getByText("Money moves again.").waitFor({ timeout: 10_000 });
      expect(moneyHalt(db)).toBeNull();

      // Approve the held payout.
      await page.getByRole("button", { name: `Approve payout ${held.payoutId}` }).click();
      await page.getByLabel("Reason").fill("known recipient");
      await page.locator("#admin-confirm").click();
      await page.getByText(`Payout ${held.payoutId} is approved.`).waitFor({ timeout: 10_000 });
      const status = db.$client
        .query<{ status: string }, [number]>("SELECT status FROM payouts WHERE id = ?")
        .get(held.payoutId);
      expect(status?.status).toBe("queued");
      const audit = db.$client
        .query<{ action: string; reason: string }, []>(
          "SELECT action, reason FROM admin_audit ORDER BY id DESC LIMIT 2",
        )
        .all();
      expect(audit).toEqual([
        { action: "approve_payout", reason: "known recipient" },
        { action: "resume_money", reason: `checked the day's outflow (${label})` },
      ]);
      // Without PLATFORM_WALLET the page says withdrawals are off.
      expect(await page.locator("#admin-custody").innerText()).toContain("Withdrawals are off");
      // Leave the account as it was for the other width: the payout refused, its amount back.
      db.$client.query("UPDATE payouts SET status = 'held' WHERE id = ?").run(held.payoutId);
      expect(immediate(db, () => refuseHeldPayout(db, held.payoutId, "test cleanup", Date.now()))).toBe(true);
      await page.close();
    });
  }
});
