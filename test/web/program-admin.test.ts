/**
 * The program watch on /admin (issue 61, item 7), against the real app in Chromium: the operator
 * sees the ProgramData slot the jobs run on for pump, pump_amm and pump_fees; after pump's upgrade,
 * which program changed and which jobs stand still (the jobs table marks them paused); acknowledging
 * it from the page needs a reason, is audited, and the sweep runs again. The section passes axe and
 * does not scroll sideways at 390 px.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { PUMP_WATCHED_PROGRAMS } from "../../src/chain/pump/layout";
import { programChangesPausing, whileProgramsUnchanged } from "../../src/jobs";
import { programDataAddress } from "../../src/jobs/program-watch";
import { fakeChain } from "../fakes/chain";
import { testService, type TestService } from "../helpers/service";
import { freePort } from "../helpers/socket";
import { axeViolations, overflowsHorizontally, screenshot, useBrowser } from "./browser";

const browser = useBrowser({ testTimeoutMs: 90_000 });
const LOADER = "BPFLoaderUpgradeab1e11111111111111111111111";
const PUMP = PUMP_WATCHED_PROGRAMS.find((p) => p.name === "pump")!.address;
const adminSecret = `admin-${crypto.randomUUID()}`;

/** ProgramData as BPFLoaderUpgradeable writes it: tag 3, the slot, Some(authority), the ELF. */
function programDataBytes(slot: bigint): Uint8Array {
  const data = new Uint8Array(45 + 16);
  const view = new DataView(data.buffer);
  view.setUint32(0, 3, true);
  view.setBigUint64(4, slot, true);
  data[12] = 1;
  return data;
}

const slots = new Map<string, bigint>(PUMP_WATCHED_PROGRAMS.map((p, i) => [p.address, 250_000_000n + BigInt(i)]));
const byProgramData = new Map(PUMP_WATCHED_PROGRAMS.map((p) => [programDataAddress(p.address), p.address]));
const chain = fakeChain({
  usedBy: "the program watch on /admin",
  reader: {
    async getAccounts(addresses) {
      return new Map(
        addresses.map((a) => {
          const program = byProgramData.get(a);
          return [
            a,
            program
              ? { lamports: 1n, owner: LOADER, executable: false, data: programDataBytes(slots.get(program)!) }
              : null,
          ];
        }),
      );
    },
  },
  launchProgram: { programs: PUMP_WATCHED_PROGRAMS },
});

let svc: TestService;
let url: string;
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  const port = freePort();
  url = `http://127.0.0.1:${port}`;
  svc = testService({ PUBLIC_URL: url, ADMIN_SECRET: adminSecret, RATE_LIMIT: "off" }, { chain });
  server = Bun.serve({ port, hostname: "127.0.0.1", fetch: (request) => svc.app.handle(request) });
});
afterAll(async () => {
  await server?.stop(true);
  await svc?.cleanup();
});

const deps = () => ({ db: svc.ctx.db, chain, now: svc.ctx.now });
/** A sweep run as register-jobs runs it: true when it went on, false when it stood still. */
const sweepRuns = async () => (await whileProgramsUnchanged(deps(), "sweep", async () => true)) === true;

async function adminSignIn(page: Page): Promise<void> {
  await page.goto(`${url}/admin`);
  const secret = page.getByLabel("Admin secret");
  const dashboard = page.locator("#admin-jobs table").first();
  await Promise.race([secret.waitFor({ timeout: 15_000 }), dashboard.waitFor({ timeout: 15_000 })]);
  if (await secret.isVisible()) {
    await secret.fill(adminSecret);
    await page.getByRole("button", { name: "Sign in" }).click();
  }
  await dashboard.waitFor({ timeout: 15_000 });
}

const pausedBadges = (page: Page) => page.locator("#admin-jobs .badge", { hasText: "paused" });
/** The jobs the jobs table marks as standing still, in its order. */
const pausedJobs = (page: Page) =>
  page
    .locator("#admin-jobs tbody tr", { has: page.locator(".badge", { hasText: "paused" }) })
    .locator("td:first-child")
    .allInnerTexts();

describe("the program watch on the operator page", () => {
  for (const [label, viewport, upgradedTo] of [
    ["1280", { width: 1280, height: 900 }, 251_000_000n],
    ["390", { width: 390, height: 844 }, 252_000_000n],
  ] as const) {
    test(`shows pump's upgrade and the paused jobs; acknowledging it with a reason lets the sweep run (${label} px)`, async () => {
      const db = svc.ctx.db;
      expect(await sweepRuns()).toBe(true);
      const before = slots.get(PUMP)!;
      slots.set(PUMP, upgradedTo);
      expect(await sweepRuns()).toBe(false);
      expect(programChangesPausing(db, "sweep").length).toBe(1);

      const page = await browser.newPage(viewport);
      await adminSignIn(page);
      const section = page.locator("#admin-programs");
      const change = section.locator("#admin-programs-change");
      await change.waitFor({ timeout: 15_000 });
      const changeText = await change.innerText();
      expect(changeText).toContain("pump changed");
      expect(changeText).toContain(`slot ${before}`);
      expect(changeText).toContain(`slot ${upgradedTo}`);
      expect(changeText).toContain("sweep, burns, launches");
      // The slots the jobs still run on, one row per program.
      const watched = await section.locator("table").last().innerText();
      for (const p of PUMP_WATCHED_PROGRAMS) expect(watched).toContain(p.name);
      expect(watched).toContain(`slot ${before}`);
      expect(watched).not.toContain(`slot ${upgradedTo}`);
      // The jobs table marks the jobs standing still.
      await pausedBadges(page).first().waitFor({ timeout: 10_000 });
      expect(await pausedJobs(page)).toEqual(["sweep", "burns", "launches"]);
      expect(await axeViolations(page, `the program watch at ${label} px`, "#admin-programs")).toEqual([]);
      expect(await overflowsHorizontally(page)).toEqual([]);
      await screenshot(page, `issue61-admin-programs-${label}`);

      // The reason is required; without it nothing changes.
      await page.locator("#admin-programs-acknowledge").click();
      await page.locator("#admin-dialog").waitFor();
      await page.locator("#admin-confirm").click();
      expect(await page.locator("#admin-reason-error").isVisible()).toBe(true);
      expect(programChangesPausing(db, "sweep").length).toBe(1);
      await page.getByLabel("Reason").fill(`pump's upgrade read at ${label} px; decoders fit`);
      await page.locator("#admin-confirm").click();
      await page.getByText("Acknowledged: sweep, burns, launches go on.").waitFor({ timeout: 10_000 });

      expect(programChangesPausing(db, "sweep")).toEqual([]);
      expect(await sweepRuns()).toBe(true);
      // The page reloads: no change waits, the new slot is what the jobs run on, nothing is paused.
      await section.getByText("No program changed").waitFor({ timeout: 10_000 });
      expect(await section.locator("table").last().innerText()).toContain(`slot ${upgradedTo}`);
      await pausedBadges(page).first().waitFor({ state: "detached", timeout: 10_000 });
      const audit = db.$client
        .query<{ action: string; subject: string; reason: string; actor: string }, []>(
          "SELECT action, subject, reason, actor FROM admin_audit ORDER BY id DESC LIMIT 1",
        )
        .get();
      expect(audit).toEqual({
        action: "acknowledge_program_change",
        subject: `pump slot ${upgradedTo}`,
        reason: `pump's upgrade read at ${label} px; decoders fit`,
        actor: "admin-page",
      });
      await page.close();
    });
  }
});
