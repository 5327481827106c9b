/** What others may use of history: the page's chart shapes and the solvency snapshot a check records. */
export type { HandleHistoryEntry, SolvencyPoint, TokenHistoryPoint } from "./queries";
export { recordSolvencySnapshot } from "./snapshots";
