// How answers are turned into JSON: fastify's own serializer (fast-json-stringify, compiled
// from each route's response schema, so no field the schema does not name can leave), given
// schemas it can compile into plain code.
//
// fast-json-stringify writes an `anyOf` by validating the value against each branch with Ajv
// until one matches. The schemas say "a number or null" and "one of these strings" as `anyOf`
// (TypeBox's unions, which the OpenAPI document shows as they are), so a page of 50 points ran
// about 300 validations (22-24 µs a page; 17 µs compiled as below, BENCHMARKS.md "The
// serializer's unions"). For serializing, such a union says no more than its types do, so it
// is compiled as `type: [...]`, which fast-json-stringify writes with a `typeof` test.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Schema = Record<string, unknown>;

const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean', 'null']);

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The primitive type a branch of a union stands for, if it is nothing but that (a type, or a constant). */
function primitiveOf(branch: Schema): string[] | undefined {
  if (branch.$ref !== undefined || branch.properties !== undefined || branch.items !== undefined) return undefined;
  if (Array.isArray(branch.anyOf) || Array.isArray(branch.oneOf) || Array.isArray(branch.allOf)) return undefined;
  const types = [branch.type].flat();
  if (branch.type !== undefined)
    return types.every((type) => PRIMITIVE.has(String(type))) ? types.map(String) : undefined;
  const constant = branch.const;
  if (typeof constant === 'string') return ['string'];
  if (constant === null) return ['null'];
  return undefined;
}

/**
 * The schema as fast-json-stringify should compile it: every `anyOf` whose branches are each a
 * primitive type or a constant becomes one `type` list. Everything else is kept as it is.
 */
export function forSerializing(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forSerializing);
  if (!isSchema(schema)) return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = forSerializing(value);
  if (!Array.isArray(copy.anyOf)) return copy;
  const branches = (copy.anyOf as unknown[]).map((branch) => (isSchema(branch) ? primitiveOf(branch) : undefined));
  if (branches.some((types) => types === undefined)) return copy;
  const { anyOf: _union, ...rest } = copy;
  const types = [...new Set(branches.flat() as string[])];
  return { ...rest, type: types.length === 1 ? types[0] : types };
}

/** fastify's `schemaController.compilersFactory.buildSerializer`: its own, on the schemas above. */
export const buildSerializer: ReturnType<typeof SerializerSelector> = (externalSchemas, serializerOptions) => {
  const shared = Object.entries((externalSchemas ?? {}) as Schema).map(([id, schema]) => [id, forSerializing(schema)]);
  const compile = SerializerSelector()(Object.fromEntries(shared), serializerOptions);
  return (route) => compile({ ...route, schema: forSerializing(route.schema) });
};
