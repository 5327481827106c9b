export { statsRoutes } from "./routes";
