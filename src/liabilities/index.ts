/** What others may use of liabilities: taking a snapshot, and the inclusion proof's shape the page checks. */
export type { InclusionProofJson } from "./document";
export { takeSnapshot } from "./snapshots";
