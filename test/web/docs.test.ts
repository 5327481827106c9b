/**
 * `/api/docs` in Chromium with every non-loopback request blocked: the API reference renders from
 * the pinned local viewer, under the page's strict content policy, with a favicon that loads.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DESKTOP, useBrowser, screenshot } from "./browser";
import { testService, type TestService } from "../helpers/service";

const PHONE_390 = { width: 390, height: 844 };
let service: TestService;
let server: ReturnType<typeof Bun.serve>;
const blocked: string[] = [];
const missing: string[] = [];
// The network is "down": anything not on loopback is refused and remembered (in every launched context).
const browser = useBrowser({
  testTimeoutMs: 60_000,
  async onLaunch(context) {
    const loopback = (url: URL) => url.hostname === "127.0.0.1" || url.hostname === "localhost";
    await context.route(
      (url) => !loopback(url),
      (route) => {
        blocked.push(route.request().url());
        return route.abort("internetdisconnected");
      },
    );
    context.on("response", (response) => {
      if (response.status() >= 400) missing.push(`${response.status()} ${response.url()}`);
    });
  },
});

beforeAll(async () => {
  service = testService();
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => service.app.handle(request) });
});
afterAll(async () => {
  await server?.stop(true);
  await service?.cleanup();
});

describe("the API reference with the network blocked", () => {
  test("the test's network block refuses other hosts", async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.port}/api/docs`);
    const outcome = await page.goto("https://cdn.jsdelivr.net/npm/x").then(
      () => "loaded",
      () => "refused",
    );
    expect(outcome).toBe("refused");
    expect(blocked).toEqual(["https://cdn.jsdelivr.net/npm/x"]);
    blocked.length = 0;
    browser.errors.length = 0;
    await page.close();
  });

  for (const [label, viewport] of [
    ["1280", DESKTOP],
    ["390", PHONE_390],
  ] as const) {
    test(`renders every documented route at ${label} px`, async () => {
      const errorsBefore = browser.errors.length;
      const page = await browser.newPage(viewport);
      await page.goto(`http://127.0.0.1:${server.port}/api/docs`);
      await page.locator(".opblock").first().waitFor({ timeout: 20_000 });
      expect(await page.locator(".info .title").innerText()).toContain("Creator-fee ledger: public reads");
      const paths = await page.locator(".opblock-summary-path").allInnerTexts();
      const cleaned = paths.map((p) => p.replace(/\u200b/g, "").trim());
      for (const path of [
        "/api/tokens",
        "/api/tokens/{mint}",
        "/api/stats",
        "/api/ledger",
        "/api/proof",
        "/api/cron/health",
      ]) {
        expect(cleaned).toContain(path);
      }
      // One operation opens and shows its responses.
      await page
        .locator(".opblock-summary-path", { hasText: /^\/api\/stats$/ })
        .first()
        .click();
      await page.locator(".responses-wrapper").first().waitFor();
      await screenshot(page, `docs-offline-${label}`);
      // The favicon the page names loads.
      // Both the icon the page names and /favicon.ico (which browsers ask for on their own) load as images.
      const icons = await page.evaluate(async () => {
        const load = (src: string) =>
          new Promise<number>((resolve) => {
            const img = new Image();
            img.onload = () => resolve(img.naturalWidth);
            img.onerror = () => resolve(0);
            img.src = src;
          });
        // A query string keeps Chromium's favicon cache out of the check.
        return [
          await load(`${(document.querySelector("link[rel=icon]") as HTMLLinkElement).href}?check`),
          await load("/favicon.ico?check"),
        ];
      });
      expect(icons[0]).toBeGreaterThan(0);
      expect(icons[1]).toBeGreaterThan(0);
      await page.close();
      expect(blocked).toEqual([]);
      expect(missing).toEqual([]);
      // No content-policy violation or script error.
      expect(browser.errors.slice(errorsBefore)).toEqual([]);
    });
  }
});
