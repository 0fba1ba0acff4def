/**
 * What Linux says about another process, from /proc (the peers are measured from outside, all the same way).
 *   cpuNs(pid)    CPU time of all its threads so far, in ns: the sum of /proc/<pid>/task/<tid>/schedstat (ns
 *                 resolution); falls back to utime + stime of /proc/<pid>/stat (clock ticks, usually 10 ms)
 *   memory(pid)   { rssKiB: VmRSS, peakRssKiB: VmHWM } from /proc/<pid>/status
 *   writes(pid)   write system calls so far (`syscw` of /proc/<pid>/io; NaN where it cannot be read)
 *   minorFaults(pid)  minor page faults so far (`minflt` of /proc/<pid>/stat): the first touch of each page of
 *                 memory it has used, of its heap, of a file it reads, of its own binary
 *   pageFaultUs() what a minor page fault costs this machine, in µs: a fresh process touching 16 MiB it has
 *                 not used yet, its time divided by its faults. Usually a fraction of a microsecond; on a
 *                 virtual machine whose host backs its memory lazily, ten or more, which then makes the
 *                 memory a process touches as much a part of its start as the code it runs
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const TICK_NS = 1e9 / 100; // USER_HZ is 100 on every Linux this runs on

/** /proc/<pid>/stat's fields from the third (the state) on: the command name before them may hold spaces. */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

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
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * TICK_NS; // fields 14 and 15: utime, stime
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

export function minorFaults(pid) {
  return Number(statFields(pid)[7]); // field 10
}

/**
 * A zero-filled buffer this large is memory the process maps fresh (Node allocates it with `calloc`, which
 * takes it from the kernel without writing it), so each page's first write is a fault.
 */
const PROBE_BYTES = 16 * 2 ** 20;
const PROBE = `
const buffer = new Uint8Array(${PROBE_BYTES});
const faults = process.resourceUsage().minorPageFault;
const start = process.hrtime.bigint();
for (let at = 0; at < buffer.length; at += 4096) buffer[at] = 1;
const ns = Number(process.hrtime.bigint() - start);
process.stdout.write(JSON.stringify({ ns, faults: process.resourceUsage().minorPageFault - faults }));`;

export function pageFaultUs() {
  const { ns, faults } = JSON.parse(execFileSync(process.execPath, ["-e", PROBE], { encoding: "utf8" }));
  return faults > 0 ? ns / 1000 / faults : NaN;
}
