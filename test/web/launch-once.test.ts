/**
 * Issue 65 item 2: one launch per intent. A second click on Launch made a second token (the form
 * stayed filled and enabled after a launch); now the form is locked while a launch runs, the page
 * goes to the token once it exists, and a create whose outcome is unknown is checked again under
 * its own intent instead of being prepared anew. Against the fake API with the local wallet.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { useBrowser, until } from "./browser";
import { FakeApi } from "./fake-api";
import { PNG } from "./fixtures";
import type { Json } from "../helpers/service";

const browser = useBrowser();
let api: FakeApi;
let page: Page;

beforeEach(async () => {
  api = await new FakeApi().start();
  page = await browser.newPage();
});
afterEach(async () => {
  await page?.close();
  await api?.stop();
});

async function fillForm(name: string): Promise<void> {
  await page.goto(`${api.url}/launch`);
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Ticker").fill("ONCE");
  await page.setInputFiles("#launch-image", { name: "coin.png", mimeType: "image/png", buffer: Buffer.from(PNG) });
  await page.getByLabel("Recipient 1 handle").fill("@Alice");
  await page.getByRole("button", { name: "Local wallet (local chain)" }).click();
  await page.locator("#wallet-connected").waitFor();
}

/** The mint the page prepared, once its intent is asked for (the fake lists the token once it is confirmed). */
async function preparedMint(): Promise<string> {
  await until(() => api.apiCalls("/api/launch/intent").length > 0, "the launch intent");
  return String((api.apiCalls("/api/launch/intent")[0]!.body as Json).mint);
}

describe("one launch per intent", () => {
  test("a double click on Launch makes one token and lands on its page", async () => {
    await fillForm("Phone Test");
    await page.getByRole("button", { name: "Launch", exact: true }).dblclick();
    const mint = await preparedMint();
    await page.waitForURL(`${api.url}/token/${mint}`, { timeout: 20_000 });
    await page.locator("h1").filter({ hasText: "Phone Test" }).waitFor();
    expect(api.apiCalls("/api/launch/intent")).toHaveLength(1);
    expect(api.apiCalls("/api/launch/metadata")).toHaveLength(1);
    expect(api.sent).toHaveLength(1);
    // Back on the launch page, a new form: nothing of the launch is sent again.
    await page.goBack();
    await page.locator("#launch-form").waitFor();
    expect(await page.getByLabel("Name").inputValue()).toBe("");
    expect(api.apiCalls("/api/launch/intent")).toHaveLength(1);
    expect(browser.errors).toEqual([]);
  });

  test("a create whose confirmation failed is checked again under its intent, with the form locked meanwhile", async () => {
    await fillForm("Comet");
    // The service is unreachable for the first confirmation: the create went out, its outcome is unknown.
    api.override("/api/launch/confirm", { status: 503, body: { error: "The service is restarting." } });
    await page.getByRole("button", { name: "Launch", exact: true }).click();
    const mint = await preparedMint();
    const again = page.getByRole("button", { name: "Check the launch again" });
    await again.waitFor();
    expect(await page.locator("#launch-status [role=alert]").innerText()).toContain("The service is restarting.");
    // The fields stay as sent: another launch from them would be a second token.
    for (const id of ["#launch-name", "#launch-symbol", "#launch-image", "#recipient-handle-1", "#add-recipient"])
      expect(await page.locator(id).isDisabled()).toBe(true);
    // Finished steps keep no "approve it in your wallet" (issue 22's check, once made on success).
    const done = await page.locator('#launch-steps li[data-state="done"]').allInnerTexts();
    expect(done.length).toBeGreaterThanOrEqual(4);
    for (const step of done) {
      expect(step).not.toContain("approve it in your wallet");
      expect(step).not.toMatch(/waiting \d+ s/);
    }
    expect(api.apiCalls("/api/launch/intent")).toHaveLength(1);

    await again.click();
    await page.waitForURL(`${api.url}/token/${mint}`, { timeout: 20_000 });
    await page.locator("h1").filter({ hasText: "Comet" }).waitFor();
    expect(api.apiCalls("/api/launch/intent")).toHaveLength(1);
    expect(api.sent).toHaveLength(1);
    const confirms = api.apiCalls("/api/launch/confirm").map((r) => r.body as Json);
    expect(confirms.length).toBeGreaterThanOrEqual(2);
    expect(new Set(confirms.map((c) => `${c.intent} ${c.signature}`)).size).toBe(1);
  });

  test("a create checked again and found never to have landed gives the form back", async () => {
    await fillForm("Lost");
    api.override("/api/launch/confirm", { status: 503, body: { error: "The service is restarting." } });
    await page.getByRole("button", { name: "Launch", exact: true }).click();
    const again = page.getByRole("button", { name: "Check the launch again" });
    await again.waitFor();
    expect(await page.getByLabel("Name").isDisabled()).toBe(true);
    // The window and its landing grace passed without the create: nothing can land any more.
    api.override("/api/launch/confirm", { status: 410, body: { error: "The launch window has passed." } });
    await again.click();
    await until(async () => (await page.locator("#launch-status").innerText()).includes("window has passed"), "410");
    expect(await page.getByLabel("Name").isDisabled()).toBe(false);
    expect(await page.getByLabel("Name").inputValue()).toBe("Lost");
    expect(await page.getByRole("button", { name: "Launch", exact: true }).isEnabled()).toBe(true);
    expect(api.apiCalls("/api/launch/intent")).toHaveLength(1);
  });

  test("a create the chain refused unlocks the form for a new launch", async () => {
    await fillForm("Refused");
    let refused = 0;
    await page.route("**/api/rpc", async (route) => {
      const body = route.request().postDataJSON() as Json;
      if (body.method !== "sendTransaction" || refused++ > 0) return route.continue();
      await route.fulfill({
        json: { jsonrpc: "2.0", id: body.id, error: { code: -32002, message: "Blockhash not found" } },
      });
    });
    await page.getByRole("button", { name: "Launch", exact: true }).click();
    await until(async () => (await page.locator("#launch-status [role=alert]").count()) === 1, "the refusal");
    expect(await page.locator("#launch-status").innerText()).toContain("Blockhash not found");
    expect(await page.getByLabel("Name").isDisabled()).toBe(false);
    expect(await page.getByRole("button", { name: "Launch", exact: true }).isEnabled()).toBe(true);
  });
});
