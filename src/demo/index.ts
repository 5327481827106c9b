export { startDemo } from "./demo";
