// A union of string constants, `anyOf` one `const` each, whose static type is the union of the
// strings. `Type.Union(list.map(Type.Literal))` makes the same schema, but TypeBox types an
// array (not a tuple) of literals as `never`: the one cast below says what the map keeps.
import { Type, type TLiteral, type TSchemaOptions, type TUnion } from 'typebox';

type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

export function literalUnion<const T extends readonly string[]>(
  values: T,
  options?: TSchemaOptions,
): TUnion<Literals<T>> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as TUnion<Literals<T>>;
}
