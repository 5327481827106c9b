/**
 * The signed-in page checks its own inclusion in the proof of liabilities in the browser
 * (WebCrypto) and says so in words; a tampered proof (amount, nonce, sibling), or a root that is
 * not the published one, is reported as not verified; an account owed nothing is told so.
 * Headless Chromium against the fake API, whose proofs come from the service's tree code.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { useBrowser, screenshot } from "./browser";
import { FakeApi } from "./fake-api";
import { FAKE_ANCHOR_SIGNATURE, fakeLiabilities } from "./fake-liabilities";

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

async function signInAsAlice(): Promise<void> {
  await page.goto(`${api.url}/me`);
  await page.getByLabel("Handle").fill("alice");
  await page.getByRole("button", { name: "Sign in as this handle" }).click();
  await page.locator('[data-field="balance"]').waitFor();
}

async function verdict(): Promise<{ verified: string | null; text: string }> {
  const result = page.locator("#liability-proof-result");
  await page.waitForFunction(
    () => !document.querySelector("#liability-proof-result")?.textContent?.includes("Checking"),
  );
  return { verified: await result.getAttribute("data-verified"), text: (await result.innerText()).trim() };
}

const flip = (hex: string) => (hex[0] === "0" ? "1" : "0") + hex.slice(1);

describe("proof of liabilities on the signed-in page", () => {
  test("checks the account's own proof in the browser and says so in words, with the anchor and a way to check by hand", async () => {
    browser.errors.length = 0;
    await signInAsAlice();
    const { published } = fakeLiabilities(api.balance, api.now);
    const v = await verdict();
    expect(v.verified).toBe("true");
    // The snapshot's time in the page's one format, in the browser's own zone.
    const shownAt = await page.evaluate(
      (at) =>
        new Intl.DateTimeFormat("en-GB", {
          day: "numeric",
          month: "short",
          year: "numeric",
          hour: "2-digit",
          minute: "2-digit",
          second: "2-digit",
          hourCycle: "h23",
          timeZoneName: "short",
        }).format(new Date(at)),
      published.at,
    );
    // The anchor's signature comes with its "…" (named "Show the whole transaction signature") and Copy buttons.
    expect(v.text.replace(/\s+/g, " ")).toBe(
      `Checked in your browser: your 2 SOL is inside the published total of 2.001000007 SOL owed to 3 accounts at ${shownAt}, anchored in transaction 4444…4444 … Show the whole transaction signature Copy signed by the treasury.`,
    );
    expect(await page.locator("#liability-proof-result a").getAttribute("title")).toBe(FAKE_ANCHOR_SIGNATURE);
    // The published root was asked for the proof's own instant.
    expect(api.apiCalls("/api/proof/liabilities")[0]!.search.get("at")).toBe(published.at);

    // Said once: the disclosure itself, not a link to it as well.
    expect(await page.getByText("How to check it by hand").count()).toBe(1);
    await page.locator("#check-by-hand summary").click();
    expect(await page.locator("#check-by-hand").getAttribute("open")).not.toBeNull();
    expect(await page.locator("#check-by-hand").innerText()).toContain("npm run verify-liabilities -- proof.json");
    const download = page.waitForEvent("download");
    await page.locator("#liability-proof-download").click();
    const file = await (await download).path();
    const saved = JSON.parse(await Bun.file(file!).text());
    expect(saved).toEqual(fakeLiabilities(api.balance, api.now).proof);
    await screenshot(page, "me-liabilities-verified");
    expect(browser.errors).toEqual([]);
  });

  test("a tampered amount, nonce or sibling, or a root other than the published one, is reported as not verified", async () => {
    const { proof } = fakeLiabilities(api.balance, api.now);
    const tampered: [string, unknown, string][] = [
      [
        "amount",
        { ...proof!, leaf: { ...proof!.leaf, lamports: (BigInt(proof!.leaf.lamports) + 1n).toString() } },
        "do not hash to the published root",
      ],
      [
        "nonce",
        { ...proof!, leaf: { ...proof!.leaf, nonce: flip(proof!.leaf.nonce) } },
        "do not hash to the published root",
      ],
      [
        "sibling",
        { ...proof!, path: [{ ...proof!.path[0]!, hash: flip(proof!.path[0]!.hash) }, ...proof!.path.slice(1)] },
        "do not hash to the published root",
      ],
      [
        "sibling sum",
        { ...proof!, path: [{ ...proof!.path[0]!, sumLamports: "8" }, ...proof!.path.slice(1)] },
        "do not hash to the published root",
      ],
      ["root", { ...proof!, root: flip(proof!.root) }, "not the one published for everyone"],
    ];
    for (const [what, body, reason] of tampered) {
      api.override("/api/me/proof", { status: 200, body });
      api.signedInAs = null;
      await signInAsAlice();
      const v = await verdict();
      expect({ what, verified: v.verified }).toEqual({ what, verified: "false" });
      expect(v.text).toStartWith("Not verified:");
      expect(v.text).toContain(reason);
    }
  });

  test("an account owed nothing at the snapshot is told so", async () => {
    api.override("/api/me/proof", {
      status: 404,
      body: { error: "Your account was owed nothing at that snapshot, so it has no leaf in it." },
    });
    await signInAsAlice();
    const v = await verdict();
    expect(v.verified).toBeNull();
    expect(v.text).toContain("You were owed nothing at the latest published snapshot");
  });
});
