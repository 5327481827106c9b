/**
 * No Docker engine runs here, so the image layout is checked from the Dockerfile itself: the
 * single executable built by the Bun every test runs on, run on a slim base as a non-root user
 * with the data volume and a health check on the job health route.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const text = await Bun.file(join(root, "Dockerfile")).text();
const lines = text
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));
const froms = lines.filter((l) => l.startsWith("FROM "));

describe("Dockerfile", () => {
  test("builds with the Bun that package-lock.json pins and package.json asks for, to the patch", async () => {
    const pkg = await Bun.file(join(root, "package.json")).json();
    const lock = await Bun.file(join(root, "package-lock.json")).json();
    const locked: string = lock.packages["node_modules/bun"].version;
    const bunImages = froms.map((l) => /^FROM oven\/bun:(\S+)/.exec(l)?.[1]).filter((tag) => tag !== undefined);
    expect(bunImages.length).toBeGreaterThan(0);
    for (const tag of bunImages) expect(tag).toBe(locked);
    expect(Bun.semver.satisfies(locked, pkg.devDependencies.bun)).toBe(true);
    expect(text).toMatch(/RUN [^\n]*scripts\/build\.ts/);
  });

  test("installs exactly the lockfile's versions or fails: no fallback install that resolves anew", () => {
    const installs = lines.filter((l) => /\bbun install\b/.test(l));
    expect(installs.length).toBeGreaterThan(0);
    for (const line of installs) {
      expect(line).toMatch(/^RUN bun install [^|;&]*--frozen-lockfile/);
      expect(line).not.toMatch(/\|\||;|&&/);
    }
  });

  test("runs the executable alone on a slim base", () => {
    const final = froms[froms.length - 1]!;
    expect(final).toMatch(/^FROM debian:\S+-slim$/);
    expect(text).toMatch(/COPY --from=build \S+\/fee-ledger \/usr\/local\/bin\/fee-ledger/);
    expect(lines[lines.length - 1]).toBe('CMD ["fee-ledger"]');
  });

  test("runs as a non-root user that owns the data volume", () => {
    const userLines = lines.filter((l) => l.startsWith("USER "));
    expect(userLines.length).toBeGreaterThan(0);
    expect(userLines[userLines.length - 1]).not.toMatch(/USER\s+(root|0)\b/);
    expect(text).toMatch(/VOLUME \["\/data"\]/);
    expect(text).toMatch(/DATA_DIR=\/data/);
    expect(text).toMatch(/chown [^\n]*\/data/);
  });

  test("the health check is the executable's own, which asks /api/cron/health", async () => {
    expect(text).toMatch(/HEALTHCHECK[^\n]*\\\n\s*CMD \["fee-ledger", "health"\]/);
    expect(await Bun.file(join(root, "scripts", "cli.ts")).text()).toMatch(/\/api\/cron\/health/);
  });
});
