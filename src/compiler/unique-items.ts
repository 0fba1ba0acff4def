/**
 * `uniqueItems`, in place of ajv's: the same errors (`{i, j}`, "must NOT have duplicate items (items ## j and
 * i are identical)"), found faster when the items have scalar types. ajv indexes such items in an object
 * keyed by the item (a dictionary object: every lookup interns the string), which cost a task's two tags
 * ~60 ns; here a short array compares its items pairwise with `===` and a long one indexes them in a `Map`
 * (linear, and `"__proto__"` is a key like any other). Items of other types, or of none declared, are
 * compared as ajv does: deep equality between every pair.
 */
import { _, type CodeKeywordDefinition, type KeywordCxt, type KeywordErrorDefinition, type Name, str } from "ajv";
import { checkDataTypes, DataType, getSchemaTypes } from "ajv/dist/compile/validate/dataType.js";
import { useFunc } from "ajv/dist/compile/util.js";
import equalModule from "ajv/dist/runtime/equal.js";

/** Up to this many items are compared pairwise (at most 120 comparisons); more go through a `Map`. */
const PAIRWISE_MAX = 16;

// ajv's helpers are CommonJS with `exports.default`: plain Node hands a default import the exports object.
const equal = ((equalModule as unknown as { default?: unknown }).default ?? equalModule) as { code: string };

const error: KeywordErrorDefinition = {
  message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
  params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
};

export const uniqueItems: CodeKeywordDefinition = {
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
      gen.if(_`${i} > 1`, () => (scalars ? byValue(i, j) : pairwise(i, j)));
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

    /** ajv's own: deep equality between every pair, the later item first. */
    function pairwise(i: Name, j: Name): void {
      const eql = useFunc(gen, equal);
      const outer = gen.name("outer");
      gen.label(outer).for(_`;${i}--;`, () =>
        gen.for(_`${j} = ${i}; ${j}--;`, () =>
          gen.if(_`${eql}(${data}[${i}], ${data}[${j}])`, () => {
            cxt.error();
            gen.assign(valid, false).break(outer);
          }),
        ),
      );
    }
  },
};
