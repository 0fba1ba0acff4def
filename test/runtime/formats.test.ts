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
