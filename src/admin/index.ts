export { ADMIN_SIGN_IN_PATH, adminAuthorized, adminEnabled } from "./authorized";
export { adminPageRoutes } from "./page-routes";
export { adminRoutes } from "./routes";
export { setAsideRoutes } from "./set-aside-routes";
