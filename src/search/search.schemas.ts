// The wire format of search (docs/api.md "Search").
import { Type, type Static } from 'typebox';
import { collectionParams } from '../items/items.schemas.ts';
import { literalUnion } from '../lib/literals.ts';
import { QUERY_MAX } from './search.query.ts';

export const SEARCH_KINDS = ['posts', 'media', 'places'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

const q = Type.String({
  minLength: 1,
  maxLength: QUERY_MAX,
  description:
    'Words that must all be found (in any order), `"quoted phrases"`, and `word*` for a prefix. ' +
    'Case and accents of Latin scripts do not matter. Other punctuation only separates words.',
});

const { count, since_time, until_time, cursor } = collectionParams;

export const SearchQuery = Type.Object(
  {
    q,
    kind: Type.Optional(
      literalUnion(SEARCH_KINDS, { description: 'Only results of this kind; `places` needs `get_private_scope`.' }),
    ),
    scope: Type.Optional(
      literalUnion(['public', 'private'] as const, {
        description:
          'Only public or only private items; private ones need `get_private_scope`. Default: every scope the token reads.',
      }),
    ),
    count,
    since_time,
    until_time,
    cursor,
  },
  { additionalProperties: false },
);
export type SearchParams = Static<typeof SearchQuery>;

export const PublicSearchQuery = Type.Object(
  {
    q,
    kind: Type.Optional(literalUnion(['posts', 'media'] as const, { description: 'Only results of this kind.' })),
    count,
    since_time,
    until_time,
    cursor,
  },
  { additionalProperties: false },
);
export type PublicSearchParams = Static<typeof PublicSearchQuery>;

const RESULT_FIELDS = {
  id: Type.String({ description: "The item's id." }),
  time: Type.Number({
    description: "The item's `time` (a place's `created_at`), Unix epoch seconds: results are newest first.",
  }),
  snippet: Type.String({
    description:
      'A short stretch of the text that matched: HTML-escaped text in which each matched word is ' +
      'wrapped in `<mark>` and `</mark>`, the only markup it holds. Safe to insert into HTML as it is; ' +
      'for plain text, remove the two tags and unescape `&amp; &lt; &gt; &quot; &#39;`.',
  }),
};

const ITEM =
  'The item as its own read returns it to this reader (`GET /posts/id/<id>`, `/media/id/<id>`, `/places/<id>`).';

export const SearchResultSchema = Type.Union(
  [
    Type.Object({ kind: Type.Literal('posts'), ...RESULT_FIELDS, item: Type.Ref('Post', { description: ITEM }) }),
    Type.Object({ kind: Type.Literal('media'), ...RESULT_FIELDS, item: Type.Ref('Medium', { description: ITEM }) }),
    Type.Object({ kind: Type.Literal('places'), ...RESULT_FIELDS, item: Type.Ref('Place', { description: ITEM }) }),
  ],
  { $id: 'SearchResult', description: 'One item that matched a search; `kind` says which.' },
);
export type SearchResult = Static<typeof SearchResultSchema>;
