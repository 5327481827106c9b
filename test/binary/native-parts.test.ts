/**
 * The native code in the single executable (issue 63, item 16): none for bigint-buffer, whose
 * addon exists only where an install ran its build script (the image's `bun install` does not, and
 * its executable printed "bigint: Failed to load bindings" once a thread at every start), and the
 * glibc the rest asks for named in docs/self-hosting.md.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { serviceExecutable } from "../helpers/executable";

const ROOT = join(import.meta.dir, "..", "..");

/** The executable's bytes, built once for the suite (test/helpers/executable.ts). */
async function executableBytes(): Promise<Buffer> {
  return Buffer.from(await Bun.file(await serviceExecutable()).arrayBuffer());
}

test("it carries no bigint-buffer addon: the same executable whether or not an install built one", async () => {
  expect((await executableBytes()).includes("bigint_buffer.node")).toBe(false);
}, 240_000);

test("docs/self-hosting.md names the newest glibc any of its native parts asks for", async () => {
  // Each needed symbol version is a string in the dynamic section of the part that needs it; the
  // embedded addons are stored whole, so their strings are in the file too.
  const bytes = await executableBytes();
  const minors: number[] = [];
  for (let at = bytes.indexOf("GLIBC_2."); at >= 0; at = bytes.indexOf("GLIBC_2.", at + 1)) {
    const minor = /^\d+/.exec(bytes.subarray(at + 8, at + 12).toString("latin1"));
    if (minor) minors.push(Number(minor[0]));
  }
  const needed = `2.${minors.reduce((a, b) => Math.max(a, b), 0)}`;
  const docs = await Bun.file(join(ROOT, "docs", "self-hosting.md")).text();
  expect(docs.match(/glibc (\d+\.\d+)\s+or\s+newer/)?.[1]).toBe(needed);
}, 240_000);
