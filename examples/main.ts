/**
 * How the examples run as commands, under Bun (`npm run example -- …`) and Node alike
 * (`npx tsx examples/walkthrough.ts …`): only when the file is the one started, and a failure
 * is printed (one line on stderr) with a non-zero exit status instead of passing silently.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Whether the module at `moduleUrl` (its `import.meta.url`) is the script the runtime was started with. */
function isEntry(moduleUrl: string): boolean {
  const started = process.argv[1];
  if (!started) return false;
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  return real(started) === real(fileURLToPath(moduleUrl));
}

/** Runs `main` when `moduleUrl` is the entry; prints its failure and sets exit status 1. */
export function runAsCommand(moduleUrl: string, main: () => Promise<void>): void {
  if (!isEntry(moduleUrl)) return;
  main().catch((error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
