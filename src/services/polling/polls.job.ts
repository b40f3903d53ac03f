// The `poll` job: one poll of one service (a feed, a Mastodon account), then the next one
// queued. There is one poll job per service at a time (`jobs_poll_once`, migration 0015), and a
// job is held by one worker under a lease, so two workers never poll one service at once.
// `perform` talks to the outside and fetches images (files by content hash, harmless twice);
// every row (posts, media, what was seen, the poll's state, the next job) is written when the
// job closes, by the worker that still holds it.
import type { Db } from '../../db/database.ts';
import type { Job, JobHandler } from '../../jobs/worker.ts';
import { fetchImage, type FetchDeps, type FetchedImage } from '../../media/media.fetch.ts';
import { insertMedium } from '../../media/media.repo.ts';
import type { Outbound } from '../../lib/ssrf.ts';
import { insertPost } from '../../posts/posts.repo.ts';
import { getSettings } from '../../settings/settings.logic.ts';
import { isServiceType, connectors } from '../connectors/index.ts';
import { deliveredTo, unmatchedDeliveryTexts } from '../deliveries.repo.ts';
import { openSecrets, type SecretKey } from '../secrets.ts';
import { setServiceStatus } from '../services.repo.ts';
import { PollError, type Entry, type Poller } from './poller.ts';
import { echoText, importedPost, nextPollAt, planImport } from './polls.logic.ts';
import { findPollRow, queuePoll, recordEntry, savePollRow, seenEntries, type PollRow } from './polls.repo.ts';

export interface PollDeps {
  db: Db;
  outbound: Outbound;
  secretsKey: SecretKey;
  now: () => number;
  /** Where fetched images go; made on first use (it may start image worker processes). */
  media: () => FetchDeps;
  /** Largest image fetched, bytes. */
  imageMaxBytes: number;
}

interface Prepared {
  entry: Entry;
  images: { alt: string; image: FetchedImage }[];
}

interface Known {
  userId: string;
  serviceId: string;
  intervalMinutes: number;
  row: PollRow | undefined;
}

type Outcome =
  | { kind: 'gone' }
  | (Known & { kind: 'idle' })
  | (Known & { kind: 'error'; message: string; retryAfterMs: number | null })
  | (Known & {
      kind: 'polled';
      scope: 'public' | 'private' | undefined;
      store: Prepared[];
      skip: Entry[];
      state: Pick<PollRow, 'etag' | 'last_modified' | 'cursor'>;
    });

/** The service a poll job is about and its poller, or undefined when it no longer polls. */
async function pollingService(db: Db, serviceId: string) {
  const service = await db.selectFrom('services').selectAll().where('id', '=', serviceId).executeTakeFirst();
  if (!service || !isServiceType(service.type)) return undefined;
  const poller: Poller | undefined = (connectors[service.type] as { poll?: Poller }).poll;
  const config = JSON.parse(service.config) as Record<string, unknown>;
  if (!poller?.enabled(config)) return undefined;
  return { service, poller, config };
}

/** Posts on their way to a service compared by text, at most (the newest). */
const ECHO_TEXTS_MAX = 200;

const lost = () => new Error('the poll job was taken over by another worker');

export function pollHandler(deps: PollDeps): JobHandler<Outcome> {
  const { db, outbound, secretsKey, now } = deps;

  async function fetchImages(job: Job, userId: string, entries: Entry[]): Promise<Prepared[]> {
    const withImages = entries.filter((entry) => entry.images.length > 0);
    const timeZone = withImages.length > 0 ? (await getSettings(db, userId)).timezone : 'UTC';
    const prepared: Prepared[] = [];
    for (const entry of entries) {
      const images: Prepared['images'] = [];
      for (const { url, alt } of entry.images) {
        if (!(await job.renewLease())) throw lost();
        // An image that cannot be had leaves the post without it, not the post out.
        const image = await fetchImage(deps.media(), url, deps.imageMaxBytes, timeZone).catch(() => undefined);
        if (image) images.push({ alt, image });
      }
      prepared.push({ entry, images });
    }
    return prepared;
  }

  return {
    async perform(job: Job): Promise<Outcome> {
      const { service_id: serviceId } = job.payload as { service_id: string };
      const found = await pollingService(db, serviceId);
      if (!found) return { kind: 'gone' };
      const { service, poller, config } = found;
      const userId = service.user_id;
      const row = await findPollRow(db, userId, serviceId);
      const known: Known = { userId, serviceId, intervalMinutes: poller.intervalMinutes(config), row };
      if (service.enabled !== 1) return { ...known, kind: 'idle' };
      const first = !row || row.polled_at === 0;
      let result;
      try {
        result = await poller.poll({
          config,
          secrets: openSecrets(secretsKey, service.id, service.secrets),
          state: {
            etag: row?.etag ?? null,
            lastModified: row?.last_modified ?? null,
            cursor: row?.cursor ?? null,
            first,
          },
          outbound,
          now,
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return {
          ...known,
          kind: 'error',
          message,
          retryAfterMs: error instanceof PollError ? error.retryAfterMs : null,
        };
      }
      const scope = poller.scope(config);
      if (result.notModified) {
        const state = {
          etag: row?.etag ?? null,
          last_modified: row?.last_modified ?? null,
          cursor: row?.cursor ?? null,
        };
        return { ...known, kind: 'polled', scope, store: [], skip: [], state };
      }
      const { entries } = result;
      const urls = entries.flatMap((e) => (e.url === null ? [] : [e.url]));
      const seen = await seenEntries(
        db,
        userId,
        serviceId,
        entries.map((e) => e.key),
        urls,
      );
      const echoes = {
        urls: await deliveredTo(db, userId, [...urls, ...entries.flatMap((e) => e.aliases)]),
        texts: new Set((await unmatchedDeliveryTexts(db, userId, serviceId, ECHO_TEXTS_MAX)).map(echoText)),
      };
      const plan = planImport(entries, seen, echoes, first, poller.backlog(config));
      if (!(await job.renewLease())) throw lost();
      return {
        ...known,
        kind: 'polled',
        scope,
        store: await fetchImages(job, userId, plan.store),
        skip: plan.skip,
        state: { etag: result.etag, last_modified: result.lastModified, cursor: result.cursor },
      };
    },

    async succeeded(trx, _job, outcome, at) {
      if (outcome.kind === 'gone') return;
      const { userId, serviceId, intervalMinutes, row } = outcome;
      if (outcome.kind === 'idle') {
        await queuePoll(trx, serviceId, nextPollAt(at, intervalMinutes, 0, null), at);
        return;
      }
      const base = {
        user_id: userId,
        service_id: serviceId,
        etag: row?.etag ?? null,
        last_modified: row?.last_modified ?? null,
        cursor: row?.cursor ?? null,
        polled_at: row?.polled_at ?? 0,
      };
      if (outcome.kind === 'error') {
        const failures = (row?.failures ?? 0) + 1;
        await savePollRow(trx, { ...base, failures });
        await setServiceStatus(trx, serviceId, 'error', outcome.message, at);
        await queuePoll(trx, serviceId, nextPollAt(at, intervalMinutes, failures, outcome.retryAfterMs), at);
        return;
      }
      const scope = outcome.scope ?? (await getSettings(trx, userId)).defaultScopes.posts;
      for (const { entry, images } of outcome.store) {
        const made = importedPost(entry, images, { userId, serviceId, scope, at });
        const recorded = await recordEntry(trx, {
          user_id: userId,
          service_id: serviceId,
          key: entry.key,
          url: entry.url,
          post_id: made?.post.id ?? null,
          created_at: at,
        });
        if (!recorded || !made) continue;
        for (const medium of made.media) await insertMedium(trx, medium);
        await insertPost(trx, made.post);
      }
      for (const entry of outcome.skip) {
        await recordEntry(trx, {
          user_id: userId,
          service_id: serviceId,
          key: entry.key,
          url: entry.url,
          post_id: null,
          created_at: at,
        });
      }
      await savePollRow(trx, { ...base, ...outcome.state, failures: 0, polled_at: at });
      await setServiceStatus(trx, serviceId, 'ok', null, at);
      await queuePoll(trx, serviceId, nextPollAt(at, intervalMinutes, 0, null), at);
    },

    async failed(trx, job, error, final, at) {
      if (!final) return;
      const { service_id: serviceId } = job.payload as { service_id: string };
      const found = await pollingService(trx, serviceId);
      if (!found) return;
      await setServiceStatus(trx, serviceId, 'error', error, at);
      await queuePoll(trx, serviceId, nextPollAt(at, found.poller.intervalMinutes(found.config), 1, null), at);
    },
  };
}
