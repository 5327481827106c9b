/**
 * The program watch (issue 61, item 7): the local chain holds its launch program as agave holds an
 * upgradeable program (a BPFLoaderUpgradeable program account pointing to its ProgramData). An
 * upgrade (ProgramData's slot changes) raises a `program-changed` incident and the sweep and burns
 * jobs stand still, crediting and buying nothing, until an operator acknowledges it; then they go
 * on. A program without ProgramData is reported, never taken for a change.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { launchProgramAddress, programDataAddress, upgradeProgram } from "@fee-ledger/localnet/upgradeable";
import { listIncidents } from "../../src/custody";
import {
  acknowledgeProgramChanges,
  programChangesPausing,
  programWatchState,
  watchPrograms,
  whileProgramsUnchanged,
} from "../../src/jobs";
import { ledgerTotals } from "../../src/ledger/figures";
import { openDatabase, closeDatabase } from "../../db/client";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { moneyWorld, type World } from "./world";

const SOL = 1_000_000_000n;

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const count = (world: World, sql: string) => Number((world.db.$client.query(sql).get() as { n: bigint | number }).n);
const openProgramIncidents = (world: World) =>
  listIncidents(world.db, 100).filter((i) => i.kind === "program-changed" && i.resolvedAtMs === null);

describe("an upgrade of the launch program", () => {
  test("raises an incident; sweep and burns stand still until an operator acknowledges it, then go on", async () => {
    w = await moneyWorld();
    const program = launchProgramAddress(w.local.programKeys.eventAuthority.publicKey);
    // deployed as agave holds an upgradeable program
    const account = w.local.node.getAccount(program)!;
    expect(account.owner.toBase58()).toBe("BPFLoaderUpgradeab1e11111111111111111111111");
    expect(account.executable).toBe(true);
    expect(new PublicKey(account.data.subarray(4, 36)).equals(programDataAddress(program))).toBe(true);

    w.signIn("u-carol", "carol", { routing: "burn" });
    const t = w.launch([
      { handle: "carol", bps: 5_000 },
      { handle: "dave", bps: 5_000 },
    ]);
    w.trade(t.mint, 3n * SOL);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    const firstSlot = programWatchState(w.db).known[program.toBase58()];
    expect(firstSlot).toMatchObject({ name: "launch program", slot: expect.any(String) });
    const swept = ledgerTotals(w.db).sweptLamports;
    expect(swept).toBeGreaterThan(0n);
    expect(count(w, "SELECT COUNT(*) AS n FROM burn_orders WHERE status = 'pending'")).toBeGreaterThan(0);

    w.local.node.advanceSlots(3);
    const upgradedAt = upgradeProgram(w.local.node, program);
    w.trade(t.mint, 2n * SOL);

    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(ledgerTotals(w.db).sweptLamports).toBe(swept);
    const [incident] = openProgramIncidents(w);
    expect(incident!.detail).toContain(`launch program (${program.toBase58()}) changed`);
    expect(incident!.detail).toContain(`now slot ${upgradedAt}`);
    expect(incident!.halts).toBe(false);
    expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
    expect(count(w, "SELECT COUNT(*) AS n FROM burn_buys")).toBe(0);
    // still standing on the next runs: nothing acknowledged yet
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(ledgerTotals(w.db).sweptLamports).toBe(swept);
    expect(programChangesPausing(w.db, "sweep").map((c) => c.to)).toEqual([{ slot: String(upgradedAt) }]);

    const subjects: string[] = [];
    const acknowledged = acknowledgeProgramChanges(
      w.db,
      { actor: "admin-api", reason: "read the new program", atMs: Date.now() },
      (subject) => subjects.push(subject),
    );
    expect(acknowledged.length).toBe(1);
    expect(subjects).toEqual([`launch program slot ${upgradedAt}`]);
    expect(openProgramIncidents(w)).toEqual([]);
    expect(programWatchState(w.db).known[program.toBase58()]).toMatchObject({ slot: String(upgradedAt) });

    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(ledgerTotals(w.db).sweptLamports).toBeGreaterThan(swept);
    expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
    expect(count(w, "SELECT COUNT(*) AS n FROM burn_buys")).toBeGreaterThan(0);
    w.checkRelations();
  }, 60_000);
});

describe("programs without ProgramData", () => {
  test("are reported as such, never taken for a change: the jobs run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cfl-program-watch-"));
    const db = openDatabase(join(dir, "service.db"));
    try {
      const pump = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";
      let requests = 0;
      const deps = {
        db,
        now: Date.now,
        chain: {
          reader: {
            async getAccounts(addresses: readonly string[]) {
              requests++;
              return new Map(addresses.map((a) => [a, null]));
            },
          },
          launchProgram: { programs: [{ name: "pump", address: pump, builtBy: ["sweep", "burns"] as const }] },
        },
      };
      let ran = 0;
      await whileProgramsUnchanged(deps, "sweep", async () => ran++);
      await whileProgramsUnchanged(deps, "burns", async () => ran++);
      expect(ran).toBe(2);
      expect(requests).toBe(2);
      expect(programWatchState(db).known[pump]).toEqual({ name: "pump", missing: "no ProgramData account" });
      expect(await watchPrograms(deps)).toEqual([]);
      expect(listIncidents(db, 10)).toEqual([]);
    } finally {
      closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
