/**
 * The environment the service starts with (`npm start`, the Dockerfile, `bun run bench:api`). Bun
 * reads JavaScriptCore's options, and glibc its allocator's, once as the process starts, so these
 * cannot be set from code; test/runtime-env.test.ts keeps the three places equal to this list.
 * Each is a default: the environment overrides it (e.g. on a host with memory to spare).
 *
 * Measured at 100,000 tokens with the jobs working (probes of bench:api's reads, peak RSS): the
 * three JavaScript heaps (requests, jobs, chain) and their slack are most of the process.
 */
export const RUNTIME_ENV = {
  // JavaScriptCore grows a heap in proportion to the machine's RAM; told 384 MiB, each thread
  // collects early instead of growing to hundreds of MB (~650 -> ~470 MB when it was the only one).
  BUN_JSC_forceRAMSize: "402653184",
  // A heap's full collections begin at 4 MiB rather than 32, and it may grow 20% (under 96 MB
  // live) or 10% past its live size before the next, not 100% or 50%. The live heaps are 20-40 MB
  // each; with the defaults each thread kept as much again of garbage. Measured with bench:api at
  // 100k tokens, jobs working: peak RSS 323 MB at 8 MiB and 25%/15%, 295 at 4 MiB and 15%/10%,
  // which cost random details ~20% of their rate and a few ms of p99. More frequent collections
  // are the price: this is the middle of the two.
  BUN_JSC_largeHeapSize: "4194304",
  BUN_JSC_smallHeapGrowthFactor: "1.2",
  BUN_JSC_mediumHeapGrowthFactor: "1.1",
  // The native modules' threads (the gRPC client's runtime, LiteSVM) each kept a glibc arena of
  // their own, mostly empty; they allocate little, so one arena serves them all.
  MALLOC_ARENA_MAX: "1",
} as const satisfies Record<string, string>;

/** RUNTIME_ENV under what the environment already sets. */
export function runtimeEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(RUNTIME_ENV)) out[name] = env[name] ?? value;
  return out;
}
