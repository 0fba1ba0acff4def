// A transparent wiretap for stdio servers, used as the "server command" of end-to-end tests:
//   node tap.mjs <log file> <command> [args...]
// It spawns the real server, passes both directions through byte for byte and appends every line to the
// log, prefixed with the tap's pid (a client may run several server processes with the same command):
// `<tap pid> C <line>` client→server, `<tap pid> S <line>` server→client, `<tap pid> P <server pid>`,
// `<tap pid> X <code> <signal>` at exit.
// SIGTERM/SIGINT are forwarded; the tap exits with the server's exit code.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

const [logFile, command, ...args] = process.argv.slice(2);
if (!logFile || !command) {
  process.stderr.write("usage: node tap.mjs <log file> <command> [args...]\n");
  process.exit(2);
}
const log = (line) => appendFileSync(logFile, `${process.pid} ${line}\n`);

const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
log(`P ${child.pid}`);

function tee(direction, from, to) {
  const decoder = new StringDecoder("utf8");
  let partial = "";
  from.on("data", (chunk) => {
    // log first: whoever receives a line can rely on finding it in the log
    const lines = (partial + decoder.write(chunk)).split("\n");
    partial = lines.pop();
    for (const line of lines) log(`${direction} ${line}`);
    to.write(chunk);
  });
  from.on("end", () => {
    const rest = partial + decoder.end();
    if (rest !== "") log(`${direction} ${rest}`);
  });
}

tee("C", process.stdin, child.stdin);
process.stdin.on("end", () => child.stdin.end());
child.stdin.on("error", () => {});
process.stdout.on("error", () => {});
tee("S", child.stdout, process.stdout);

for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));
child.on("close", (code, signal) => {
  log(`X ${code} ${signal}`);
  process.exit(code ?? 1);
});
