// views.json restored through the views' own insert, within the API's bounds: a range that
// ends after it starts, a valid box, a public view that shows public items, and no more views
// than a person may keep.
import { checkedBox } from '../../lib/box.ts';
import { secondsToMs } from '../../lib/time.ts';
import { countViewRows, insertViewRow, type StoredFilters } from '../../views/views.repo.ts';
import { VIEWS_PER_USER_MAX } from '../../views/views.schemas.ts';
import { ENTRIES, ViewRecord } from '../format.ts';
import { checker, restoreArrayFile, type Phase } from './restore.phase.ts';

/** Why a view the schema takes cannot be stored, or undefined. */
function refusal(view: ViewRecord): string | undefined {
  const { since_time: since, until_time: until, bbox } = view.filters;
  if (since !== undefined && until !== undefined && since >= until)
    return '/filters/until_time must be after since_time';
  if (bbox && !checkedBox(bbox)) return '/filters/bbox is no valid box';
  if (view.scope === 'public' && view.filters.scope === 'private') {
    return '/filters/scope a public view only ever shows public items';
  }
  return undefined;
}

export async function restoreViews(run: Phase): Promise<void> {
  let count = 0;
  await restoreArrayFile<ViewRecord>(run, {
    name: ENTRIES.views,
    kind: 'views',
    table: 'views',
    check: checker(ViewRecord),
    taken: 'its id is taken',
    begin: async (trx) => {
      count = await countViewRows(trx, run.userId);
    },
    refuse: refusal,
    limit: () => (count >= VIEWS_PER_USER_MAX ? `a person keeps at most ${VIEWS_PER_USER_MAX} views` : undefined),
    store: async (trx, view, id) => {
      const { since_time: since, until_time: until, bbox } = view.filters;
      const filters: StoredFilters = {};
      if (since !== undefined) filters.sinceMs = secondsToMs(since);
      if (until !== undefined) filters.untilMs = secondsToMs(until);
      if (bbox) filters.bbox = bbox as StoredFilters['bbox'];
      if (view.filters.scope) filters.scope = view.filters.scope;
      if (view.filters.sources) filters.sources = view.filters.sources;
      if (view.filters.text !== undefined) filters.text = view.filters.text;
      await insertViewRow(trx, {
        user_id: run.userId,
        id,
        name: view.name.trim(),
        description: view.description,
        kinds: JSON.stringify(view.kinds),
        filters: JSON.stringify(filters),
        scope: view.scope,
        created_at: secondsToMs(view.created_at),
        updated_at: secondsToMs(view.updated_at),
      });
      count += 1;
    },
  });
}
