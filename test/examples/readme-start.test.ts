/**
 * Issue 65 item 16: the README's first steps are the ones that work. Where to open the page comes
 * right after the start command (it came after the test-suite paragraph); what it says about
 * `[::1]` matches the default `HOST` (IPv4 only); it says how to reach /admin; and the proof
 * verifier is the command that runs from a clean clone (`bun` is not on the PATH after
 * `npm install`), on the page that tells recipients to run it too.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config";

const ROOT = join(import.meta.dir, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const START = "```sh\nnpm install && npm start\n```";
const TESTS = "```sh\nnpm install && npm test\n```";

describe("README: the first steps", () => {
  test("where to open the page comes right after the start command, before the tests", () => {
    const start = README.indexOf(START);
    expect(start).toBeGreaterThan(0);
    const next = README.slice(start + START.length).trimStart();
    expect(next).toStartWith("Then open http://localhost:3000");
    expect(README.indexOf("Then open http://localhost:3000")).toBeLessThan(README.indexOf(TESTS));
  });

  test("what it says of [::1] is true of the default HOST", () => {
    expect(loadConfig({}).host).toBe("0.0.0.0");
    const sentence = README.split(/\n\n/).find((p) => p.includes("[::1]"))!;
    expect(sentence.replace(/\s+/g, " ")).toContain(
      "The default `HOST=0.0.0.0` listens on IPv4 only, so `http://[::1]:3000` is refused; `HOST=:: npm start`",
    );
  });

  test("it says how to reach /admin: ADMIN_SECRET of at least 32 characters", () => {
    const admin = README.split(/\n\n/).find((p) => p.includes("http://localhost:3000/admin"))!;
    expect(admin).toBeDefined();
    expect(admin).toContain("`ADMIN_SECRET`");
    expect(admin.replace(/\s+/g, " ")).toContain("at least 32 characters");
  });

  test("the proof verifier is the npm script, in the README and on the page", () => {
    expect(README).toContain("`npm run verify-liabilities -- proof.json`");
    const page = readFileSync(join(ROOT, "public", "src", "pages", "me-proof.ts"), "utf8");
    expect(page).toContain('"npm run verify-liabilities -- proof.json"');
    expect(page).not.toContain("bun run verify-liabilities");
  });
});
