/**
 * `bun run bench <name> [args]`: runs scripts/bench-<name>.ts. Benchmarks print figures; they are
 * scripts, not timed tests. Names: api, jobs, indexer, localnet.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const name = process.argv[2];
const available = readdirSync(import.meta.dir)
  .filter((f) => f.startsWith("bench-") && f.endsWith(".ts"))
  .map((f) => f.slice("bench-".length, -".ts".length));
if (!name || !available.includes(name)) {
  process.stderr.write(`usage: bun run bench <${available.join("|")}> [args]\n`);
  process.exit(2);
}
const script = join(import.meta.dir, `bench-${name}.ts`);
if (!existsSync(script)) process.exit(2);
const child = Bun.spawn([process.execPath, "run", script, ...process.argv.slice(3)], {
  stdio: ["inherit", "inherit", "inherit"],
});
process.exit(await child.exited);
