/**
 * The program watch (issue 61, item 7): the programs whose instructions the service builds (pump,
 * PumpSwap and Pump Fees; the local chain's launch program) are upgradeable, and an upgrade may
 * change what an instruction does or what an account means. BPFLoaderUpgradeable writes the slot
 * of every deploy and upgrade into the program's ProgramData account
 * (`UpgradeableLoaderState::ProgramData { slot, upgrade_authority_address }`: a u32 tag 3, then
 * the slot as a u64 at bytes 4..12), so the jobs that build a program's instructions read those
 * accounts (one request for all of them, once a run: a sweep run alone makes dozens) before they
 * build anything. The first slots seen are what the service runs on; a different one raises a
 * `program-changed` incident and pauses those jobs until an operator acknowledges the change
 * (`POST /api/admin/programs/acknowledge`). Payouts build only System transfers and go on.
 *
 * A program without a readable ProgramData (not upgradeable, or not deployed on this cluster) is
 * reported as such and never guessed at: only a reading that differs from the one the jobs run on
 * counts as a change.
 */
import { PublicKey } from "@solana/web3.js";
import type { Db } from "../../db/client";
import { query } from "../../db/statement";
import { immediate } from "../../db/transaction";
import type { ChainReader, WatchedProgram } from "../chain/ports";
import { raiseIncident } from "../custody";
import { log } from "../lib/log";

export type ProgramJob = WatchedProgram["builtBy"][number];

const STATE_KEY = "program_watch";
const BPF_LOADER_UPGRADEABLE_ID = new PublicKey("BPFLoaderUpgradeab1e11111111111111111111111");
const PROGRAM_DATA_TAG = 3;

/** One program's ProgramData as read: the slot of its last deploy or upgrade, or why there is none. */
type ProgramDataReading = { slot: string } | { missing: string };

export interface ProgramChange {
  name: string;
  address: string;
  builtBy: ProgramJob[];
  from: ProgramDataReading;
  to: ProgramDataReading;
  atMs: number;
}

export interface ProgramWatchState {
  /** per program address: the reading the jobs run on (the first seen, or the last acknowledged) */
  known: Record<string, ProgramDataReading & { name: string }>;
  /** changes seen since, oldest first, until an operator acknowledges them */
  changes: ProgramChange[];
  checkedAtMs: number | null;
}

export interface ProgramWatchDeps {
  db: Db;
  chain: { reader: Pick<ChainReader, "getAccounts">; launchProgram: { programs: readonly WatchedProgram[] } };
  now: () => number;
}

const pdaCache = new Map<string, string>();
/** Where BPFLoaderUpgradeable keeps a program's ProgramData: the PDA of the program's address. */
export function programDataAddress(program: string): string {
  let address = pdaCache.get(program);
  if (!address) {
    address = PublicKey.findProgramAddressSync(
      [new PublicKey(program).toBytes()],
      BPF_LOADER_UPGRADEABLE_ID,
    )[0].toBase58();
    pdaCache.set(program, address);
  }
  return address;
}

/** The slot of a ProgramData account, or what makes the account something else. */
function programDataReading(account: { owner: string; data: Uint8Array } | null | undefined): ProgramDataReading {
  if (!account) return { missing: "no ProgramData account" };
  if (account.owner !== BPF_LOADER_UPGRADEABLE_ID.toBase58())
    return { missing: "the ProgramData address is not owned by BPFLoaderUpgradeable" };
  const view = new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength);
  if (account.data.length < 12 || view.getUint32(0, true) !== PROGRAM_DATA_TAG)
    return { missing: "the ProgramData address holds no ProgramData" };
  return { slot: view.getBigUint64(4, true).toString() };
}

const sameReading = (a: ProgramDataReading, b: ProgramDataReading) =>
  "slot" in a ? "slot" in b && a.slot === b.slot : "missing" in b;

const describe = (r: ProgramDataReading) => ("slot" in r ? `slot ${r.slot}` : r.missing);

export function programWatchState(db: Db): ProgramWatchState {
  const row = query<{ value: string }, [key: string]>(db, "SELECT value FROM settings WHERE key = ?").get(STATE_KEY);
  return row ? (JSON.parse(row.value) as ProgramWatchState) : { known: {}, changes: [], checkedAtMs: null };
}

function saveState(db: Db, state: ProgramWatchState): void {
  query<never, [key: string, value: string]>(
    db,
    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
  ).run(STATE_KEY, JSON.stringify(state));
}

/** Reads every watched program's ProgramData in one request. */
async function readPrograms(deps: ProgramWatchDeps): Promise<Map<string, ProgramDataReading>> {
  const programs = deps.chain.launchProgram.programs;
  const addresses = programs.map((p) => programDataAddress(p.address));
  const accounts = await deps.chain.reader.getAccounts(addresses);
  return new Map(programs.map((p, i) => [p.address, programDataReading(accounts.get(addresses[i]!))]));
}

/** Compares the readings with what the jobs run on, in the caller's transaction; returns the new changes. */
function noteReadings(
  db: Db,
  programs: readonly WatchedProgram[],
  readings: Map<string, ProgramDataReading>,
  atMs: number,
): ProgramChange[] {
  const state = programWatchState(db);
  const found: ProgramChange[] = [];
  for (const program of programs) {
    const seen = readings.get(program.address);
    if (!seen) continue;
    const known = state.known[program.address];
    if (!known) {
      state.known[program.address] = { ...seen, name: program.name };
      if ("missing" in seen) log.warn("program watch: no ProgramData to watch", { program: program.name, ...seen });
      continue;
    }
    const reported = state.changes.filter((c) => c.address === program.address).at(-1)?.to ?? known;
    if (sameReading(reported, seen)) continue;
    const change = { ...program, builtBy: [...program.builtBy], from: reported, to: seen, atMs };
    state.changes.push(change);
    found.push(change);
  }
  state.checkedAtMs = atMs;
  saveState(db, state);
  for (const change of found) {
    raiseIncident(db, {
      kind: "program-changed",
      detail: `${change.name} (${change.address}) changed: ProgramData ${describe(change.from)}, now ${describe(change.to)}; ${change.builtBy.join(", ")} paused until an operator acknowledges it`,
      atMs,
    });
  }
  return found;
}

/**
 * Reads the watched programs' ProgramData and records any change (an incident, and the jobs that
 * build its instructions pause). A failed read changes nothing: the jobs' own reads fail as well,
 * and an outage is no upgrade.
 */
export async function watchPrograms(deps: ProgramWatchDeps): Promise<ProgramChange[]> {
  const programs = deps.chain.launchProgram.programs;
  if (programs.length === 0) return [];
  let readings: Map<string, ProgramDataReading>;
  try {
    readings = await readPrograms(deps);
  } catch (error) {
    log.warn("program watch: ProgramData read failed", { error });
    return [];
  }
  return immediate(deps.db, () => noteReadings(deps.db, programs, readings, deps.now()));
}

/** The changes no operator acknowledged yet that pause `job`. */
export function programChangesPausing(db: Db, job: ProgramJob): ProgramChange[] {
  return programWatchState(db).changes.filter((c) => c.builtBy.includes(job));
}

/**
 * Runs `run` unless a program whose instructions `job` builds changed and no operator acknowledged
 * it yet (the ProgramData is read first, at the watch's cadence); null when the job stood still.
 */
export async function whileProgramsUnchanged<T>(
  deps: ProgramWatchDeps,
  job: ProgramJob,
  run: () => Promise<T>,
): Promise<T | null> {
  await watchPrograms(deps);
  const pausing = programChangesPausing(deps.db, job);
  if (pausing.length > 0) {
    log.warn("program watch: job paused until an operator acknowledges a program change", {
      job,
      programs: [...new Set(pausing.map((c) => c.name))],
    });
    return null;
  }
  return run();
}

/**
 * An operator acknowledges every change seen so far, in one transaction with `audit` (the admin
 * audit row, told what was acknowledged): the new readings become what the jobs run on, the open
 * `program-changed` incident is resolved with their reason, and the paused jobs go on. Returns the
 * changes acknowledged (none: nothing is written).
 */
export function acknowledgeProgramChanges(
  db: Db,
  who: { actor: string; reason: string; atMs: number },
  audit: (subject: string) => void,
): ProgramChange[] {
  return immediate(db, () => {
    const state = programWatchState(db);
    const acknowledged = state.changes;
    if (acknowledged.length === 0) return [];
    for (const change of acknowledged) state.known[change.address] = { ...change.to, name: change.name };
    state.changes = [];
    saveState(db, state);
    query<never, [atMs: number, actor: string, reason: string]>(
      db,
      `UPDATE custody_incidents SET resolved_at_ms = ?, resolved_by = ?, resolve_reason = ?
          WHERE resolved_at_ms IS NULL AND kind = 'program-changed'`,
    ).run(who.atMs, who.actor, who.reason.slice(0, 500));
    audit(acknowledged.map((c) => `${c.name} ${describe(c.to)}`).join("; "));
    return acknowledged;
  });
}
