/**
 * sharp's addon links against libvips, which it finds next to itself in node_modules. Inside the
 * single executable Bun writes the addon to a temporary file to load it, where no libvips is
 * beside it, so the library (embedded by scripts/build.ts) is loaded first: the dynamic loader
 * then satisfies the addon's need for it by its name, from the copy already in the process.
 * Outside the executable this does nothing.
 */
import { dlopen, FFIType } from "bun:ffi";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { insideExecutable } from "./app-files";

const LIBVIPS = /(^|\/)libvips-cpp\.so[.\d]*$/;

let loaded: Promise<void> | null = null;

/** Call before the first `import("sharp")`. */
export function loadImageLibrary(): Promise<void> {
  loaded ??= insideExecutable ? loadEmbedded() : Promise.resolve();
  return loaded;
}

async function loadEmbedded(): Promise<void> {
  const library = Bun.embeddedFiles.find((file) => LIBVIPS.test((file as Blob & { name: string }).name));
  // Without it sharp's own load error says what is missing.
  if (!library) return;
  // A folder of this process's own (not a fixed name another user of /tmp could plant a file at);
  // the mapping outlives the file, so nothing is left behind.
  const dir = mkdtempSync(join(tmpdir(), "fee-ledger-"));
  try {
    const path = join(dir, basename((library as Blob & { name: string }).name));
    writeFileSync(path, new Uint8Array(await library.arrayBuffer()), { mode: 0o500 });
    // bun:ffi wants one symbol at least; libvips' version query is in every release.
    dlopen(path, { vips_version: { args: [FFIType.i32], returns: FFIType.i32 } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
