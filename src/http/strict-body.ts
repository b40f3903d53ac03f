// A body validator that never coerces. The app's Ajv coerces types (`coerceTypes: 'array'`),
// which querystrings need ("5" -> 5, `a=1` -> [1]), but in a JSON body it would turn
// `"text": 42` into "42" and `"groups": "g"` into ["g"]: docs/api.md makes a wrong type a 400.
// Routes with JSON bodies take `validatorCompiler: strictBody`; TypeBox's compiled checker
// reports errors in Ajv's shape, so the one error handler renders them as usual.
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

export const strictBody: FastifySchemaCompiler<TSchema> = ({ schema }) => {
  const validator = Compile(schema);
  return (data: unknown) => (validator.Check(data) ? { value: data } : { error: validator.Errors(data) as never });
};
