/**
 * Where the files the service reads at run time are (migrations, the OpenAPI viewer's assets, the
 * web page's prebuilt bundle): the checkout when it runs from source, or the single executable's
 * embedded file system, where scripts/build.ts puts each file under its path in the checkout. In the
 * executable every module's `import.meta.dir` is that file system's root, so a path computed from
 * a module's own folder would point nowhere.
 */
import { join } from "node:path";

/** Bun's root for the files embedded in a compiled executable (Linux and macOS). */
const EMBEDDED_ROOT = "/$bunfs/root";

/** True inside the executable made by `npm run build`, false under `bun run`. */
export const insideExecutable = import.meta.dir.startsWith(EMBEDDED_ROOT);

const CHECKOUT_ROOT = join(import.meta.dir, "..", "..");

/** A run-time file by its path in the checkout (`appFile("db", "migrations")`). */
export function appFile(...pathInCheckout: string[]): string {
  return join(insideExecutable ? EMBEDDED_ROOT : CHECKOUT_ROOT, ...pathInCheckout);
}
