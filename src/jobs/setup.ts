/** The health route's view of what this deployment schedules (see JobSetup in health.ts). */
import { Cron } from "croner";
import type { AppContext } from "../context";
import type { JobSetup } from "./health";
import type { JobName } from "./names";
import type { Scheduler } from "./scheduler";

/** The service's context plus the scheduler the composition root built (src/service.ts). */
export type SchedulingContext = AppContext & { scheduler: Scheduler };

export function jobSetup(ctx: SchedulingContext): JobSetup {
  const { config, scheduler } = ctx;
  // Without a market data source the market job runs but has nothing to refresh.
  const notConfigured: JobName[] = config.marketApiUrl === null ? ["market"] : [];
  const crons = new Map<JobName, Cron>();
  return {
    notConfigured,
    nextRunAtMs(job, nowMs) {
      if (!config.jobsEnabled || !scheduler.isRegistered(job)) return null;
      let cron = crons.get(job);
      if (!cron) {
        cron = new Cron(config.schedules[job], { paused: true });
        crons.set(job, cron);
      }
      return cron.nextRun(new Date(nowMs))?.getTime() ?? null;
    },
  };
}
