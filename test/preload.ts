/**
 * Loaded before every test file (bunfig.toml). A ledger invariant that reaches a boundary stops the
 * process (src/lib/invariant.ts); under test that would end the runner and every file in it, so the
 * stop does nothing here and the boundary answers as it does after the stop returns: a 500, a failed
 * run. test/lib/invariant-stop.test.ts records the stop where it asserts it, and runs the default
 * exit in a child process.
 */
import { onBrokenInvariant } from "../src/lib/invariant";

onBrokenInvariant(() => {});
