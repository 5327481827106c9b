/** What others may use of stats: the shape of `/api/stats`. */
export type { Stats } from "./service";
