/**
 * `uniqueItems`, in place of ajv's: the same errors (`{i, j}`, "must NOT have duplicate items (items ## j and
 * i are identical)"), found faster. Items of scalar types: ajv indexes them in an object keyed by the item (a
 * dictionary object: every lookup interns the string), which cost a task's two tags ~60 ns; here a short
 * array compares its items pairwise with `===` and a long one indexes them in a `Map` (linear, and
 * `"__proto__"` is a key like any other). Items of other types, or of none declared: ajv compares every
 * pair deeply (quadratic: 20,000 small objects took 6 s) with an equality that calls an object's own
 * `valueOf`; here the runtime's `duplicateItems` (`packages/runtime/src/validators.ts`) finds the same pair in
 * linear time, by JSON Schema's equality.
 */
import { _, type CodeKeywordDefinition, type KeywordCxt, type KeywordErrorDefinition, type Name, str } from "ajv";
import { checkDataTypes, DataType, getSchemaTypes } from "ajv/dist/compile/validate/dataType.js";
import { useFunc } from "ajv/dist/compile/util.js";
import { PAIRWISE_MAX, type duplicateItems } from "@mcpgen/runtime/validators";

/** The runtime's `duplicateItems` as ajv takes a helper: with the code standalone output requires it by. */
export type DuplicateItems = typeof duplicateItems & { code: string };

const error: KeywordErrorDefinition = {
  message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
  params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
};

export const uniqueItems = (helper: DuplicateItems): CodeKeywordDefinition => ({
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  $data: true,
  error,
  code(cxt: KeywordCxt) {
    const { gen, data, $data, schema, parentSchema, schemaCode, it } = cxt;
    if (!$data && !schema) return;
    const valid = gen.let("valid");
    const itemTypes = parentSchema.items ? getSchemaTypes(parentSchema.items) : [];
    // Scalars of the declared types: `===` and a Map's SameValueZero agree with the deep equality ajv would
    // use, as long as NaN is not among them (strict numbers, which mcpgen compiles with, reject it).
    const scalars = itemTypes.length > 0 && !itemTypes.some((t) => t === "object" || t === "array") && it.opts.strictNumbers === true;
    cxt.block$data(valid, check, _`${schemaCode} === false`);
    cxt.ok(valid);

    function check(): void {
      const i = gen.let("i", _`${data}.length`);
      const j = gen.let("j");
      cxt.setParams({ i, j });
      gen.assign(valid, true);
      gen.if(_`${i} > 1`, () => (scalars ? byValue(i, j) : byHelper(i, j)));
    }

    /** From the end: `j` is the first later item equal to item `i`. */
    function byValue(i: Name, j: Name): void {
      const item = gen.name("item");
      const seen = gen.const("seen", _`${i} > ${PAIRWISE_MAX} ? new Map() : undefined`);
      gen.for(_`;${i}--;`, () => {
        gen.let(item, _`${data}[${i}]`);
        gen.if(checkDataTypes(itemTypes, item, it.opts.strictNumbers, DataType.Wrong), _`continue`);
        gen.if(
          _`${seen} === undefined`,
          () => {
            gen.for(_`${j} = ${i} + 1; ${j} < ${data}.length && ${data}[${j}] !== ${item}; ${j}++`, () => undefined);
            gen.if(_`${j} === ${data}.length`, _`continue`);
          },
          () => {
            gen.assign(j, _`${seen}.get(${item})`);
            gen.code(_`${seen}.set(${item}, ${i})`);
            gen.if(_`${j} === undefined`, _`continue`);
          },
        );
        cxt.error();
        gen.assign(valid, false).break();
      });
    }

    /** Any items: the runtime's `duplicateItems` finds the pair ajv's pairwise deep equality would. */
    function byHelper(i: Name, j: Name): void {
      const pair = gen.const("pair", _`${useFunc(gen, helper)}(${data})`);
      gen.if(_`${pair} !== undefined`, () => {
        gen.assign(i, _`${pair}[0]`).assign(j, _`${pair}[1]`);
        cxt.error();
        gen.assign(valid, false);
      });
    }
  },
});
