/**
 * The check behind the pattern rule (`backtrackSafe`, @mcpgen/runtime/regexp): which patterns run on V8's
 * backtracking `RegExp` rather than the linear-time RE2 engine. Random patterns, most of them anchored, are
 * drawn from characters, classes, quantifiers, runs of optional characters and groups with alternatives;
 * each one the rule accepts is run natively against long inputs built to make a backtracking engine retry
 * (runs of the pattern's own characters and pieces, with a character that fails at the end), and its answers
 * on short inputs are compared with RE2's.
 * A benchmark, not a test: it prints how many patterns it drew and accepted, the slowest native match and
 * its pattern, and any answer that differs from RE2's, and exits 1 only on such a difference.
 *
 *   node bench/backtrack-safe.mjs [--patterns N] [--seed N] [--length N] [--refused]
 *     --patterns N   patterns drawn (default 20000)
 *     --seed N       the random sequence (default 1)
 *     --length N     characters of the longest adversarial input (default 60000)
 *     --refused      the control: run the patterns the rule refuses instead (with --length 12: some
 *                    take time exponential in it), to see that these inputs do find the slow ones
 * Expects a compiled packages/runtime/dist/ (npm run build).
 */
import { RE2JS } from "re2js";
import { backtrackSafe, translate } from "@mcpgen/runtime/regexp";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const PATTERNS = option("--patterns", 20_000);
const LENGTH = option("--length", 60_000);
const REFUSED = args.includes("--refused");
let seed = option("--seed", 1);

/** A small deterministic generator (mulberry32). */
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];

/** Characters and classes over a small alphabet, so that draws overlap often. */
const ATOMS = ["a", "b", "c", "-", "\\.", "[ab]", "[bc]", "[a-c]", "[^a]", "\\d", "0", "1", "[0-9]", "\\w", "."];
const QUANTIFIERS = ["", "", "", "?", "*", "+", "{2}", "{1,3}", "{2,}"];
/** Characters an input is made of: the alphabet's own and a few others. */
const ALPHABET = ["a", "b", "c", "-", ".", "0", "1", "5", "_", "x", " "];

function atoms(count) {
  let out = "";
  for (let k = 0; k < count; k++) out += pick(ATOMS) + pick(QUANTIFIERS);
  return out;
}

function draw() {
  let body = "";
  // Now and then a run of optional characters first: each may match or not, so a failing match can take
  // twice as many ways through the run with each one.
  if (random() < 0.15) for (let k = 4 + Math.floor(random() * 13); k > 0; k--) body += `${pick(ATOMS)}?`;
  const parts = 1 + Math.floor(random() * 4);
  for (let p = 0; p < parts; p++) {
    if (random() < 0.4) {
      const alternatives = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(ATOMS) + atoms(Math.floor(random() * 3)));
      body += `(${random() < 0.5 ? "?:" : ""}${alternatives.join("|")})${pick(QUANTIFIERS)}`;
    } else body += atoms(1 + Math.floor(random() * 2));
  }
  return `${random() < 0.85 ? "^" : ""}${body}${random() < 0.7 ? "$" : ""}`;
}

/** Inputs built to make a backtracking engine retry: long runs of one piece, then a character that fails. */
function adversarial(pattern) {
  const pieces = [...new Set([...ALPHABET, ...ALPHABET.flatMap((a) => ALPHABET.map((b) => a + b)).filter(() => random() < 0.05)])];
  const inputs = [];
  for (let k = 0; k < 6; k++) {
    const piece = pick(pieces) + (random() < 0.5 ? pick(pieces) : "");
    const length = Math.floor(LENGTH / 10 + random() * LENGTH * 0.9);
    inputs.push(piece.repeat(Math.ceil(length / piece.length)) + pick(ALPHABET) + pick(["!", "", "a", "0"]));
  }
  // The pattern's own literal characters, repeated.
  const own = pattern.replace(/[\\^$()[\]{}|?*+:]/g, "");
  if (own) inputs.push(own.repeat(Math.ceil(LENGTH / own.length)).slice(0, LENGTH) + "!");
  return inputs;
}

function shortInputs() {
  return Array.from({ length: 12 }, () => Array.from({ length: Math.floor(random() * 8) }, () => pick(ALPHABET)).join(""));
}

let accepted = 0;
let grouped = 0;
let alternated = 0;
let worst = { ms: 0, pattern: "", length: 0 };
let worstAlternatives = { ms: 0, pattern: "", length: 0 };
const differences = [];
const started = performance.now();
for (let n = 0; n < PATTERNS; n++) {
  const pattern = draw();
  let native;
  try {
    native = new RegExp(pattern, "u");
  } catch {
    continue; // not a pattern at all (e.g. a quantifier V8 rejects)
  }
  if (backtrackSafe(pattern) === REFUSED) continue;
  accepted++;
  if (pattern.includes("(")) grouped++;
  if (pattern.includes("|")) alternated++;
  for (const input of adversarial(pattern)) {
    native.test(input); // flattens the input string, compiles the expression
    // The faster of two runs: a collection pausing one of them is not the pattern's time.
    let ms = Infinity;
    for (let run = 0; run < 2; run++) {
      const t0 = performance.now();
      native.test(input);
      ms = Math.min(ms, performance.now() - t0);
    }
    if (ms > worst.ms) worst = { ms, pattern, length: input.length };
    if (pattern.includes("|") && ms > worstAlternatives.ms) worstAlternatives = { ms, pattern, length: input.length };
  }
  const reference = RE2JS.compile(translate(pattern));
  for (const input of shortInputs()) {
    if (native.test(input) !== reference.test(input)) differences.push({ pattern, input });
  }
}
process.stdout.write(
  `${PATTERNS} patterns drawn, ${accepted} ${REFUSED ? "refused by the rule, run natively anyway" : "run natively"} (${grouped} with a group, ${alternated} with alternatives); ` +
    `slowest native match ${worst.ms.toFixed(2)} ms (${worst.pattern} on ${worst.length} characters), ` +
    `with alternatives ${worstAlternatives.ms.toFixed(2)} ms (${worstAlternatives.pattern} on ${worstAlternatives.length}); ` +
    `${differences.length} answers differ from RE2's; ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
for (const { pattern, input } of differences.slice(0, 10)) process.stdout.write(`  differs: ${pattern} on ${JSON.stringify(input)}\n`);
process.exitCode = differences.length ? 1 : 0;
