/**
 * What Linux says about another process, from /proc (the peers are measured from outside, all the same way).
 *   cpuNs(pid)    CPU time of all its threads so far, in ns: the sum of /proc/<pid>/task/<tid>/schedstat (ns
 *                 resolution); falls back to utime + stime of /proc/<pid>/stat (clock ticks, usually 10 ms)
 *   memory(pid)   { rssKiB: VmRSS, peakRssKiB: VmHWM } from /proc/<pid>/status
 *   writes(pid)   write system calls so far (`syscw` of /proc/<pid>/io; NaN where it cannot be read)
 */
import { readdirSync, readFileSync } from "node:fs";

const TICK_NS = 1e9 / 100; // USER_HZ is 100 on every Linux this runs on

export function cpuNs(pid) {
  try {
    let total = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ", 1)[0]);
      } catch {
        // a thread that ended between readdir and read
      }
    }
    if (total > 0) return total;
  } catch {
    // no schedstat: fall through
  }
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // field 3 (state) is fields[0]
  return (Number(fields[11]) + Number(fields[12])) * TICK_NS; // utime, stime
}

export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssKiB: kib("VmRSS"), peakRssKiB: kib("VmHWM") };
}

export function writes(pid) {
  try {
    return Number(/^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}
