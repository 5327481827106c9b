/** The scheduled jobs of SPEC, in the order health lists them. */
export const JOB_NAMES = ["sweep", "payouts", "burns", "launches", "market"] as const;
export type JobName = (typeof JOB_NAMES)[number];

export function isJobName(value: string): value is JobName {
  return (JOB_NAMES as readonly string[]).includes(value);
}

/** SPEC's staleness threshold for job health. */
export const STALE_AFTER_SEC = 1800;
