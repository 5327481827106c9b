/**
 * The program watch on /admin (src/jobs/program-watch.ts, GET /api/admin/programs): the ProgramData
 * slot of each program whose instructions the jobs build, as the jobs run on it; and while an
 * upgrade waits for an operator, which program changed, the jobs it pauses and the acknowledgement
 * that lets them go on (a reason is required; the server audits it).
 */
import { api } from "../api";
import { h } from "../dom";
import { longValue, notice, table, time } from "../ui";

/** A ProgramData reading: the slot of the last deploy or upgrade, or why there is none. */
interface ReadingView {
  slot: string | null;
  missing: string | null;
}

interface WatchedProgramView extends ReadingView {
  name: string;
  address: string;
}

interface ProgramChangeView {
  name: string;
  address: string;
  pauses: string[];
  from: ReadingView;
  to: ReadingView;
  at: string;
}

interface ProgramWatchView {
  programs: WatchedProgramView[];
  changes: ProgramChangeView[];
  checkedAt: string | null;
}

type Confirm = (
  status: HTMLElement,
  question: { title: string; text: string; confirm: string },
  work: (reason: string) => Promise<unknown>,
  done: string,
  after: () => void,
) => Promise<void>;

const reading = (r: ReadingView) => (r.slot === null ? `no ProgramData (${r.missing ?? "unknown"})` : `slot ${r.slot}`);

/** Fills `body` with the watched programs and, while a change waits, the way to acknowledge it. */
export async function loadPrograms(
  body: HTMLElement,
  signal: AbortSignal,
  confirmAndAct: Confirm,
  after: () => void,
  /** kept across reloads, so the acknowledgement's outcome stays on screen after the section is rebuilt */
  status: HTMLElement,
): Promise<void> {
  const watch = await api<ProgramWatchView>("/api/admin/programs", { signal });
  body.replaceChildren(
    watch.changes.length === 0 ? unchangedNotice(watch) : pendingChanges(watch.changes, confirmAndAct, status, after),
    programsTable(watch),
    status,
  );
}

function unchangedNotice(watch: ProgramWatchView): HTMLElement {
  if (watch.programs.length === 0)
    return notice("Not read yet: the jobs read the programs' ProgramData before their next run.", "info");
  return notice(
    h("span", null, "No program changed: the jobs run on the slots below. Last read ", time(watch.checkedAt), "."),
    "ok",
  );
}

/** The changes waiting for an operator, the jobs they pause, and the acknowledgement. */
function pendingChanges(
  changes: ProgramChangeView[],
  confirmAndAct: Confirm,
  status: HTMLElement,
  after: () => void,
): HTMLElement {
  const names = [...new Set(changes.map((c) => c.name))].join(", ");
  const paused = [...new Set(changes.flatMap((c) => c.pauses))].join(", ");
  const acknowledge = h("button", { type: "button", id: "admin-programs-acknowledge" }, "Acknowledge the change");
  acknowledge.addEventListener(
    "click",
    () =>
      void confirmAndAct(
        status,
        {
          title: `Acknowledge the upgrade of ${names}?`,
          text: `The new ProgramData slots become what the jobs run on, and ${paused} go on. Acknowledge only once the service's decoders are known to fit the upgraded ${changes.length === 1 ? "program" : "programs"}.`,
          confirm: "Acknowledge",
        },
        (reason) => api("/api/admin/programs/acknowledge", { method: "POST", body: { reason } }),
        `Acknowledged: ${paused} go on.`,
        after,
      ),
  );
  return h(
    "div",
    { id: "admin-programs-change" },
    notice(`${names} changed: ${paused} stand still until an operator acknowledges it.`, "warn"),
    table(
      ["Program", "Was", "Now", "Seen", "Pauses"],
      changes.map((c) => [c.name, reading(c.from), reading(c.to), time(c.at), c.pauses.join(", ")]),
      "Program changes waiting for an operator, oldest first",
    ),
    h("p", null, acknowledge),
  );
}

function programsTable(watch: ProgramWatchView): HTMLElement {
  return watch.programs.length === 0
    ? h("p", { className: "empty" }, "No program read yet.")
    : table(
        ["Program", "Address", "The jobs run on"],
        watch.programs.map((p) => [p.name, longValue(p.address, "program address"), reading(p)]),
        "Watched programs and the ProgramData slot the jobs run on",
      );
}
