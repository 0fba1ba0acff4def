/** The folder arguments shared by the commands that build a server: `build`, `dev` and `test`. */
import type { Command } from "commander";
import { DEFAULTS } from "../compiler/config.js";

/** Adds `[schemas]`, `-o, --out <dir>` and `-H, --handlers <dir>` to `command`. */
export function withFolders(
  command: Command,
  out = "output folder, owned by mcpgen and replaced whole",
  handlers = "handler folder; missing stubs are created, existing files never touched",
): Command {
  return command
    .argument("[schemas]", "the schemas folder", DEFAULTS.schemas)
    .option("-o, --out <dir>", out, DEFAULTS.out)
    .option("-H, --handlers <dir>", handlers, DEFAULTS.handlers);
}
