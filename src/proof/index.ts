export { owedForReserves } from "./reserves";
