/**
 * Replacing this process with a new run of the same executable (execve(2)): same process id, same
 * open standard streams, nothing left running beside it. For settings that Bun and glibc read only
 * as a process starts, which the single executable cannot take from a start script as `npm start`
 * does. Linux and glibc only; elsewhere, or if the call fails, it returns and the caller carries on.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";

/** Returns only when the process could not be replaced. */
export function execSelf(argv: readonly string[], env: Record<string, string>): void {
  if (process.platform !== "linux") return;
  let libc: ReturnType<typeof openLibc>;
  try {
    libc = openLibc();
  } catch {
    return;
  }
  const strings = (list: readonly string[]) => list.map((s) => Buffer.from(`${s}\0`, "utf8"));
  const args = strings([process.execPath, ...argv]);
  const vars = strings(Object.entries(env).map(([name, value]) => `${name}=${value}`));
  // NULL-terminated arrays of pointers to the strings above (which must stay alive until the call).
  const pointers = (list: Buffer[]) => BigUint64Array.from([...list.map((b) => BigInt(ptr(b))), 0n]);
  const argvArray = pointers(args);
  const envArray = pointers(vars);
  const path = Buffer.from(`${process.execPath}\0`, "utf8");
  libc.symbols.execve(ptr(path), ptr(argvArray), ptr(envArray));
  // Still here: the call failed. The buffers are used again so none is collected before the call.
  libc.close();
  void [path, args, vars, argvArray, envArray];
}

function openLibc() {
  return dlopen("libc.so.6", {
    execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  });
}
