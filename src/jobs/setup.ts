/** The health route's view of what this deployment schedules (see JobSetup in health.ts). */
import { Cron } from "croner";
import type { AppContext } from "../context";
import type { JobSetup } from "./health";
import type { JobName } from "./names";
import type { JobRunner, Scheduler } from "./scheduler";

/**
 * The service's context plus what runs its jobs, as the composition root built it (src/service.ts):
 * a Scheduler that job bodies register on, or only a JobRunner when the jobs run in another thread.
 */
export type SchedulingContext<R extends JobRunner = Scheduler> = AppContext & { scheduler: R };

export function jobSetup(ctx: SchedulingContext<JobRunner>): JobSetup {
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
