/** Attacks a public deployment sees every day, each answered without leaking or changing anything. */
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { testConfig } from "../../src/config";
import { buildService } from "../../src/service";
import { recordFixtureLaunch } from "../helpers/launch";
import { testService, type TestService } from "../helpers/service";

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

function seed(s: TestService) {
  recordFixtureLaunch(s.ctx.db, {
    name: "Safe",
    symbol: "SAFE",
  });
}

describe("security", () => {
  test("without TRUST_PROXY a client cannot escape its rate limit by spoofing proxy headers", async () => {
    const config = testConfig();
    const service = buildService(config);
    try {
      const spoofed = (i: number) =>
        service.app.handle(
          new Request("http://localhost/api/stats", {
            headers: {
              "x-forwarded-for": `10.0.${i >> 8}.${i & 255}`,
              "x-real-ip": `10.1.0.${i & 255}`,
              forwarded: `for=10.2.0.${i & 255}`,
            },
          }),
        );
      for (let i = 0; i < 120; i++) expect((await spoofed(i)).status).toBe(200);
      expect((await spoofed(999)).status).toBe(429);
    } finally {
      await service.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    }
  });

  test("with TRUST_PROXY only a well-formed IP in the named header picks the bucket", async () => {
    svc = testService({ TRUST_PROXY: "x-forwarded-for" });
    for (let i = 0; i < 120; i++) await svc.call("/api/stats", { ip: "not-an-ip" });
    // Garbage falls back to the socket address (none under app.handle), shared by every garbage value.
    expect((await svc.call("/api/stats", { ip: "also-garbage" })).status).toBe(429);
    expect((await svc.call("/api/stats", { ip: "198.51.100.9" })).status).toBe(200);
  });

  test("path traversal on file and image routes finds nothing", async () => {
    svc = testService();
    for (const path of [
      "/api/token-images/..%2F..%2Fetc%2Fpasswd",
      "/api/token-images/%2e%2e%2f%2e%2e%2fdata%2fservice.db",
      "/assets/..%2F..%2Fpackage.json",
      "/assets/%2e%2e%2fsrc%2fconfig.ts",
      "/assets/....//....//etc/passwd",
      "/api/launch/objects/..%2F..%2Fservice.db",
    ]) {
      const response = await svc.call(path);
      const text = await response.text();
      expect([400, 404]).toContain(response.status);
      expect(text).not.toContain("root:");
      expect(text).not.toContain("SQLite format");
      expect(text).not.toContain('"name": "creator-fee-ledger"');
    }
  });

  test("SQL metacharacters in q are plain text: no error, no match, tables intact", async () => {
    svc = testService();
    seed(svc);
    for (const q of [
      "' OR 1=1 --",
      '"; DROP TABLE tokens; --',
      "%' OR '%'='",
      "SAFE' UNION SELECT * FROM sessions --",
      "*",
      '"',
      "NEAR(a b)",
    ]) {
      const { status, body } = await svc.json(`/api/tokens?q=${encodeURIComponent(q)}`);
      expect(status).toBe(200);
      expect(body.tokens.length).toBeLessThanOrEqual(1);
    }
    expect((await svc.json("/api/tokens")).body.tokens).toHaveLength(1);
    expect((await svc.json(`/api/tokens?q=${encodeURIComponent("afe")}`)).body.tokens).toHaveLength(1);
  });

  test("forged session cookies are signed out, and a claim with one is 401 with nothing written", async () => {
    svc = testService();
    for (const cookie of ["session=forged", `session=${"A".repeat(64)}`, "session=", "session=%00%00"]) {
      const me = await svc.json("/api/me", { headers: { cookie } });
      expect(me.status).toBe(200);
      expect(me.body.signedIn).toBe(false);
      const claim = await svc.json("/api/claim", {
        method: "POST",
        headers: { cookie, "content-type": "application/json", origin: "http://localhost:3000" },
        body: JSON.stringify({ wallet: "11111111111111111111111111111112" }),
      });
      expect(claim.status).toBe(401);
    }
    expect(Number((svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM payouts").get() as { n: bigint }).n)).toBe(0);
  });

  test("errors never carry a stack, SQL or a setting name", async () => {
    svc = testService();
    const answers = await Promise.all([
      svc.call("/api/tokens?limit=0"),
      svc.call("/api/tokens?cursor=%27%3B%20DROP"),
      svc.call("/api/ledger?before=yesterday"),
      svc.call("/api/idp/not%20valid"),
      svc.call("/api/tokens/0OIl"),
    ]);
    for (const response of answers) {
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).not.toMatch(/SELECT|sqlite|\.ts:\d|node_modules|Error:|_SECRET|RPC_URL|DATA_DIR/);
    }
  });
});
