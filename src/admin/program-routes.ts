/**
 * The program watch for the operator (src/jobs/program-watch.ts; admin auth: the bearer or the
 * /admin page's session).
 *
 * `GET /api/admin/programs`: each watched program's ProgramData slot the jobs run on, and the
 * changes seen since that pause the jobs building its instructions.
 *
 * `POST /api/admin/programs/acknowledge` `{reason}`: the operator looked at the changed programs
 * (and the adapters' decoders still fit them): the new slots become what the jobs run on, the
 * `program-changed` incident is resolved, the paused jobs go on. Audited in the same write.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { acknowledgeProgramChanges, programWatchState, type ProgramChange } from "../jobs";
import { AppError } from "../lib/errors";
import { adminGuard, adminOriginOf } from "./authorized";
import { audit } from "./service";

const ACKNOWLEDGE_PROGRAMS_ACTION = "acknowledge_program_change";
const MAX_REASON_CHARS = 500;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function readingJson(r: { slot: string } | { missing: string }) {
  return "slot" in r ? { slot: r.slot, missing: null } : { slot: null, missing: r.missing };
}

function changeJson(c: ProgramChange) {
  return {
    name: c.name,
    address: c.address,
    pauses: c.builtBy,
    from: readingJson(c.from),
    to: readingJson(c.to),
    at: new Date(c.atMs).toISOString(),
  };
}

/** What /admin and the operator routes show of the watch. */
function programWatchJson(ctx: Pick<AppContext, "db">) {
  const state = programWatchState(ctx.db);
  return {
    programs: Object.entries(state.known).map(([address, known]) => ({
      name: known.name,
      address,
      ...readingJson(known),
    })),
    changes: state.changes.map(changeJson),
    checkedAt: iso(state.checkedAtMs),
  };
}

function reasonOf(body: unknown): string {
  if (body === undefined || body === null || body === "") throw new AppError("REASON_REQUIRED");
  if (typeof body !== "object" || Array.isArray(body)) throw new AppError("BODY_NOT_OBJECT");
  const reason = (body as Record<string, unknown>).reason;
  if (typeof reason !== "string" || reason.trim() === "") throw new AppError("REASON_REQUIRED");
  if (reason.length > MAX_REASON_CHARS) throw new AppError("REASON_TOO_LONG", { maximum: MAX_REASON_CHARS });
  return reason.trim();
}

export function programRoutes(ctx: AppContext) {
  const guard = adminGuard(ctx);
  return new Elysia({ name: "admin-programs" })
    .onAfterHandle(({ set }) => {
      set.headers["cache-control"] = CACHE.noStore;
    })
    .get(
      "/api/admin/programs",
      ({ request }) => {
        guard(request);
        return programWatchJson(ctx);
      },
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/programs/acknowledge",
      ({ request, body }) => {
        guard(request);
        const reason = reasonOf(body);
        const origin = adminOriginOf(ctx, request);
        const nowMs = ctx.now();
        const acknowledged = acknowledgeProgramChanges(
          ctx.db,
          { actor: origin.actor, reason, atMs: nowMs },
          (subject) => audit(ctx.db, { ...origin, reason, nowMs }, ACKNOWLEDGE_PROGRAMS_ACTION, subject),
        );
        return { ok: true, action: ACKNOWLEDGE_PROGRAMS_ACTION, acknowledged: acknowledged.map(changeJson) };
      },
      { detail: { hide: true } },
    );
}
