/**
 * The operator page in headless Chromium against a seeded service: sign in with the admin secret
 * (which never appears in a URL), see job health, the set-aside and webhook sections (their routes
 * take the page's session), hide a token, and find Explore no longer listing it; the audit log
 * shows the action.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
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

test("the operator signs in, hides a token, and Explore no longer shows it", async () => {
  const page = await browser.newPage(DESKTOP);
  const urls: string[] = [];
  page.on("request", (r) => urls.push(r.url()));
  await page.goto(`${site.url}/`);
  await page.getByText("Hide Me Coin").first().waitFor({ timeout: 15_000 });

  await page.goto(`${site.url}/admin`);
  await page.getByLabel("Admin secret").fill("wrong-secret");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("That is not the admin key.").waitFor({ timeout: 10_000 });
  await page.getByLabel("Admin secret").fill(site.adminSecret);
  await page.getByRole("button", { name: "Sign in" }).click();

  await page.locator("#admin-jobs table").first().waitFor({ timeout: 15_000 });
  expect(await page.locator("#admin-jobs tbody tr").count()).toBeGreaterThanOrEqual(5);
  // The page's session reaches the set-aside and webhook routes too (issue 43, finding 6).
  await page.locator("#admin-set-aside").getByText("None: every token is being swept").waitFor();
  await page.locator("#admin-webhooks").getByText("No webhooks.").waitFor();
  expect(await page.locator('[data-unavailable="set-aside"], [data-unavailable="webhooks"]').count()).toBe(0);
  expect(await page.locator("#admin-pauses").innerText()).toContain("Claims: open");

  await page.getByLabel("Find a token").fill("Hide Me");
  const hide = page.getByRole("button", { name: "Hide Hide Me Coin" });
  await hide.waitFor();
  await hide.click();
  // The reason is asked for in the confirmation (second-walk-service.test.ts checks it is required).
  await page.getByLabel("Reason").fill("reported as spam");
  await page.locator("#admin-confirm").click();
  await page.getByText("Hide Me Coin is hidden from Explore.").waitFor({ timeout: 10_000 });
  await page.getByRole("button", { name: "Unhide Hide Me Coin" }).waitFor();
  await page.locator("#admin-audit td", { hasText: "hide_token" }).first().waitFor({ timeout: 10_000 });
  expect(await page.locator("#admin-audit tbody tr").first().innerText()).toContain("reported as spam");
  await screenshot(page, "admin-desktop");

  await page.goto(`${site.url}/`);
  await page.getByText("Chart Coin").first().waitFor({ timeout: 15_000 });
  expect(await page.getByText("Hide Me Coin").count()).toBe(0);
  // The secret went in a request body, never a URL.
  expect(urls.filter((u) => u.includes(site.adminSecret))).toEqual([]);
  expect(
    browser.errors.filter(
      (e) => !e.includes("ERR_NAME_NOT_RESOLVED") && !e.includes("status of 401") && !e.includes("status of 404"),
    ),
  ).toEqual([]);
  await page.close();
});

test("the operator page reads at 360 px, and signing out returns to the sign-in form", async () => {
  const page = await browser.newPage(PHONE);
  await page.goto(`${site.url}/admin`);
  // Still signed in from the test above: the cookie is the page's session.
  await page.locator("#admin-jobs table").first().waitFor({ timeout: 15_000 });
  expect(await overflowsHorizontally(page)).toEqual([]);
  await screenshot(page, "admin-phone");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("Admin secret").waitFor();
  const overview = await page.evaluate(async () => (await fetch("/api/admin/overview")).status);
  expect(overview).toBe(404);
  await page.close();
});
