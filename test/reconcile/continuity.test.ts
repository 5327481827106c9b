/**
 * A listing of the treasury's history is whole only when its balances chain (src/reconcile/continuity.ts):
 * a transaction a node's hole hides shows as a balance nobody listed left, whatever order the node
 * lists one slot's signatures in.
 */
import { expect, test } from "bun:test";
import { openDatabase } from "../../db/client";
import type { ChainReader, ConfirmedTransaction } from "../../src/chain/ports";
import { chainSlot, verifyContinuity } from "../../src/reconcile/continuity";

const TREASURY = "Treasury1111111111111111111111111111111111";

/** The treasury's transactions as the chain ran them: slot, balance before and after. */
const HISTORY: [signature: string, slot: bigint, pre: bigint, post: bigint][] = [
  ["a", 10n, 1_000n, 900n],
  ["b", 11n, 900n, 905n], // a stranger's dust
  ["c", 11n, 905n, 905n], // reads the treasury, moves nothing
  ["d", 11n, 905n, 700n], // a payout
  ["e", 12n, 700n, 1_200n], // a sweep
  ["f", 14n, 1_200n, 1_100n],
];

function readerOf(reads: string[]): ChainReader {
  const bySignature = new Map(HISTORY.map(([signature, slot, pre, post]) => [signature, { slot, pre, post }]));
  return {
    async getTransaction(signature: string) {
      reads.push(signature);
      const tx = bySignature.get(signature);
      if (!tx) return null;
      return {
        signature,
        slot: tx.slot,
        accountKeys: [TREASURY],
        preBalances: [tx.pre],
        postBalances: [tx.post],
      } as unknown as ConfirmedTransaction;
    },
  } as unknown as ChainReader;
}

const listing = (signatures: string[]) =>
  signatures.map((signature) => ({ signature, slot: HISTORY.find(([s]) => s === signature)![1] }));

test("a whole listing chains, in any order within a slot, and ends at the newest slot's balance", async () => {
  const db = openDatabase(":memory:");
  // Newest first, the slot's signatures sorted by signature as older nodes list them.
  const result = await verifyContinuity(db, readerOf([]), TREASURY, listing(["f", "e", "b", "c", "d", "a"]).reverse());
  expect(result).toEqual({ whole: true, end: { slot: 14n, balance: 1_100n } });
});

test("a payout the listing leaves out breaks the chain, within a slot or between slots", async () => {
  const db = openDatabase(":memory:");
  const withoutPayout = await verifyContinuity(db, readerOf([]), TREASURY, listing(["f", "e", "c", "b", "a"]));
  expect(withoutPayout.whole).toBe(false);
  const withoutSweep = await verifyContinuity(db, readerOf([]), TREASURY, listing(["f", "d", "c", "b", "a"]));
  expect(withoutSweep.whole).toBe(false);
  // Only a transaction that moves nothing may be missing: it changes no balance anyone is owed.
  const withoutRead = await verifyContinuity(db, readerOf([]), TREASURY, listing(["f", "e", "d", "b", "a"]));
  expect(withoutRead.whole).toBe(true);
});

test("a long listing is verified over several runs, each reading whole slots within its budget", async () => {
  const db = openDatabase(":memory:");
  const reads: string[] = [];
  const listed = listing(["f", "e", "d", "c", "b", "a"]);
  const first = await verifyContinuity(db, readerOf(reads), TREASURY, listed, 2);
  expect(first.whole).toBe(false);
  expect(reads).toEqual(["a"]);
  const second = await verifyContinuity(db, readerOf(reads), TREASURY, listed, 2);
  expect(second.whole).toBe(false);
  expect(reads.slice(1).sort()).toEqual(["b", "c", "d"]);
  const third = await verifyContinuity(db, readerOf(reads), TREASURY, listed, 2);
  expect(third).toEqual({ whole: true, end: { slot: 14n, balance: 1_100n } });
  expect(reads.slice(4)).toEqual(["e", "f"]);
});

test("a transaction not readable yet is asked again, not taken as whole", async () => {
  const db = openDatabase(":memory:");
  const result = await verifyContinuity(db, readerOf([]), TREASURY, [
    ...listing(["f", "e"]),
    { signature: "z", slot: 13n },
  ]);
  expect(result.whole).toBe(false);
});

test("a slot whose transactions return to a balance chains whichever of them a walk tries first", () => {
  // From 100: a payout to 60, a credit back to 100, then a sweep to 500; the sweep also starts at 100.
  const steps = [
    { signature: "sweep", pre: 100n, post: 500n },
    { signature: "payout", pre: 100n, post: 60n },
    { signature: "credit", pre: 60n, post: 100n },
  ];
  expect(chainSlot(100n, steps)).toBe(500n);
  expect(chainSlot(100n, steps.slice(0, 2))).toBeNull();
});
