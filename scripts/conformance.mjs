#!/usr/bin/env node
// The official MCP conformance suite against a server built with mcpgen:
//   1. build conformance/schemas → conformance/generated (+ handlers) and compile it,
//   2. install the pinned suites and their Node 22 (conformance/package.json) when missing,
//   3. start the conformance server over HTTP on 127.0.0.1 (ephemeral port),
//   4. run both pinned suites (each under `timeout`), print each suite's own "Total:" line,
//   5. stop the server.
// Exit code: 0 when every failing scenario is listed in conformance/expected-failures-*.yml, else 1.
//   node scripts/conformance.mjs [--suite 0.1|0.2] [--scenario <name>] [--keep-results]
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const dir = join(root, "conformance");
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};

/** The pinned suites: package alias, what to run, and the wall-clock bound of the whole run. */
const SUITES = [
  { id: "0.1", name: "@modelcontextprotocol/conformance@0.1.16", pkg: "conformance-0.1", args: ["--suite", "all"], timeoutS: 900 },
  { id: "0.2", name: "@modelcontextprotocol/conformance@0.2.0-alpha.12", pkg: "conformance-0.2", args: ["--suite", "all", "--timeout", "30000"], timeoutS: 1500 },
].filter((suite) => option("--suite") === undefined || option("--suite") === suite.id);

const run = (command, commandArgs, options = {}) => execFileSync(command, commandArgs, { cwd: root, stdio: "inherit", ...options });

// 1. build the conformance server with mcpgen
run(process.execPath, [join(root, "bin/mcpgen.js"), "build", "conformance/schemas", "-o", "conformance/generated", "-H", "conformance/handlers", "--quiet"]);
rmSync(join(dir, "build"), { recursive: true, force: true });
run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "conformance/tsconfig.json"]);

// 2. the suites and Node 22, installed apart from the project (their `node` binary must not shadow ours)
const node22 = join(dir, "node_modules/node/bin/node");
if (!existsSync(node22) || SUITES.some((suite) => !existsSync(join(dir, "node_modules", suite.pkg)))) {
  run("npm", ["ci", "--no-audit", "--no-fund", "--prefix", dir]);
}

// 3. the server, on loopback, on a free port
const server = spawn(process.execPath, [join(dir, "build/generated/server.gen.js"), "--http", "--host", "127.0.0.1", "--port", "0"], {
  cwd: root,
  stdio: ["ignore", "ignore", "pipe"],
});
const stop = () => {
  if (server.exitCode === null && server.signalCode === null) server.kill("SIGTERM");
};
process.on("exit", stop);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

let serverLog = "";
const url = await new Promise((resolveUrl, reject) => {
  const timer = setTimeout(() => reject(new Error(`the conformance server did not start within 20 s:\n${serverLog}`)), 20_000);
  server.stderr.setEncoding("utf8");
  server.stderr.on("data", (chunk) => {
    serverLog += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(serverLog);
    if (match) {
      clearTimeout(timer);
      resolveUrl(match[1]);
    }
  });
  server.on("exit", (code) => reject(new Error(`the conformance server exited (${code}):\n${serverLog}`)));
});
console.log(`conformance server: ${url}`);

// 4. the suites
const outcomes = [];
for (const suite of SUITES) {
  const results = mkdtempSync(join(tmpdir(), `mcpgen-conformance-${suite.id}-`));
  const cli = join(dir, "node_modules", suite.pkg, "dist/index.js");
  const expected = join(dir, `expected-failures-${suite.id}.yml`);
  const suiteArgs = [cli, "server", "--url", url, ...suite.args, "--output-dir", results];
  if (option("--scenario")) suiteArgs.push("--scenario", option("--scenario"));
  if (existsSync(expected) && !option("--scenario")) suiteArgs.push("--expected-failures", expected);
  console.log(`\n=== ${suite.name} (${suite.args.join(" ")}) ===`);
  let output = "";
  let status = 0;
  try {
    output = execFileSync("timeout", ["--kill-after=10", String(suite.timeoutS), node22, ...suiteArgs], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    output = `${error.stdout ?? ""}${error.stderr ?? ""}`;
    status = error.status ?? 1;
  }
  process.stdout.write(output);
  const total = output.split("\n").filter((line) => /Total: \d+ passed, \d+ failed/.test(line)).at(-1);
  outcomes.push({ suite: suite.name, total: total?.trim() ?? `no Total line (exit ${status})`, status });
  if (!args.includes("--keep-results")) rmSync(results, { recursive: true, force: true });
  else console.log(`results: ${results}`);
}

// 5. done
stop();
console.log("\n=== summary ===");
for (const outcome of outcomes) console.log(`${outcome.suite}: ${outcome.total}${outcome.status === 0 ? "" : ` (exit ${outcome.status})`}`);
if (serverLog.includes("internal error")) console.log(`server stderr:\n${serverLog}`);
process.exitCode = outcomes.every((outcome) => outcome.status === 0) ? 0 : 1;
