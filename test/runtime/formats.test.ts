/**
 * The runtime's own format checks against ajv-formats', which the compiler checks `examples` with: a value
 * passes in a generated server exactly when it passes at build time.
 */
import * as ajvFormats from "ajv-formats/dist/formats.js";
import { describe, expect, it } from "vitest";
import { formats } from "../../packages/runtime/src/validators.js";
import { random } from "../helpers/random.js";

type Check = { validate: (value: unknown) => boolean };
const reference = (ajvFormats as unknown as { fullFormats: Record<string, Check> }).fullFormats;
const runtime = formats.fullFormats as unknown as Record<string, Check>;


describe("format date", () => {
  it("passes what ajv-formats passes and refuses what it refuses", () => {
    const next = random(17);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const pad = (n: number, width: number) => String(n).padStart(width, "0");
    const inputs = new Set<string>([
      "2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29", "0000-02-29", "9999-12-31", "2026-04-31", "2026-00-10",
      "2026-13-01", "2026-01-00", "2026-01-32", "2026-1-01", "2026-01-1", "20260101", "2026-01-01\n", "\n2026-01-01",
      " 2026-01-01", "2026-01-01T00:00:00Z", "2026/01/01", "2026-01-0a", "٢٠٢٦-01-01", "２０２６-01-01", "", "-",
      "2026-01-01 ", "+2026-01-01", "2026--1-01", "2026-0x-01",
    ]);
    // Every month and day around the edges, over leap and common years.
    for (const year of [1, 4, 100, 400, 1900, 1996, 2000, 2023, 2024, 2100]) {
      for (let month = 0; month <= 13; month++) for (let day = 0; day <= 32; day++) inputs.add(`${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);
    }
    // Ten-character strings from an alphabet of digits, dashes and look-alikes, and random lengths.
    const alphabet = ["0", "1", "2", "3", "9", "-", "/", " ", "a", "٣", "\u0000", ":"];
    for (let i = 0; i < 20_000; i++) {
      const length = next() < 0.8 ? 10 : Math.floor(next() * 14);
      let text = "";
      for (let j = 0; j < length; j++) text += j === 4 || j === 7 ? (next() < 0.9 ? "-" : pick(alphabet)) : next() < 0.9 ? String(Math.floor(next() * 10)) : pick(alphabet);
      inputs.add(text);
    }
    let passing = 0;
    for (const text of inputs) {
      expect(runtime.date!.validate(text), JSON.stringify(text)).toBe(reference.date!.validate(text));
      if (reference.date!.validate(text)) passing++;
    }
    // Both outcomes were exercised in quantity.
    expect(passing).toBeGreaterThan(1000);
    expect(inputs.size - passing).toBeGreaterThan(1000);
  });

  it("keeps ajv-formats' comparisons, which formatMinimum and formatMaximum use", () => {
    for (const name of ["date", "date-time"]) {
      expect((runtime[name] as unknown as { compare: unknown }).compare).toBe((reference[name] as unknown as { compare: unknown }).compare);
    }
  });
});

describe("format date-time", () => {
  it("passes what ajv-formats passes and refuses what it refuses, of the usual shape and every other", () => {
    const next = random(29);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const dates = ["2026-11-25", "2024-02-29", "2023-02-29", "1900-02-29", "2026-13-01", "2026-04-31", "2026-1-01", "0000-01-01", "9999-12-31"];
    const separators = ["T", "t", " ", "\u00a0", "\t", "TT", "", "Z", "\n"];
    const times = ["00:00:00", "23:59:59", "24:00:00", "23:60:00", "23:59:60", "12:30:45", "1:30:45", "12:30", "12:3a:45", "99:99:99", "00:00:60"];
    const fractions = ["", "", ".5", ".123456789", ".", ".x", "..5", ",5"];
    const zones = ["Z", "z", "+00:00", "-00:00", "+01:00", "-23:59", "+23:59", "+24:00", "+05:60", "+0530", "+05", "", "Z ", "+1:00", "-05:30", "+00:01", "-00:01", " Z"];
    const inputs = new Set<string>(["", "T", "2026-11-25", "2026-11-25T", "2026-11-25T10:00:00", "x2026-11-25T10:00:00Z"]);
    for (const date of dates) for (const time of times) for (const zone of zones) inputs.add(`${date}T${time}${zone}`);
    for (let i = 0; i < 30_000; i++) inputs.add(`${pick(dates)}${pick(separators)}${pick(times)}${pick(fractions)}${pick(zones)}`);
    let passing = 0;
    for (const text of inputs) {
      expect(runtime["date-time"]!.validate(text), JSON.stringify(text)).toBe(reference["date-time"]!.validate(text));
      if (reference["date-time"]!.validate(text)) passing++;
    }
    expect(passing).toBeGreaterThan(500);
    expect(inputs.size - passing).toBeGreaterThan(1000);
  });
});

describe("format url", () => {
  const expression = (ajvFormats as unknown as { fullFormats: { url: RegExp } }).fullFormats.url;
  const url = runtime.url!.validate;

  it("passes what ajv-formats' expression passes and refuses what it refuses", () => {
    const next = random(41);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const some = (items: readonly string[], most: number, least = 0): string =>
      Array.from({ length: least + Math.floor(next() * (most - least + 1)) }, () => pick(items)).join("");
    const inputs = new Set<string>([
      "http://example.com", "http://user:pass@example.com:8080/path?q=1#f", "http://a@b@example.com", "http://example.com/a@b",
      "http://a/b@example.com", "http://10.0.0.1", "http://8.8.8.8", "http://192.168.1.1/x", "http://1.2.3.4:80", "ftp://x.co",
      "HTTP://X.CO", "http://localhost", "http://ex ample.com", "http://example.com/ x", "http://exa\u3000mple.com", "http://@example.com",
      "http://:@example.com", "http://example.com:", "http://example.com:123456", "http://-a.com", "http://a-.com", "", "http://",
    ]);
    // Scheme, user info, host (names or addresses), port and path, each sometimes malformed…
    const label = ["a", "b", "z", "0", "9", "é", "-", "\u00a1", "Q", "\u3000"];
    for (let i = 0; i < 40_000; i++) {
      let text = pick(["http://", "https://", "ftp://", "HTTP://", "htp://", "http:/"]);
      if (next() < 0.4) text += some(["u", ":", "p", "@", "/", " ", "%", "a"], 4, 1) + "@";
      if (next() < 0.3) text += [pick(["1", "10", "127", "169", "172", "192", "8", "223", "224", "0"]), pick(["0", "16", "31", "32", "168", "254", "1"]), pick(["0", "1", "255", "256"]), pick(["1", "0", "254", "255"])].slice(0, 2 + Math.floor(next() * 3)).join(".");
      else text += Array.from({ length: 1 + Math.floor(next() * 3) }, () => some(label, 4, 1)).join(".") + (next() < 0.8 ? "." + pick(["com", "io", "x", "co", "é", "12", "c-o"]) : "");
      if (next() < 0.3) text += ":" + pick(["80", "8", "443", "65535", "123456", "", "a"]);
      if (next() < 0.5) text += "/" + some(["a", "@", "/", " ", "?", "#", "%", "\u3000"], 3);
      inputs.add(text);
    }
    // …and any mix of the characters that matter to it.
    const characters = ["a", "Z", "0", "1", "10", "127", "192", "168", ".", "-", ":", "/", "@", " ", "\u3000", "\u00a0", "\u00a1", "é", "%", "?", "\n", "😀", "\ud800", "com"];
    for (let i = 0; i < 20_000; i++) inputs.add(pick(["http://", "https://", "ftp://", "", "mailto:"]) + some(characters, 10));
    let passing = 0;
    for (const text of inputs) {
      expect(url(text), JSON.stringify(text)).toBe(expression.test(text));
      if (expression.test(text)) passing++;
    }
    expect(passing).toBeGreaterThan(3000);
    expect(inputs.size - passing).toBeGreaterThan(3000);
  });

  it("answers in time linear in the text where the expression takes quadratic time", () => {
    // Each of these takes the expression seconds to minutes; the check, milliseconds (the test's own timeout guards it).
    expect(url("http://" + ":".repeat(500_000) + " ")).toBe(false);
    expect(url("http://" + "@a.bc/".repeat(100_000) + " ")).toBe(false);
    expect(url("http://" + "@a.bc/".repeat(100_000))).toBe(true);
    expect(url("http://" + "u".repeat(300_000) + "@example.com/" + "@".repeat(300_000))).toBe(true);
    expect(url("http://" + "a@".repeat(300_000) + "a.com")).toBe(true);
  });
});
