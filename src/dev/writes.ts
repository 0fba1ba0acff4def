/**
 * When a file the watcher saw change is whole, so that a round builds from what was saved and not from
 * half of it. chokidar reports a change when a write starts, and then drops further changes of that file
 * for 50 ms (no trailing event), so a file is followed here, by polling its size and mtime, until it has
 * held still for longer than that; a change seen meanwhile is reported again.
 *
 * A JSON file is whole as soon as it parses: a prefix of a JSON object is never a JSON object (only white
 * space can follow the closing brace), so a half-written schema cannot pass for a saved one, and an
 * editor's atomic save (a rename) is whole at once. Any other file (YAML, of which a prefix often parses;
 * a handler) is whole once its size and mtime have held for `stableMs`, which is what chokidar's
 * `awaitWriteFinish` did for every file, as it does for a JSON file that does not parse: a broken file is
 * reported once it stops changing, and the build says what is wrong with it.
 */
import { readFileSync, statSync } from "node:fs";

export interface WritesOptions {
  /** How often a followed file is looked at. */
  pollMs: number;
  /** How long a file that is not known to be whole must hold still. */
  stableMs: number;
  /** How long a file is followed after its last change: longer than chokidar's 50 ms for dropped changes. */
  followMs: number;
  /** Time, in ms. */
  now: () => number;
}

const DEFAULTS: WritesOptions = { pollMs: 10, stableMs: 40, followMs: 60, now: () => performance.now() };

interface Followed {
  /** Size, mtime and inode as last seen; "" once the file is gone. */
  seen: string;
  /** When `seen` last changed. */
  since: number;
  /** `seen` when the file was last reported. */
  reported: string | undefined;
  timer: NodeJS.Timeout | undefined;
}

export class Writes {
  readonly #followed = new Map<string, Followed>();
  readonly #options: WritesOptions;

  /** `whole(file)` is called when `file`, seen changing, is whole (or gone); again if it changes after that. */
  constructor(
    private readonly whole: (file: string) => void,
    options: Partial<WritesOptions> = {},
  ) {
    this.#options = { ...DEFAULTS, ...options };
  }

  /** The watcher saw `file` (a file, not a folder) added or changed. */
  changed(file: string): void {
    const followed = this.#followed.get(file);
    if (followed) {
      // Already followed: the next look finds what changed.
      followed.since = this.#options.now();
      return;
    }
    const fresh: Followed = { seen: signature(file), since: this.#options.now(), reported: undefined, timer: undefined };
    this.#followed.set(file, fresh);
    this.#look(file, fresh);
  }

  /** Stops following every file. */
  close(): void {
    for (const followed of this.#followed.values()) clearTimeout(followed.timer);
    this.#followed.clear();
  }

  #look(file: string, followed: Followed): void {
    const { now, stableMs, followMs, pollMs } = this.#options;
    const seen = signature(file);
    if (seen !== followed.seen) {
      followed.seen = seen;
      followed.since = now();
    }
    const held = now() - followed.since;
    if (seen !== followed.reported && (seen === "" || held >= stableMs || parses(file))) {
      followed.reported = seen;
      this.whole(file);
    }
    if (seen === "" || held >= followMs) {
      this.#followed.delete(file);
      return;
    }
    followed.timer = setTimeout(() => this.#look(file, followed), pollMs);
  }
}

function signature(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch {
    return "";
  }
}

/** Whether `file` is a JSON file whose text parses (a whole one). */
function parses(file: string): boolean {
  if (!file.toLowerCase().endsWith(".json")) return false;
  try {
    JSON.parse(readFileSync(file, "utf8"));
    return true;
  } catch {
    return false;
  }
}
