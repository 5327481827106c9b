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
  // A heap's full collections begin at 8 MiB rather than 32, and it may grow 25% (under 96 MB
  // live) or 15% past its live size before the next, not 100% or 50%. The live heaps are 20-40 MB
  // each; with the defaults each thread, the request thread most, kept as much again of garbage.
  // The price is time spent collecting, on the request thread too (the options are the process's).
  // bench:api at 100k tokens, jobs working, peak RSS: ~355-375 MB with the defaults (probes); 323
  // with these, the reads at 0.49-0.67 of bare; 317 at 4 MiB and 20%/10%, but the reads at
  // 0.44-0.58 and random details' p99 at 29 ms (hot reads ~10% slower in A/B probes).
  BUN_JSC_largeHeapSize: "8388608",
  BUN_JSC_smallHeapGrowthFactor: "1.25",
  BUN_JSC_mediumHeapGrowthFactor: "1.15",
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
