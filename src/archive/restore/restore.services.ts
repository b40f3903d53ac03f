// services.json and groups.json restored: services before the groups that name them, through
// the services' own inserts. Secrets are not in the archive: a service comes back disabled,
// without them (and a tracker without an ingest token), until the person enters them again.
import { secondsToMs } from '../../lib/time.ts';
import { connectors } from '../../services/connectors/index.ts';
import type { ServiceType } from '../../services/connectors/types.ts';
import { sealSecrets } from '../../services/secrets.ts';
import { addMember, insertGroup, insertService, ownedServiceTypes } from '../../services/services.repo.ts';
import { REDACTED } from '../../services/services.schemas.ts';
import { ENTRIES, GroupRecord, ServiceRecord } from '../format.ts';
import { checker, restoreArrayFile, type Phase } from './restore.phase.ts';

/** Restores the services; `serviceIds` learns the id each archive id became. */
export async function restoreServices(run: Phase, serviceIds: Map<string, string>): Promise<void> {
  await restoreArrayFile<ServiceRecord>(run, {
    name: ENTRIES.services,
    kind: 'services',
    table: 'services',
    check: checker(ServiceRecord),
    taken: 'its id is taken; not restored',
    known: (service, id) => serviceIds.set(service.id, id),
    store: async (trx, service, id) => {
      const connector = connectors[service.type];
      const config = Object.fromEntries(
        Object.entries(service.config).filter(
          ([key, value]) => value !== REDACTED && !connector.secretFields.includes(key),
        ),
      );
      await insertService(trx, {
        id,
        user_id: run.userId,
        type: service.type,
        name: service.name,
        enabled: 0,
        config: JSON.stringify(config),
        secrets: sealSecrets(run.deps.secretsKey, id, {}),
        status: service.status,
        last_error: service.last_error,
        created_at: secondsToMs(service.created_at),
        updated_at: run.now(),
        ingest_token_hash: null,
      });
    },
  });
}

/** Restores the groups, with those of their services the archive brought back that publish. */
export async function restoreGroups(run: Phase, serviceIds: ReadonlyMap<string, string>): Promise<void> {
  await restoreArrayFile<GroupRecord>(run, {
    name: ENTRIES.groups,
    kind: 'groups',
    table: 'service_groups',
    check: checker(GroupRecord),
    taken: 'its id is taken; not restored',
    store: async (trx, group, id, { where, counting }) => {
      const createdAt = secondsToMs(group.created_at);
      await insertGroup(trx, { id, user_id: run.userId, name: group.name, created_at: createdAt });
      const members = group.service_ids.map((serviceId) => serviceIds.get(serviceId) ?? serviceId);
      const types = await ownedServiceTypes(trx, run.userId, members);
      for (const [n, serviceId] of members.entries()) {
        const type = types.get(serviceId);
        if (type === undefined || !connectors[type as ServiceType].publish) {
          if (counting)
            run.problem(where, `service ${group.service_ids[n]} is not in the archive; left out of the group`);
          continue;
        }
        // The order of members is the order they were added.
        await addMember(trx, run.userId, id, serviceId, createdAt + n);
      }
    },
  });
}
