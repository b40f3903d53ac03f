// Schemas every feature's routes share: the problem document and the helpers that declare
// error responses, so each route's OpenAPI entry lists every status it can return.
import { Type, type Static, type TSchema } from 'typebox';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'A URN naming the stable error code.' }),
    title: Type.String({ description: 'The HTTP status phrase.' }),
    status: Type.Integer(),
    detail: Type.String({ description: 'What went wrong, for a person.' }),
    code: Type.String({ description: 'Stable machine-readable code, e.g. `validation_failed`, `not_found`.' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'Where: `body/...`, `querystring/...`, `params/...`.' }),
          message: Type.String(),
        }),
      ),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details.' },
);
export type Problem = Static<typeof ProblemSchema>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid; `errors` lists each field at fault.',
  401: 'No valid token, or the token lacks the permission (see `WWW-Authenticate`).',
  403: 'Forbidden.',
  404: 'No such object, or one the caller may not see.',
  409: 'Conflicts with the current state.',
  413: 'The body is too large.',
  415: 'The body has a media type this route does not take.',
  422: 'Well-formed but cannot be processed.',
  429: 'Too many requests; retry after the time in `Retry-After`.',
  503: 'Not ready to serve: a dependency (the database) is unreachable.',
};

/** Error responses for a route schema, each a problem document. */
export function problems(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
        content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
      },
    ]),
  );
}
