export { historyRoutes } from "./routes";
export { takeSolvencySnapshot } from "./snapshots";
