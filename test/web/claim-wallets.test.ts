/**
 * Issue 65 item 12: wallets on the signed-in page. With none found the claim form says where to
 * install one (plain https links); the autopay field has the claim's wallet picker; a wallet whose
 * name ends in "Wallet" is not called "your Fake Wallet wallet"; and a wallet that registers only
 * the older way (a callback pushed onto `navigator.wallets`, before or after the page loads) is
 * found. Against the fake API, with wallets registered as extensions do.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { overflowsHorizontally, PHONE, useBrowser, until } from "./browser";
import { FakeApi } from "./fake-api";
import { WALLET } from "./fixtures";

const browser = useBrowser();
let api: FakeApi;
let page: Page;

const SHARED = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

beforeEach(async () => {
  api = await new FakeApi().start();
});
afterEach(async () => {
  await page?.close();
  await api?.stop();
});

type Registration = "standard" | "legacy";

/**
 * A wallet that shares one Solana address on connect, registered as an extension does: the
 * Wallet Standard events, or only the older `navigator.wallets` array of callbacks.
 */
function walletScript(name: string, registration: Registration): string {
  return `(() => {
    const account = { address: ${JSON.stringify(SHARED)}, publicKey: new Uint8Array(32), chains: ["solana:mainnet"], features: [] };
    const wallet = {
      version: "1.0.0",
      name: ${JSON.stringify(name)},
      icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=",
      chains: ["solana:mainnet"],
      accounts: [],
      features: {
        "standard:connect": { version: "1.0.0", connect: async () => { wallet.accounts = [account]; return { accounts: [account] }; } },
        "standard:events": { version: "1.0.0", on: () => () => {} },
      },
    };
    const callback = ({ register }) => register(wallet);
    if (${JSON.stringify(registration)} === "legacy") {
      (window.navigator.wallets = window.navigator.wallets || []).push(callback);
      return;
    }
    window.addEventListener("wallet-standard:app-ready", ({ detail }) => callback(detail));
    try { window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: callback })); } catch {}
  })();`;
}

async function signIn(wallets: [string, Registration][] = [], viewport = { width: 1280, height: 900 }): Promise<void> {
  page = await browser.newPage(viewport);
  for (const [name, registration] of wallets) await page.addInitScript(walletScript(name, registration));
  await page.goto(`${api.url}/me`);
  await page.getByLabel("Handle").fill("alice");
  await page.getByRole("button", { name: "Sign in as this handle" }).click();
  await page.locator('[data-field="balance"]').waitFor();
}

const text = (selector: string) => page.locator(selector).first().innerText();

describe("wallets on the signed-in page", () => {
  test("with no wallet found, the claim form links where to install one", async () => {
    await signIn([], PHONE);
    const hint = page.locator("#claim-no-wallet");
    await hint.waitFor();
    expect(await hint.innerText()).toContain("No Solana wallet found in this browser.");
    const links = await hint
      .locator("a")
      .evaluateAll((as) => as.map((a) => [a.textContent, (a as HTMLAnchorElement).href]));
    expect(links).toEqual([
      ["Phantom", "https://phantom.com/download"],
      ["Solflare", "https://solflare.com/download"],
      ["Backpack", "https://backpack.app/download"],
    ]);
    expect(await overflowsHorizontally(page)).toEqual([]);
  });

  test("a wallet named '… Wallet' is not 'your Fake Wallet wallet'; other names keep the word", async () => {
    await signIn([
      ["Fake Wallet", "standard"],
      ["Phantom", "standard"],
    ]);
    await page.getByRole("button", { name: "Use Fake Wallet" }).click();
    await until(async () => (await page.getByLabel("Wallet address").inputValue()) === SHARED, "filled");
    expect(await text("#claim-wallet-connected")).toBe("Filled in from your Fake Wallet.");
    await page.getByRole("button", { name: "Use Phantom" }).click();
    await until(async () => (await text("#claim-wallet-connected")).includes("Phantom"), "Phantom");
    expect(await text("#claim-wallet-connected")).toBe("Filled in from your Phantom wallet.");
  });

  test("the autopay field is filled from a wallet, and saved with its address", async () => {
    await signIn([["Fake Wallet", "standard"]]);
    await page.getByRole("radio", { name: /^Autopay/ }).check();
    const autopay = page.locator("#routing-wallets");
    await autopay.getByRole("button", { name: "Use Fake Wallet" }).click();
    await until(async () => (await page.getByLabel("Autopay wallet").inputValue()) === SHARED, "autopay filled");
    expect(await text("#routing-wallet-connected")).toBe("Filled in from your Fake Wallet.");
    // The claim's own field is left as it was.
    expect(await page.getByLabel("Wallet address").inputValue()).not.toBe(SHARED);
    await page.getByRole("button", { name: "Save routing" }).click();
    await until(() => api.apiCalls("/api/routing").length === 1, "saved");
    expect(api.apiCalls("/api/routing")[0]!.body).toEqual({ routing: "autopay", declined: false, wallet: SHARED });
  });

  test("a wallet that registers only through navigator.wallets is found, before or after the page loads", async () => {
    await signIn([["Old Wallet", "legacy"]]);
    const claim = page.locator("#claim-wallets");
    await claim.getByRole("button", { name: "Use Old Wallet" }).waitFor();
    await page.getByLabel("Wallet address").fill(WALLET);
    await claim.getByRole("button", { name: "Use Old Wallet" }).click();
    await until(async () => (await page.getByLabel("Wallet address").inputValue()) === SHARED, "filled");
    // One that arrives later pushes onto what the page left there, and shows up at once.
    await page.evaluate(walletScript("Late Wallet", "legacy"));
    await claim.getByRole("button", { name: "Use Late Wallet" }).waitFor();
    expect(browser.errors).toEqual([]);
  });
});
