import { Type, type Static } from 'typebox';
import { collectionQuery, ScopeSchema } from '../items/items.schemas.ts';
import { literalUnion } from '../lib/literals.ts';

const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const MediumSchema = Type.Object(
  {
    id: Type.String(),
    username: Type.String(),
    scope: ScopeSchema,
    kind: literalUnion(['image', 'video', 'audio', 'other']),
    mime_type: Type.String({ description: 'Sniffed from the bytes, not taken from the upload.' }),
    size: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "Bytes of the file the caller gets from `url`: the original for the medium's owner, the public copy " +
        '(without metadata) for everyone else; null for them until that copy is made (its first download).',
    }),
    sha256: Type.Union([Type.String(), Type.Null()], {
      description:
        'Hex SHA-256 of the same file, also its `ETag`: the original for the owner, the public copy for everyone ' +
        "else (null until it is made), never the original's to a stranger.",
    }),
    width: NullableNumber(
      'Pixels, as displayed (EXIF orientation or video rotation applied); null for audio and when unknown.',
    ),
    height: NullableNumber('Pixels, as displayed; null for audio and when unknown.'),
    duration: NullableNumber('Seconds, for audio and video when known; null otherwise.'),
    time: Type.Number({
      description:
        'When it was taken (EXIF, or the creation time of a recording), else when it was uploaded; Unix epoch seconds.',
    }),
    location: Type.Union([Type.Object({ lat: Type.Number(), lon: Type.Number() }), Type.Null()], {
      description:
        "Where it was taken (EXIF GPS, or a recording's ISO 6709 location, or the owner's location history at " +
        "`time`), or null; public media at the owner's location precision.",
    }),
    location_source: Type.Union([Type.Literal('exif'), Type.Literal('history'), Type.Null()], {
      description:
        '`exif`: the file said where; `history`: placed by the owner’s location history at the time the file ' +
        'says it was taken (docs/history.md "Photos placed by the history"); null when `location` is.',
    }),
    caption: Type.String(),
    url: Type.String({ description: 'The file; the same access rules as the object.' }),
    thumbnail_url: Type.Union([Type.String(), Type.Null()], {
      description: 'A WebP thumbnail without metadata (images and video), or null.',
    }),
    created_at: Type.Number({ description: 'When Waypost stored it, Unix epoch seconds.' }),
  },
  { $id: 'Medium', description: 'A photo, video or audio file.' },
);
export type Medium = Static<typeof MediumSchema>;

export const MediaQuery = collectionQuery({});

export const CAPTION_MAX = 2000;

export const FileHeaders = Type.Object({
  range: Type.Optional(Type.String({ maxLength: 200 })),
  'if-none-match': Type.Optional(Type.String({ maxLength: 500 })),
  'if-range': Type.Optional(Type.String({ maxLength: 200 })),
});

/** POST /media/id/<id>: what a medium's owner may change after the fact. */
export const MediumChange = Type.Object(
  { scope: Type.Optional(ScopeSchema), caption: Type.Optional(Type.String({ maxLength: CAPTION_MAX })) },
  { additionalProperties: false },
);
