/** Writing a distribution file: replace only what mcpgen wrote before, atomically (temp file + rename). */
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { OutputError } from "../compiler/write.js";

/**
 * Writes `bytes` to `file`. An existing file is replaced only when `ours` recognises it as a file mcpgen
 * wrote; anything else is left alone and reported, since it may be the user's.
 */
export async function writeOwned(file: string, shown: string, bytes: Uint8Array | string, ours: (existing: Buffer) => boolean): Promise<void> {
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new OutputError(`${shown} is a folder: choose a file name with --out`);
  if (existing && !ours(await readFile(file))) {
    throw new OutputError(`${shown} exists and was not written by mcpgen; nothing was written (move it away or choose another file with --out)`);
  }
  await mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    await writeFile(temp, bytes);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
