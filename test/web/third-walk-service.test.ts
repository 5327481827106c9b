/**
 * Issue 65 item 11 against the real app: /admin's token list a page at a time (a phone showed
 * every row at once), at 390 px, with axe on the paged list.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { axeViolations, screenshot, useBrowser } from "./browser";
import { seededSite, type SeededSite } from "./history-support";
import { launch } from "../helpers/read-world";

const browser = useBrowser({ testTimeoutMs: 90_000 });
let site: SeededSite;

beforeAll(async () => {
  site = await seededSite();
  // 25 tokens in all: more than one page of 20.
  for (let i = 0; i < 23; i++)
    launch(site.svc.ctx.db, { name: `Paged Coin ${i + 1}`, launchedAtMs: Date.now() - (i + 1) * 60_000 });
}, 90_000);
afterAll(async () => {
  await site?.stop();
});

test("11. /admin's token list shows 20 tokens a page, with Next and Previous", async () => {
  const page = await browser.newPage({ width: 390, height: 844 });
  await page.goto(`${site.url}/admin`);
  await page.getByLabel("Admin secret").fill(site.adminSecret);
  await page.getByRole("button", { name: "Sign in" }).click();
  const rows = page.locator("#admin-tokens tbody tr");
  await rows.first().waitFor({ timeout: 15_000 });
  const pages = page.getByRole("navigation", { name: "Token pages" });
  expect(await rows.count()).toBe(20);
  expect(await pages.innerText()).toContain("Tokens 1–20 of 25");
  expect(await pages.getByRole("button", { name: "Previous" }).isDisabled()).toBe(true);
  const firstPage = await rows.locator("td:first-child").allInnerTexts();

  await pages.getByRole("button", { name: "Next" }).click();
  await page.getByText("Tokens 21–25 of 25").waitFor();
  expect(await rows.count()).toBe(5);
  expect(await pages.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
  const secondPage = await rows.locator("td:first-child").allInnerTexts();
  expect(secondPage.filter((name) => firstPage.includes(name))).toEqual([]);
  expect(new Set([...firstPage, ...secondPage]).size).toBe(25);
  expect(await axeViolations(page, "/admin tokens, page 2", "#admin-tokens")).toEqual([]);
  await screenshot(page, "issue65-11-admin-tokens-390");

  await pages.getByRole("button", { name: "Previous" }).click();
  await page.getByText("Tokens 1–20 of 25").waitFor();
  expect(await rows.locator("td:first-child").allInnerTexts()).toEqual(firstPage);
  await page.close();
});
