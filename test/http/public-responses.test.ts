/**
 * No behaviour change, byte for byte: the seeded service's public responses (status, stable
 * headers, bodies) equal the committed golden file. After an intended change to a public
 * response, rewrite it with `bun run public-responses -- --write` and review the diff.
 *
 * The check runs in its own process: the service keeps some state per process (Elysia fills in a
 * shared body schema when a route first validates a request, and the OpenAPI document shows it), so
 * what other test files did earlier in this process must not decide the answer.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { readGolden } from "../../scripts/public-responses";

const SCRIPT = join(import.meta.dir, "..", "..", "scripts", "public-responses.ts");

test("the public responses of the seeded service match test/golden/public-responses.json", async () => {
  expect(readGolden().length).toBeGreaterThan(100);
  const child = Bun.spawn([process.execPath, "run", SCRIPT, "--check"], {
    env: { ...process.env, LOG_LEVEL: "warn" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (exitCode !== 0) console.error(stderr);
  expect({ exitCode, stderr: exitCode === 0 ? "" : stderr.slice(-2000) }).toEqual({ exitCode: 0, stderr: "" });
  expect(stdout).toContain("public responses match");
}, 120_000);
