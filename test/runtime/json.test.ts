/**
 * Parsing JSON-RPC messages: a client's remembered 2026-era envelope (`MessageParser`) changes how fast a
 * message is parsed, never what it parses to.
 */
import { describe, expect, it } from "vitest";
import { isCheckedEnvelope, MessageParser, parseMessage } from "../../packages/runtime/src/json.js";
import { random } from "../helpers/random.js";

const ENVELOPE = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`;
const OTHER = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`;
const request = (id: number | string, params: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`;
const call = (id: number | string, meta = ENVELOPE) => request(id, `{"name":"add","arguments":{"a":${id},"b":2},"_meta":${meta}}`);
type Parsed = { params: { _meta: Record<string, unknown>; arguments: Record<string, unknown> } };

/** A parser that has seen `ENVELOPE` once, so that it remembers it. */
function primed(): MessageParser {
  const parser = new MessageParser();
  parser.parse(call(0));
  return parser;
}

describe("MessageParser", () => {
  it("hands a request repeating the last envelope the remembered value, frozen", () => {
    const parser = new MessageParser();
    const first = parser.parse(call(1)) as Parsed;
    const second = parser.parse(call(2)) as Parsed;
    expect(second).toEqual(JSON.parse(call(2)));
    expect(second.params._meta).toBe(first.params._meta);
    expect(Object.isFrozen(second.params._meta)).toBe(true);
    expect(Object.isFrozen(second.params._meta["io.modelcontextprotocol/clientInfo"])).toBe(true);
    // The rest of the message is the client's own, as always.
    expect(Object.isFrozen(second.params.arguments)).toBe(false);
  });

  it("remembers a client's new envelope", () => {
    const parser = primed();
    const a = parser.parse(call(1, OTHER)) as Parsed;
    const b = parser.parse(call(2, OTHER)) as Parsed;
    expect(b.params._meta).toBe(a.params._meta);
    expect(b).toEqual(JSON.parse(call(2, OTHER)));
  });

  it("marks the remembered envelope checked, and nothing else", () => {
    const parser = primed();
    const meta = (parser.parse(call(1)) as Parsed).params._meta;
    expect(isCheckedEnvelope(meta)).toBe(true);
    expect(isCheckedEnvelope((JSON.parse(call(1)) as Parsed).params._meta)).toBe(false);
    expect(isCheckedEnvelope(Object.freeze((JSON.parse(call(1)) as Parsed).params._meta))).toBe(false);
  });

  it.each([
    ["no client capabilities", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`],
    ["client info without a version", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c"},"io.modelcontextprotocol/clientCapabilities":{}}`],
    ["an unknown log level", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}`],
    ["a 2025 version", `{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}`],
    ["an unknown version", `{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}`],
  ])("never remembers an envelope with %s: each request gets its own, unchecked", (_name, meta) => {
    const parser = new MessageParser();
    const parsed = [1, 2, 3].map((id) => (parser.parse(call(id, meta)) as Parsed).params._meta);
    expect(parsed[2]).toEqual(JSON.parse(meta));
    expect(parsed[1]).not.toBe(parsed[0]);
    expect(parsed[2]).not.toBe(parsed[1]);
    for (const value of parsed) {
      expect(Object.isFrozen(value)).toBe(false);
      expect(isCheckedEnvelope(value)).toBe(false);
    }
  });

  const envelopeMember = `"_meta":${ENVELOPE}`;
  const cases: [string, string][] = [
    ["the envelope in the arguments, another as params._meta", request(1, `{"name":"x","arguments":{${envelopeMember}},"_meta":${OTHER}}`)],
    ["the envelope in the arguments and as params._meta", request(2, `{"name":"x","arguments":{${envelopeMember}},${envelopeMember}}`)],
    ["the envelope, then a later _meta that wins", request(3, `{${envelopeMember},"name":"x","_meta":${OTHER}}`)],
    ["another _meta, then the envelope that wins", request(4, `{"_meta":${OTHER},"name":"x",${envelopeMember}}`)],
    ["the envelope in the arguments, params._meta written with an escape", request(5, `{"arguments":{${envelopeMember}},"\\u005fmeta":0}`)],
    ["the envelope in the arguments, an escaped params._meta holding the stand-in", request(6, `{"arguments":{${envelopeMember}},"\\u005fmeta":"\\u0000"}`)],
    ["a NUL character elsewhere", request(7, `{"name":"x","arguments":{"t":"a\\u0000b"},${envelopeMember}}`)],
    ["params._meta is 0 and the envelope is in the arguments", request(8, `{"arguments":{${envelopeMember}},"_meta":0}`)],
    ["an escaped params._meta before the envelope in the arguments", request(16, `{"\\u005fmeta":0,"arguments":{${envelopeMember}}}`)],
    ["an escaped params._meta holding the stand-in before the envelope in the arguments", request(17, `{"\\u005fmeta":"\\u0000","arguments":{${envelopeMember}}}`)],
    ["the envelope's text inside a string", request(9, `{"name":"x","arguments":{"t":${JSON.stringify(envelopeMember)}}}`)],
    ["the envelope with a space after the colon", request(10, `{"name":"x","_meta": ${ENVELOPE}}`)],
    ["the envelope with one more member", request(11, `{"name":"x","_meta":${ENVELOPE.slice(0, -1)},"progressToken":1}}`)],
    ["the envelope in a notification", `{"jsonrpc":"2.0","method":"notifications/initialized","params":{${envelopeMember}}}`],
    ["the envelope in a result", `{"jsonrpc":"2.0","id":12,"result":{${envelopeMember}}}`],
    ["a batch of requests with the envelope", `[${call(13)},${call(14)}]`],
    ["an id beyond 2^53", call("9007199254740993")],
    ["the envelope as the whole message", ENVELOPE],
    ["an envelope nesting 1,900 deep", call(15, ENVELOPE.replace('"roots":{}', `"deep":${"[".repeat(1900)}${"]".repeat(1900)}`))],
  ];
  it.each(cases)("parses %s as JSON.parse does", (_name, text) => {
    const expected = parseMessage(text);
    expect(primed().parse(text)).toEqual(expected);
    expect(new MessageParser().parse(text)).toEqual(expected);
  });

  it("keeps an id beyond 2^53 exact with a remembered envelope", () => {
    expect((primed().parse(call("9007199254740993")) as { id: unknown }).id).toBe(9007199254740993n);
  });

  it("parses a client whose _meta differs on every request as JSON.parse does", () => {
    const parser = new MessageParser();
    for (let i = 0; i < 40; i++) {
      const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-${i}"}`;
      // Each envelope once, and every fourth twice in a row.
      for (const text of i % 4 === 0 ? [call(i, meta), call(i + 100, meta)] : [call(i, meta)]) expect(parser.parse(text)).toEqual(JSON.parse(text));
    }
  });

  it("parses 3,000 generated messages as JSON.parse does, one client's parser for them all", () => {
    const next = random(26);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const metas = [envelopeMember, envelopeMember, envelopeMember, `"_meta":${OTHER}`, `"_meta": ${ENVELOPE}`, '"_meta":0', '"_meta":"\\u0000"', '"\\u005fmeta":{}', '"_meta":null'];
    const values = ["1", '"x"', '"\\u0000"', JSON.stringify(envelopeMember), `{${envelopeMember}}`, `[${ENVELOPE}]`, "9007199254740993", '{"_meta":1}', "null"];
    const member = (): string => pick([() => pick(metas), () => `"name":${pick(values)}`, () => `"arguments":{"v":${pick(values)},${pick(metas)}}`, () => `"k":${pick(values)}`])();
    const parser = new MessageParser();
    for (let i = 0; i < 3000; i++) {
      const members = Array.from({ length: 1 + Math.floor(next() * 4) }, member);
      const text = request(pick([i, `"s${i}"`, "9007199254740993"]), `{${members.join(",")}}`);
      expect(parser.parse(text), text).toEqual(parseMessage(text));
    }
  });

  it("throws a SyntaxError on malformed text, remembered envelope or not", () => {
    const text = call(1).slice(0, -1);
    expect(() => primed().parse(text)).toThrow(SyntaxError);
    expect(() => primed().parse(`${call(1)}x`)).toThrow(SyntaxError);
  });
});
