// Schemas the three kinds of item share: scope, and the generic collection parameters
// (docs/api.md "Collections").
import { Type, type Static, type TProperties } from 'typebox';
import { TIME_LIMIT_S } from '../lib/time.ts';

export const ScopeSchema = Type.Union([Type.Literal('public'), Type.Literal('private')], {
  description: 'Who may read the item: anyone (`public`) or the owner with `get_private_scope` (`private`).',
});
export type Scope = Static<typeof ScopeSchema>;

export const Seconds = (description: string) =>
  Type.Number({ minimum: -TIME_LIMIT_S, maximum: TIME_LIMIT_S, description });

export const COUNT_DEFAULT = 50;
export const COUNT_MAX = 1000;

export const collectionParams = {
  count: Type.Integer({
    minimum: 1,
    maximum: COUNT_MAX,
    default: COUNT_DEFAULT,
    description: `How many objects at most, 1 to ${COUNT_MAX}; default ${COUNT_DEFAULT}.`,
  }),
  since_time: Type.Optional(Seconds('Only objects with `time >= since_time` (Unix epoch seconds, inclusive).')),
  until_time: Type.Optional(Seconds('Only objects with `time < until_time` (Unix epoch seconds, exclusive).')),
  order: Type.Union([Type.Literal('desc'), Type.Literal('asc')], {
    default: 'desc',
    description: 'By `time`, then `id`: newest first (`desc`, the default) or oldest first.',
  }),
  cursor: Type.Optional(
    Type.String({
      // No schema bounds: any value this server did not make is 400 `invalid_cursor` (src/core/cursors.ts).
      description:
        'Where the previous page ended: take it from the `Link: <...>; rel="next"` header. ' +
        'A cursor this server did not make is 400 `invalid_cursor`.',
    }),
  ),
};

/** The collection parameters plus a route's own, as a closed querystring schema. */
export function collectionQuery<P extends TProperties>(extra: P) {
  return Type.Object({ ...collectionParams, ...extra }, { additionalProperties: false });
}

/** The generic collection parameters as the querystring schema delivers them. */
export type CollectionParams = Static<ReturnType<typeof collectionQuery<Record<never, never>>>>;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
