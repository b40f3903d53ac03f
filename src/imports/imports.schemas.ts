import { Type, type Static } from 'typebox';
import { literalUnion } from '../lib/literals.ts';
import { EXPORT_FORMAT } from '../archive/format.ts';

const count = (description: string) => Type.Integer({ minimum: 0, description });
const seconds = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

/** What a restore did with one kind of object. */
const KindCounts = Type.Object({
  seen: count('Objects of this kind read from the archive.'),
  stored: count('Objects restored.'),
  duplicates: count('Objects the account holds already (restored before), not stored again.'),
  skipped: count('Objects that could not be restored (see `errors`).'),
});

export const ImportSchema = Type.Object(
  {
    id: Type.String(),
    status: literalUnion(['queued', 'running', 'done', 'failed', 'cancelled'], {
      description:
        '`done` also when the file had bad records or ended early (see `errors`); `failed` when the import ' +
        'could not go on (what it stored stays until the import is deleted); `cancelled` while a DELETE removes it.',
    }),
    format: Type.String({ description: 'The format read: given in the upload, or detected from the content.' }),
    filename: Type.String(),
    size: Type.Integer({ minimum: 0, description: 'Bytes uploaded.' }),
    progress: Type.Number({ minimum: 0, maximum: 1, description: 'The part of the file read, 0 to 1.' }),
    points_seen: count('Points read: points_stored + duplicates + skipped.'),
    points_stored: count('Points stored by this import.'),
    duplicates: count('Points already stored (the same time, latitude and longitude), not stored again.'),
    skipped: count('Points that could not be stored: no time, no valid coordinates.'),
    errors: Type.Array(Type.Object({ where: Type.String(), message: Type.String() }), {
      description: 'The first 100 problems: skipped points, a file that ends early, files in a zip not read.',
    }),
    items: Type.Union(
      [
        Type.Object({
          settings: KindCounts,
          services: KindCounts,
          groups: KindCounts,
          views: KindCounts,
          places: KindCounts,
          visit_corrections: KindCounts,
          media: KindCounts,
          posts: KindCounts,
        }),
        Type.Null(),
      ],
      {
        description:
          'A restore of a Waypost export (`format` `' +
          EXPORT_FORMAT +
          '`): what came back, per kind of object; the ' +
          'points are counted in points_*. Null for location files.',
      },
    ),
    created_at: Type.Number({ description: 'Unix epoch seconds.' }),
    started_at: seconds('When the import began to run; null while queued.'),
    finished_at: seconds('When it ended; null until then.'),
  },
  { $id: 'Import', description: 'A file of location history brought in once (docs/imports.md).' },
);
export type Import = Static<typeof ImportSchema>;

export const ImportParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
