/**
 * The site's own origin (issue 47, item 1): on the local chain, `http://127.0.0.1:3000` is the
 * same site as PUBLIC_URL's default `http://localhost:3000`, so a newcomer who types it can sign in
 * and claim; any other host, port or scheme is still another site, and on a real chain only
 * PUBLIC_URL's own origin is this site.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { isOwnOrigin } from "../../src/http/own-origin";
import { testService, type TestService } from "../helpers/service";

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

describe("the site's own origin", () => {
  const local = { publicUrl: "http://localhost:3000", chain: "local" as const };

  test("on the local chain, every loopback spelling of PUBLIC_URL's scheme and port", () => {
    for (const origin of [
      "http://localhost:3000",
      "http://127.0.0.1:3000",
      "http://[::1]:3000",
      "http://127.0.0.2:3000",
    ])
      expect({ origin, own: isOwnOrigin(origin, local) }).toEqual({ origin, own: true });
    for (const origin of [
      "http://127.0.0.1:4000",
      "https://127.0.0.1:3000",
      "http://192.168.1.5:3000",
      "http://localhost.evil.example:3000",
      "http://127.0.0.1.evil.example:3000",
      "null",
      "not a url",
    ])
      expect({ origin, own: isOwnOrigin(origin, local) }).toEqual({ origin, own: false });
    // A PUBLIC_URL that is not loopback has no aliases.
    expect(isOwnOrigin("http://127.0.0.1:3000", { publicUrl: "http://fees.example:3000", chain: "local" })).toBe(false);
  });

  test("on a real chain, PUBLIC_URL's origin only", () => {
    const pump = { publicUrl: "https://fees.example", chain: "pump" as const };
    expect(isOwnOrigin("https://fees.example", pump)).toBe(true);
    expect(isOwnOrigin("https://fees.example:443", pump)).toBe(true);
    expect(isOwnOrigin("https://www.fees.example", pump)).toBe(false);
    expect(isOwnOrigin("http://127.0.0.1", { publicUrl: "http://localhost", chain: "pump" })).toBe(false);
  });

  test("dev login from http://127.0.0.1:3000 signs in; from another port it is refused", async () => {
    svc = testService();
    const login = (origin: string) =>
      svc!.call("/api/auth/dev-login", {
        method: "POST",
        headers: { "content-type": "application/json", origin },
        body: JSON.stringify({ handle: "alice_demo" }),
      });
    const ok = await login("http://127.0.0.1:3000");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("set-cookie") ?? "").toContain("session");
    const refused = await login("http://127.0.0.1:3001");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "Requests from another site are refused." });
  });
});
