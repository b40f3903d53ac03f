import { Type, type Static } from 'typebox';

const Count = (description: string) => Type.Integer({ description });

export const InfoSchema = Type.Object(
  {
    name: Type.String(),
    version: Type.String({ description: 'The server version (semver).' }),
    permissions: Type.Array(Type.Object({ name: Type.String(), description: Type.String() }), {
      description: 'Every permission (OAuth2 scope) the server defines, with what it grants.',
    }),
    service_types: Type.Array(
      Type.Object({
        type: Type.String({ description: 'The `type` of `POST /services`.' }),
        description: Type.String(),
        capabilities: Type.Array(Type.Union([Type.Literal('publish'), Type.Literal('import')]), {
          description: '`publish`: receives posts; `import`: brings items in.',
        }),
      }),
      { description: 'Every kind of outside service this server can connect.' },
    ),
    limits: Type.Object({
      count_default: Count('`count` of the collections and view items when none is given.'),
      count_max: Count('The largest `count` accepted.'),
      request_body_bytes: Count('Largest JSON request body; larger is 413.'),
      upload_bytes: Count('Largest media file for `POST /media`; larger is 413.'),
      post_text_max: Count("Most characters of a post's `text`, after trimming."),
      location_batch_max: Count('Most points in one `POST /locations` batch.'),
      views_max: Count('Most views one person keeps.'),
      rate_limits: Type.Array(
        Type.Object({
          name: Type.String({ description: 'What is counted.' }),
          limit: Type.Integer(),
          window_seconds: Type.Number(),
          per: Type.String({
            description:
              'What the count is kept per (`account_and_ip`, `ip`, `account`, or `grant`: an app the person approved).',
          }),
          max_delay_seconds: Type.Optional(
            Type.Integer({
              description:
                'A throttle, not a budget: past the limit each attempt waits after the one before, 1 s and then twice as long each time up to this.',
            }),
          ),
        }),
        {
          description:
            'Past a limit, the request is refused (429 with Retry-After) until the window moves on, or, for a throttle, until its wait is over. A throttle ends after a window without attempts.',
        },
      ),
    }),
    urls: Type.Object({
      oauth_metadata: Type.String({ description: 'RFC 8414 authorization server metadata.' }),
      openapi: Type.String({ description: 'This API as OpenAPI 3.1.' }),
      docs: Type.String({ description: 'The same, browsable.' }),
    }),
  },
  { $id: 'Info', description: 'What the server is, what it grants, and its limits.' },
);
export type Info = Static<typeof InfoSchema>;
