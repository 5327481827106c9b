export { indexerMetrics, metricsRoutes } from "./routes";
