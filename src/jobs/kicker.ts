/**
 * Starts a job as soon as something it serves is queued (a claim: the payouts run that sends it),
 * instead of at the schedule's next minute: a claim waited 30-49 s for its run on the demo.
 *
 * Under the job's own lease, through the same runner as the schedule and `POST /api/cron/:job`, so
 * a kick never runs beside another run. Debounced: kicks while a kicked run is starting or running
 * fold into one more run after it, so a burst of claims costs at most two runs. A run that holds
 * the lease already (the schedule's, an operator's) may have read the queue before the kick's item
 * was committed, so a busy answer is asked again, a bounded number of times, until a run starts
 * after the kick; past the bound the schedule's next run takes the item, as it did before.
 */
import { log } from "../lib/log";
import type { JobName } from "./names";
import type { JobRunner } from "./scheduler";

export interface KickerOptions {
  /** wait between asks while another run holds the lease */
  busyRetryMs: number;
  /** asks after a busy answer before leaving the item to the schedule */
  busyRetriesMax: number;
}

const KICKER_DEFAULTS: KickerOptions = { busyRetryMs: 1_000, busyRetriesMax: 120 };

export class JobKicker {
  private state: "idle" | "running" | "again" = "idle";
  private readonly options: KickerOptions;

  constructor(
    private readonly runner: Pick<JobRunner, "runNow">,
    private readonly job: JobName,
    options: Partial<KickerOptions> = {},
  ) {
    this.options = { ...KICKER_DEFAULTS, ...options };
  }

  /** Asks for a run that starts after this call; returns at once. */
  kick(): void {
    if (this.state !== "idle") {
      this.state = "again";
      return;
    }
    this.state = "running";
    void this.runUntilServed();
  }

  private async runUntilServed(): Promise<void> {
    let busyAsks = 0;
    for (;;) {
      const outcome = await this.ask();
      if (outcome === "busy" && busyAsks < this.options.busyRetriesMax) {
        busyAsks += 1;
        await Bun.sleep(this.options.busyRetryMs);
        continue;
      }
      if (this.state === "again" && outcome === "ran") {
        this.state = "running";
        busyAsks = 0;
        continue;
      }
      this.state = "idle";
      return;
    }
  }

  private async ask(): Promise<"ran" | "busy" | "done"> {
    try {
      const result = await this.runner.runNow(this.job);
      if (result.ran) return "ran";
      // Not registered here (jobs off) or stopping: nothing a retry would change.
      return result.reason === "busy" ? "busy" : "done";
    } catch (error) {
      log.warn("job kick failed", { job: this.job, error });
      return "done";
    }
  }
}
