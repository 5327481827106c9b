/**
 * No Docker engine runs here, so the image layout is checked from the Dockerfile itself: a Bun
 * base image, a production install, a non-root user, the data volume, and a health check on the
 * job health route.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const text = await Bun.file(join(import.meta.dir, "..", "Dockerfile")).text();
const lines = text
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));

describe("Dockerfile", () => {
  test("builds from a Bun image with a production install", () => {
    expect(lines.filter((l) => l.startsWith("FROM ")).every((l) => /oven\/bun:/.test(l))).toBe(true);
    expect(text).toMatch(/bun install --production/);
  });

  test("runs as a non-root user that owns the data volume", () => {
    const userLines = lines.filter((l) => l.startsWith("USER "));
    expect(userLines.length).toBeGreaterThan(0);
    expect(userLines[userLines.length - 1]).not.toMatch(/USER\s+(root|0)\b/);
    expect(text).toMatch(/VOLUME \["\/data"\]/);
    expect(text).toMatch(/DATA_DIR=\/data/);
    expect(text).toMatch(/chown [^\n]*\/data/);
  });

  test("health check asks /api/cron/health and the command starts the service", () => {
    const health = lines.find((l) => l.startsWith("HEALTHCHECK"));
    expect(health).toBeDefined();
    expect(text).toMatch(/HEALTHCHECK[\s\S]*\/api\/cron\/health/);
    expect(lines[lines.length - 1]).toBe('CMD ["bun", "run", "src/main.ts"]');
  });

  test("copies every folder the service needs at run time", () => {
    for (const folder of ["src", "db", "public", "indexer"])
      expect(text).toMatch(new RegExp(`COPY ${folder} \\./${folder}`));
  });
});
