/**
 * The service's runtime settings (src/workers/runtime-env.ts) are read by Bun and glibc as the
 * process starts, so they live in three places: `npm start`, the Dockerfile and bench:api. The
 * first two are checked here against the list; bench:api imports it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { RUNTIME_ENV, runtimeEnv } from "../src/workers/runtime-env";

const root = join(import.meta.dir, "..");

describe("runtime settings", () => {
  test("npm start sets each one as a default the environment overrides", async () => {
    const start: string = (await Bun.file(join(root, "package.json")).json()).scripts.start;
    const set = Object.fromEntries(
      [...start.matchAll(/(\w+)=\$\{(\w+):-([^}]*)\}/g)].map(([, name, again, value]) => {
        expect(again).toBe(name);
        return [name, value];
      }),
    );
    expect(set).toEqual({ ...RUNTIME_ENV });
    expect(start).toEndWith("bun run src/main.ts");
  });

  test("the Dockerfile sets each one before its command", async () => {
    const text = await Bun.file(join(root, "Dockerfile")).text();
    const env: Record<string, string> = {};
    for (const block of text.matchAll(/^ENV ((?:[^\n]*\\\n)*[^\n]*)$/gm)) {
      for (const [, name, value] of block[1]!.matchAll(/(\w+)=(\S+)/g)) env[name!] = value!;
    }
    for (const [name, value] of Object.entries(RUNTIME_ENV))
      expect({ name, value: env[name] }).toEqual({ name, value });
    expect(text.indexOf("BUN_JSC_forceRAMSize")).toBeLessThan(text.lastIndexOf("CMD "));
  });

  test("the environment wins over a default", () => {
    expect(runtimeEnv({ MALLOC_ARENA_MAX: "4" })).toEqual({ ...RUNTIME_ENV, MALLOC_ARENA_MAX: "4" });
    expect(runtimeEnv({})).toEqual({ ...RUNTIME_ENV });
  });
});
