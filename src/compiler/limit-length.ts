/**
 * `minLength` and `maxLength`, in place of ajv's: the same errors (`{limit}`, "must NOT have more than N
 * characters"), and the same count of code points (ajv's `ucs2length`), made only when the string's UTF-16
 * length leaves the verdict open. A string has at most as many code points as UTF-16 units and at least half
 * as many, so `maxLength: n` passes a string of at most n units and `minLength: n` one of at least 2n without
 * counting; ajv counted every time, once per keyword (a task's title: twice, ~25 ns per task of the example's
 * `list_tasks` output).
 */
import { _, type CodeKeywordDefinition, type KeywordCxt, type KeywordErrorDefinition, str } from "ajv";
import { useFunc } from "ajv/dist/compile/util.js";
import { ucs2length } from "@mcpgen/runtime/validators";

const error: KeywordErrorDefinition = {
  message: ({ keyword, schemaCode }) => str`must NOT have ${keyword === "maxLength" ? "more" : "fewer"} than ${schemaCode} characters`,
  params: ({ schemaCode }) => _`{limit: ${schemaCode}}`,
};

export const limitLength: CodeKeywordDefinition = {
  keyword: ["maxLength", "minLength"],
  type: "string",
  schemaType: "number",
  $data: true,
  error,
  code(cxt: KeywordCxt) {
    const { keyword, data, $data, schema, schemaCode, it } = cxt;
    const max = keyword === "maxLength";
    if (it.opts.unicode === false) return cxt.fail$data(max ? _`${data}.length > ${schemaCode}` : _`${data}.length < ${schemaCode}`);
    const count = _`${useFunc(cxt.gen, ucs2length)}(${data})`;
    if (max) return cxt.fail$data(_`${data}.length > ${schemaCode} && ${count} > ${schemaCode}`);
    const twice = $data ? _`2 * ${schemaCode}` : 2 * (schema as number);
    cxt.fail$data(_`${data}.length < ${twice} && ${count} < ${schemaCode}`);
  },
};
