export { accountPublicRoutes } from "./public-routes";
export { accountRoutes } from "./routes";
