export { owedForReserves } from "./reserves";
export { proofRoutes } from "./routes";
