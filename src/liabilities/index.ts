export { snapshotLiabilitiesAfterRun } from "./hook";
export { liabilityRoutes } from "./routes";
