/**
 * Issue 47: the page as a person uses it, second walk, in Chromium at 1280 and 390 px against the
 * fake API (test/web/fake-api.ts), with screenshots in test/artifacts/. Item 1 (sign-in on
 * 127.0.0.1), item 9 (/admin), compression and the operator page's accessibility run against the
 * real app in second-walk-service.test.ts.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { axeViolations, overflowsHorizontally, screenshot, useBrowser, until } from "./browser";
import { solShort } from "../../public/src/money";
import { FakeApi } from "./fake-api";
import { eventId, PNG, WALLET } from "./fixtures";

const WIDTHS = [
  ["1280", { width: 1280, height: 900 }],
  ["390", { width: 390, height: 844 }],
] as const;

/** A browser wallet's address, other than the fixtures' WALLET a user types. */
const CONNECTED_WALLET = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

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

async function open(viewport: { width: number; height: number }, path: string): Promise<void> {
  page = await browser.newPage(viewport);
  await page.goto(`${api.url}${path}`);
}

async function devLogin(viewport: { width: number; height: number }, handle = "alice"): Promise<void> {
  await open(viewport, "/me");
  await page.getByLabel("Handle").fill(handle);
  await page.getByRole("button", { name: "Sign in as this handle" }).click();
  await page.locator('[data-field="balance"]').waitFor();
}

/** No axe-core violation on what the page shows now. */
async function expectAccessible(where: string): Promise<void> {
  expect(await axeViolations(page, where)).toEqual([]);
}

/** "26 Nov 2026": the page's day label of a UTC day. */
const dayLabel = (ms: number) =>
  new Date(ms).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

/** A Wallet Standard wallet as an extension would register it (connect only: enough to claim to). */
function registerTestWallet(address: string): string {
  return `(() => {
    const account = { address: ${JSON.stringify(address)}, publicKey: new Uint8Array(32), chains: ["solana:mainnet"], features: [] };
    const wallet = {
      version: "1.0.0",
      name: "Test Wallet",
      icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=",
      chains: ["solana:mainnet"],
      accounts: [],
      features: {
        "standard:connect": { version: "1.0.0", connect: async () => { wallet.accounts = [account]; return { accounts: [account] }; } },
        "standard:events": { version: "1.0.0", on: () => () => {} },
      },
    };
    const callback = ({ register }) => register(wallet);
    window.addEventListener("wallet-standard:app-ready", ({ detail }) => callback(detail));
    try { window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: callback })); } catch {}
  })();`;
}

for (const [label, viewport] of WIDTHS) {
  describe(`at ${label} px`, () => {
    test("2. The fee chart spans the 90 days up to today, and pointing at a day shows its figures", async () => {
      const mint = api.tokens[0]!.mint;
      const dayMs = 86_400_000;
      const today = Math.floor(Date.now() / dayMs) * dayMs;
      // Ten days back: further than a touch's reach (12 px) from today's place on a phone.
      const busy = new Date(today - 10 * dayMs).toISOString().slice(0, 10);
      api.override(`/api/tokens/${mint}/history`, {
        status: 200,
        body: { points: [{ day: busy, sweptLamports: "2500000000", platformLamports: "250000000", sweeps: 2 }] },
        times: 5,
      });
      await open(viewport, `/token/${mint}`);
      const over = page.locator("#fee-chart .u-over");
      await over.waitFor();
      await over.scrollIntoViewIfNeeded();
      const box = (await over.boundingBox())!;
      const tipAt = async (fraction: number) => {
        await page.mouse.move(box.x + box.width * fraction, box.y + box.height / 2);
        await page.locator("#fee-chart .chart-tip").waitFor();
        return await text("#fee-chart .chart-tip");
      };
      // The window's first and last days sit at the ends of the axis; one busy day is not the whole axis.
      expect(await tipAt(0.002)).toBe(`${dayLabel(today - 89 * dayMs)}: nothing swept`);
      expect(await tipAt(0.998)).toBe(`${dayLabel(today)}: nothing swept`);
      expect(await tipAt((79 + 0.5) / 90)).toBe(
        `${dayLabel(today - 10 * dayMs)}: 2.5 SOL swept (recipients 2.25, platform 0.25)`,
      );
      await screenshot(page, `issue47-2-fee-chart-${label}`);
      expect(await overflowsHorizontally(page)).toEqual([]);
      expect(browser.errors).toEqual([]);
    });

    test("3. The live ledger shows every event of a transaction, and payouts move on to confirmed", async () => {
      const [t0, t1, t2] = api.tokens;
      const sweepSignature = "2".repeat(87);
      const autopay = (handle: string, status: string, ago: number) => ({
        type: "payout",
        id: eventId(api.now - ago),
        at: new Date(api.now - ago).toISOString(),
        handle,
        lamports: "1000000000",
        kind: "autopay",
        status,
        signature: "4".repeat(87),
      });
      // One run's sweeps share a second; the feed's ids (a microsecond apart) order them.
      const sweepOf = (t: typeof t0, bump = 0) => ({
        type: "sweep",
        id: eventId(api.now - 3_000, bump),
        at: new Date(api.now - 3_000).toISOString(),
        mint: t!.mint,
        symbol: t!.symbol,
        signature: sweepSignature,
        totalLamports: "5000000000",
        platformLamports: "500000001",
      });
      api.ledgerEvents = [autopay("alice", "sent", 1_000), autopay("user1", "sent", 1_500), sweepOf(t0)];
      await open(viewport, "/ledger");
      await until(async () => (await page.locator("#ledger li").count()) === 3, "the first page");
      await until(() => api.ledgerStreams.size > 0, "the stream");
      // Two more sweeps of the same sweep transaction, as one run sends them.
      api.pushLedgerEvent(eventId(api.now - 3_000, 1), sweepOf(t1, 1));
      api.pushLedgerEvent(eventId(api.now - 3_000, 2), sweepOf(t2, 2));
      await until(async () => (await page.locator("#ledger li[data-type=sweep]").count()) === 3, "all three sweeps");
      expect(await page.locator("#ledger li[data-type=sweep]").allInnerTexts()).toEqual([
        expect.stringContaining(`$${t2!.symbol}`),
        expect.stringContaining(`$${t1!.symbol}`),
        expect.stringContaining(`$${t0!.symbol}`),
      ]);
      // The stream says alice's autopay confirmed: the row shown changes, no second row.
      api.pushLedgerEvent(eventId(api.now - 1_000), autopay("alice", "confirmed", 1_000));
      const badge = (handle: string) =>
        page.locator("#ledger li[data-type=payout]", { hasText: `@${handle}` }).locator("[data-status]");
      await until(async () => (await badge("alice").getAttribute("data-status")) === "confirmed", "alice confirmed");
      // The other confirms without a stream event: the page re-reads the feed while a payout is on its way.
      api.ledgerEvents = [autopay("alice", "confirmed", 1_000), autopay("user1", "confirmed", 1_500), sweepOf(t0)];
      await until(
        async () => (await badge("user1").getAttribute("data-status")) === "confirmed",
        "user1 confirmed",
        12_000,
      );
      expect(await page.locator("#ledger li").count()).toBe(5);
      await screenshot(page, `issue47-3-live-ledger-${label}`);
      expect(browser.errors).toEqual([]);
    });

    test("4. Amounts take a comma as the decimal mark; times are in the browser's zone, UTC on hover", async () => {
      await devLogin(viewport);
      await page.getByLabel("Wallet address").fill(WALLET);
      await page.getByLabel("Amount in SOL").fill("0,05");
      await page.getByRole("button", { name: "Claim", exact: true }).click();
      await until(async () => (await text("#claim-status")).includes("queued"), "queued note");
      expect((api.apiCalls("/api/claim")[0]!.body as { lamports: string }).lamports).toBe("50000000");
      expect(await text("#claim-status")).toContain("Claim of 0.05 SOL queued");
      await page.close();

      page = await browser.newPage(viewport);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setTimezoneOverride", { timezoneId: "Asia/Tokyo" });
      const token = api.tokens[0]!;
      await page.goto(`${api.url}/token/${token.mint}`);
      await page.locator('[data-field="swept"]').waitFor();
      const launched = new Date(token.launchedAt);
      const tokyo = new Intl.DateTimeFormat("en-GB", {
        day: "numeric",
        month: "short",
        year: "numeric",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: "h23",
        timeZoneName: "short",
        timeZone: "Asia/Tokyo",
      }).format(launched);
      expect(tokyo).toContain("GMT+9");
      expect(await page.locator(".facts div", { hasText: "Launched" }).innerText()).toContain(`(${tokyo})`);
      const lastSweep = page.locator(".facts div", { hasText: "Last sweep" }).locator("time");
      expect(await lastSweep.getAttribute("title")).toMatch(/GMT\+9 \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$/);
      await screenshot(page, `issue47-4-times-tokyo-${label}`);
      expect(browser.errors).toEqual([]);
    });

    test("4. USD beside SOL where the market source gave SOL's price, and nowhere when it did not", async () => {
      api.solUsd = 150;
      await devLogin(viewport);
      const balance = page.locator("#balance-facts .amount").first();
      expect(await balance.locator('[data-field="balance"]').innerText()).toBe("2 SOL");
      expect(await balance.locator("[data-usd]").innerText()).toBe("≈ $300.00");
      await screenshot(page, `issue47-4-usd-${label}`);
      await page.close();
      await open(viewport, "/");
      const card = page.locator(`#token-list > li[data-mint="${api.tokens[1]!.mint}"]`);
      await card.waitFor();
      // 0.001 SOL swept: fifteen cents.
      expect(await card.locator('[data-figure="swept"] dd').innerText()).toBe("0.001 SOL ≈ $0.15");
      await page.close();

      api.solUsd = null;
      await open(viewport, "/");
      const plain = page.locator(`#token-list > li[data-mint="${api.tokens[1]!.mint}"]`);
      await plain.waitFor();
      expect(await plain.locator('[data-figure="swept"] dd').innerText()).toBe("0.001 SOL");
      expect(await page.locator("[data-usd]").count()).toBe(0);
    });

    test("5. Signing in without X says so, and the local chain offers the handles its tokens name", async () => {
      api.idpConfigured = false;
      await open(viewport, "/me");
      await page.locator("#dev-login").waitFor();
      expect(await text("main")).toContain("Sign-in with X is not set up on this deployment");
      expect(await page.locator("#signin-x").count()).toBe(0);
      const alice = page.getByRole("button", { name: "Sign in as @Alice" });
      await alice.waitFor();
      expect(await page.locator("#dev-handles button").count()).toBeGreaterThan(1);
      await screenshot(page, `issue47-5-signin-${label}`);
      await alice.click();
      await page.locator('[data-field="balance"]').waitFor();
      expect(api.apiCalls("/api/auth/dev-login")[0]!.body).toEqual({ handle: "alice" });
      expect(await overflowsHorizontally(page)).toEqual([]);
    });

    test("6. Launch: the missing-wallet sentence goes once a wallet is connected; no wallet says where to get one", async () => {
      await open(viewport, "/launch");
      await page.getByLabel("Name").fill("Comet");
      await page.getByLabel("Ticker").fill("CMT");
      await page.setInputFiles("#launch-image", { name: "coin.png", mimeType: "image/png", buffer: Buffer.from(PNG) });
      await page.getByLabel("Recipient 1 handle").fill("@Alice");
      await page.getByRole("button", { name: "Launch", exact: true }).click();
      await until(async () => (await text("#launch-status")).includes("Connect a wallet first."), "no wallet");
      await page.getByRole("button", { name: "Local wallet (local chain)" }).click();
      await page.locator("#wallet-connected").waitFor();
      expect(await text("#launch-status")).toBe("");
      await page.getByRole("button", { name: "Launch", exact: true }).click();
      // Launched, the page goes to the token (issue 65), where no wallet sentence is left.
      await page.waitForURL(/\/token\//, { timeout: 15_000 });
      expect(await page.locator("#launch-status").count()).toBe(0);
      await page.close();

      api.localChain = false;
      await open(viewport, "/launch");
      const hint = page.locator("#no-wallet");
      await hint.waitFor();
      expect(await hint.innerText()).toContain("No Solana wallet found in this browser.");
      expect(
        await hint.locator("a").evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).host)),
      ).toEqual(["phantom.com", "solflare.com", "backpack.app"]);
      await screenshot(page, `issue47-6-no-wallet-${label}`);
    });

    test("7. Claim to a connected Wallet Standard wallet, with the typed address one click away", async () => {
      page = await browser.newPage(viewport);
      await page.addInitScript(registerTestWallet(CONNECTED_WALLET));
      await page.goto(`${api.url}/me`);
      await page.getByLabel("Handle").fill("alice");
      await page.getByRole("button", { name: "Sign in as this handle" }).click();
      await page.locator('[data-field="balance"]').waitFor();
      await page.getByLabel("Wallet address").fill(WALLET);
      await page.getByRole("button", { name: "Use Test Wallet" }).click();
      await until(async () => (await page.getByLabel("Wallet address").inputValue()) === CONNECTED_WALLET, "filled");
      expect(await text("#claim-wallet-connected")).toBe("Filled in from your Test Wallet.");
      await screenshot(page, `issue47-7-claim-wallet-${label}`);
      await page.getByRole("button", { name: "Use the address I typed" }).click();
      expect(await page.getByLabel("Wallet address").inputValue()).toBe(WALLET);
      await page.getByRole("button", { name: "Use Test Wallet" }).click();
      await until(async () => (await page.getByLabel("Wallet address").inputValue()) === CONNECTED_WALLET, "again");
      await page.getByLabel("Amount in SOL").fill("0.5");
      await page.getByRole("button", { name: "Claim", exact: true }).click();
      await until(async () => (await text("#claim-status")).includes("queued"), "queued");
      expect((api.apiCalls("/api/claim")[0]!.body as { wallet: string }).wallet).toBe(CONNECTED_WALLET);
      expect(await overflowsHorizontally(page)).toEqual([]);
      expect(browser.errors).toEqual([]);
    });

    test("8. Signatures and addresses: the whole value by tap, a copy button, explorer links where configured", async () => {
      page = await browser.newPage(viewport);
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: api.url });
      await page.goto(`${api.url}/ledger`);
      const first = page.locator("#ledger li").first().locator(".long-value");
      await first.waitFor();
      const signature = "4".repeat(87);
      expect(await first.locator("a.mono").innerText()).toBe("4444…4444");
      expect(await first.locator("a.mono").getAttribute("href")).toBe(`https://solscan.io/tx/${signature}`);
      await first.getByRole("button", { name: "Show the whole transaction signature" }).click();
      expect(await first.locator("a.mono").innerText()).toBe(signature);
      await first.getByRole("button", { name: "Copy the transaction signature" }).click();
      await until(async () => (await page.evaluate(() => navigator.clipboard.readText())) === signature, "copied");
      await screenshot(page, `issue47-8-long-values-${label}`);
      await page.close();

      // The local chain: no explorer, the same short value, whole value and copy button.
      api.explorerUrl = null;
      api.signedInAs = "alice";
      api.payouts.push({
        id: 9,
        lamports: "100000000",
        wallet: WALLET,
        kind: "claim",
        status: "confirmed",
        signature: "7".repeat(87),
        createdAt: new Date(api.now - 60_000).toISOString(),
        confirmedAt: new Date(api.now - 30_000).toISOString(),
        reads: 0,
      });
      await open(viewport, "/me");
      const wallet = page.locator("#payouts .long-value").first();
      await wallet.waitFor();
      expect(await wallet.locator("a").count()).toBe(0);
      await wallet.getByRole("button", { name: "Show the whole address" }).click();
      expect(await wallet.locator("code").innerText()).toBe(WALLET);
      expect(await wallet.getByRole("button", { name: "Copy the address" }).count()).toBe(1);
      expect(await overflowsHorizontally(page)).toEqual([]);
    });

    test("10. Most fees shows the total it ranks by; Proof shows the liabilities root; the claim form comes first; every token has an image", async () => {
      api.tokens[2]!.imageUrl = null;
      await open(viewport, "/?sort=fees");
      await page.locator("#token-list > li").first().waitFor();
      for (const card of (await page.locator("#token-list > li").all()).slice(0, 3)) {
        const mint = await card.getAttribute("data-mint");
        const t = api.tokens.find((x) => x.mint === mint)!;
        const all = BigInt(t.sweptLamports) + BigInt(t.vaultLamports);
        expect(await card.locator('[data-figure="fees"] dt').innerText()).toBe("All fees (swept + unswept)");
        // Shown to four decimals (issue 65 item 11); the exact total stays on the element.
        expect(await card.locator('[data-figure="fees"] dd').innerText()).toBe(solShort(all));
        expect(await card.locator('[data-figure="fees"] dd .money').getAttribute("data-lamports")).toBe(String(all));
      }
      await screenshot(page, `issue47-10-most-fees-${label}`);
      await page.close();

      // A token without an image gets a tile of its own, not the shared grey placeholder.
      await open(viewport, "/");
      const imageless = page.locator(`#token-list > li[data-mint="${api.tokens[2]!.mint}"] img`);
      const src = (await imageless.getAttribute("src"))!;
      expect(src.startsWith("data:image/svg+xml,")).toBe(true);
      expect(decodeURIComponent(src)).toContain(">T2</text>");
      expect(await page.locator(`#token-list > li[data-mint="${api.tokens[1]!.mint}"] img`).getAttribute("src")).toBe(
        api.tokens[1]!.imageUrl,
      );
      await page.close();

      await open(viewport, "/proof");
      const liabilities = page.locator("#liabilities");
      await liabilities.locator(".facts").waitFor();
      const published = (await (await fetch(`${api.url}/api/proof/liabilities`)).json()) as {
        root: string;
        anchorSignature: string;
      };
      expect(await liabilities.innerText()).toContain(published.root);
      expect(await liabilities.locator(".long-value").getAttribute("data-full")).toBe(published.anchorSignature);
      await screenshot(page, `issue47-10-proof-${label}`);
      await page.close();

      await devLogin(viewport);
      await page.locator("#liability-proof-result").waitFor();
      expect(await page.getByText("How to check it by hand").count()).toBe(1);
      const claim = (await page.locator("#claim-form").boundingBox())!;
      const totals = (await page.locator("#totals").boundingBox())!;
      expect(claim.y).toBeLessThan(totals.y);
      // On a phone the claim form starts within the first screen and a half, not seven cards down.
      expect(claim.y).toBeLessThan(viewport.height * 1.5);
      await screenshot(page, `issue47-10-me-${label}`);
    });

    test("11. No axe-core violation on any page; the operator's and the launch's code load only on their pages; the footer links the API reference", async () => {
      const mint = api.tokens[0]!.mint;
      const pages: [string, string][] = [
        ["/", "#token-list > li"],
        [`/token/${mint}`, "#fee-chart p, #fee-chart canvas"],
        ["/idp/alice", '[data-field="balance"]'],
        ["/idp/bob_unclaimed", ".unclaimed"],
        ["/me", "#dev-login"],
        ["/launch", "#launch-form"],
        ["/ledger", "#ledger li"],
        ["/stats", "#jobs-ok"],
        ["/proof", "#liabilities .facts"],
        ["/nope", "#not-found"],
      ];
      for (const [path, ready] of pages) {
        const scripts: string[] = [];
        page = await browser.newPage(viewport);
        page.on("response", (r) => {
          if (r.url().endsWith(".js")) scripts.push(r.url());
        });
        await page.goto(`${api.url}${path}`);
        await page.locator(ready).first().waitFor();
        await expectAccessible(path);
        const code = (await Promise.all(scripts.map(async (u) => await (await fetch(u)).text()))).join("\n");
        expect(code.includes("/api/admin/overview")).toBe(false);
        expect(code.includes("/api/launch/intent")).toBe(path === "/launch");
        expect(await page.locator("footer a[href='/api/docs']").innerText()).toBe("API reference");
        await page.close();
      }
      await devLogin(viewport);
      await page.locator("#liability-proof-result .notice").waitFor();
      await expectAccessible("/me signed in");
      await page
        .getByRole("button", { name: /Show the whole/ })
        .first()
        .click();
      await expectAccessible("/me with a value shown whole");
    });
  });
}
