/**
 * The program watch for the operator (issue 61, item 7): `GET /api/admin/programs` shows the
 * slots the jobs run on and the upgrade seen since; `POST /api/admin/programs/acknowledge` needs a
 * reason, is audited, resolves the `program-changed` incident and lets the paused jobs go on.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { programChangesPausing, watchPrograms } from "../../src/jobs";
import { fakeChain } from "../fakes/chain";
import { testService, type TestService } from "../helpers/service";

const ADMIN = "admin-secret-for-program-watch-0123456789";
const PUMP = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";
const LOADER = "BPFLoaderUpgradeab1e11111111111111111111111";
const programData = PublicKey.findProgramAddressSync([new PublicKey(PUMP).toBytes()], new PublicKey(LOADER))[0];

/** ProgramData as BPFLoaderUpgradeable writes it: tag 3, slot, Some(authority), the ELF. */
function programDataBytes(slot: bigint): Uint8Array {
  const data = new Uint8Array(45 + 16);
  const view = new DataView(data.buffer);
  view.setUint32(0, 3, true);
  view.setBigUint64(4, slot, true);
  data[12] = 1;
  return data;
}

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

describe("/api/admin/programs", () => {
  test("shows an upgrade; acknowledging it needs a reason, is audited, and lets the jobs go on", async () => {
    let slot = 250_000_000n;
    const chain = fakeChain({
      reader: {
        async getAccounts(addresses) {
          return new Map(
            addresses.map((a) => [
              a,
              a === programData.toBase58()
                ? { lamports: 1n, owner: LOADER, executable: false, data: programDataBytes(slot) }
                : null,
            ]),
          );
        },
      },
      launchProgram: { programs: [{ name: "pump", address: PUMP, builtBy: ["sweep", "burns", "launches"] }] },
    });
    svc = testService({ ADMIN_SECRET: ADMIN, RATE_LIMIT: "0" }, { chain });
    const deps = { db: svc.ctx.db, chain, now: svc.ctx.now };
    const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };

    expect(await watchPrograms(deps)).toEqual([]);
    slot = 251_000_000n;
    expect((await watchPrograms(deps)).length).toBe(1);
    expect(programChangesPausing(svc.ctx.db, "launches").length).toBe(1);

    const listed = await svc.json("/api/admin/programs", { headers: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.programs).toEqual([{ name: "pump", address: PUMP, slot: "250000000", missing: null }]);
    expect(listed.body.changes).toMatchObject([
      {
        name: "pump",
        address: PUMP,
        pauses: ["sweep", "burns", "launches"],
        from: { slot: "250000000" },
        to: { slot: "251000000" },
      },
    ]);
    // hidden without the admin key
    expect((await svc.json("/api/admin/programs")).status).toBe(404);

    const noReason = await svc.json("/api/admin/programs/acknowledge", { method: "POST", headers: admin, body: "{}" });
    expect(noReason.status).toBe(400);
    expect(programChangesPausing(svc.ctx.db, "sweep").length).toBe(1);

    const done = await svc.json("/api/admin/programs/acknowledge", {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ reason: "pump's upgrade read; decoders unchanged" }),
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      ok: true,
      action: "acknowledge_program_change",
      acknowledged: [{ name: "pump" }],
    });
    expect(programChangesPausing(svc.ctx.db, "sweep")).toEqual([]);

    const incidents = await svc.json("/api/admin/incidents", { headers: admin });
    const incident = incidents.body.incidents.find((i: { kind: string }) => i.kind === "program-changed");
    expect(incident).toMatchObject({
      halts: false,
      resolvedBy: "admin-api",
      resolveReason: "pump's upgrade read; decoders unchanged",
    });
    const audit = await svc.json("/api/admin/audit", { headers: admin });
    expect(audit.body.entries[0]).toMatchObject({
      action: "acknowledge_program_change",
      subject: "pump slot 251000000",
      reason: "pump's upgrade read; decoders unchanged",
    });
    expect((await svc.json("/api/admin/programs", { headers: admin })).body.programs).toEqual([
      { name: "pump", address: PUMP, slot: "251000000", missing: null },
    ]);
  });
});
