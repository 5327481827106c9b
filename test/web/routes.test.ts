/** The web plugin inside the real app: page paths get the page, /api keeps its JSON 404s. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config";
import { testService, type TestService } from "../helpers/service";

let service: TestService;
beforeAll(() => {
  service = testService();
});
afterAll(async () => {
  await service.cleanup();
});

describe("web routes", () => {
  test.each([
    "/",
    "/token/So11111111111111111111111111111111111111112",
    "/idp/alice",
    "/me",
    "/launch",
    "/ledger",
    "/stats",
    "/proof",
  ])("%s serves the page with a strict content policy", async (path) => {
    const response = await service.call(path);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(response.headers.get("content-security-policy")).toContain("connect-src 'self'");
    const html = await response.text();
    expect(html).toContain('<main id="main"');
    expect(html).not.toContain("%APP%");
    // Nothing from another site: no CDN scripts, styles or fonts.
    expect(html).not.toMatch(/(src|href)="https?:/);
  });

  test("the bundle and styles are served under hashed names, cached for a year", async () => {
    const html = await (await service.call("/")).text();
    const app = /src="(\/assets\/app-[^"]+\.js)"/.exec(html)![1]!;
    const css = /href="(\/assets\/styles-[^"]+\.css)"/.exec(html)![1]!;
    const js = await service.call(app);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const body = await js.text();
    // Kept small: no web3.js in the page.
    expect(body.length).toBeLessThan(150_000);
    expect(body).not.toMatch(/https?:\/\/(cdn|fonts|unpkg|jsdelivr)/);
    const styles = await service.call(css);
    expect(styles.headers.get("content-type")).toContain("text/css");
    expect((await service.call("/favicon.svg")).headers.get("content-type")).toBe("image/svg+xml");
  });

  test("unknown API paths and unknown assets answer the JSON error envelope", async () => {
    for (const path of [
      "/api/nope",
      "/api/tokens/x/y",
      "/assets/app-old.js",
      "/api",
      "/api/docs/assets/0.0.0/swagger-ui-bundle.js",
    ]) {
      const response = await service.call(path);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(Object.keys(await response.json())).toEqual(["error"]);
    }
  });

  test("a mistyped page path gets the page (its not-found view) with status 404", async () => {
    for (const path of ["/tokens", "/nope", "/token/abc/extra"]) {
      const response = await service.call(path);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(await response.text()).toContain('<main id="main"');
    }
  });

  test("the API reference and its viewer are served from this process, nothing from a CDN", async () => {
    const response = await service.call("/api/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await response.text();
    expect(html).not.toMatch(/(src|href)="https?:/);
    const scripts = [...html.matchAll(/(?:src|href)="(\/api\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(3);
    for (const path of scripts) {
      const asset = await service.call(path);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const body = await asset.text();
      expect(/cdn\.jsdelivr|unpkg\.com/.test(body)).toBe(false);
      // Swagger UI would send the document to its public validator unless told not to.
      if (path.endsWith("/start.js")) expect(body).toContain('"validatorUrl":null');
    }
    expect((await service.call("/favicon.ico")).status).toBe(200);
  });

  test("explorer links: none on the local chain, EXPLORER_URL when set, solscan by default on a real chain", async () => {
    expect(await (await service.call("/")).text()).toContain('<meta name="explorer-url" content="">');
    const custom = testService({
      EXPLORER_URL: "https://explorer.solana.com/{kind}/{id}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899",
    });
    try {
      expect(await (await custom.call("/ledger")).text()).toContain(
        '<meta name="explorer-url" content="https://explorer.solana.com/{kind}/{id}?cluster=custom&amp;customUrl=http%3A%2F%2F127.0.0.1%3A8899">',
      );
    } finally {
      await custom.cleanup();
    }
    const pump = {
      CHAIN: "pump",
      RPC_URL: "https://rpc.example.com",
      MASTER_SECRET: "m".repeat(32),
      TREASURY_KEY: "x",
      PUBLIC_URL: "https://fees.example.com",
    };
    expect(loadConfig(pump).explorerUrl).toBe("https://solscan.io/{kind}/{id}");
    expect(loadConfig({ ...pump, EXPLORER_URL: "off" }).explorerUrl).toBeNull();
    expect(() => loadConfig({ EXPLORER_URL: "https://solscan.io/tx/" })).toThrow(ConfigError);
    expect(() => loadConfig({ EXPLORER_URL: "javascript:alert({id})" })).toThrow(ConfigError);
  });

  test("API routes are not shadowed by the page", async () => {
    const response = await service.call("/api/stats");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
  });
});
