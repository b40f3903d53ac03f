// A connector's saved state (docs/design.md "Data model"): read once per delivery, sealed
// again on each save, never returned by any route.
import type { Db } from '../db/database.ts';
import type { ConnectorState } from './connectors/connector.ts';
import { openState, sealState, type SecretKey } from './secrets.ts';
import { setServiceState, type ServiceRow } from './services.repo.ts';

export function connectorState(db: Db, key: SecretKey, row: Pick<ServiceRow, 'id' | 'state'>): ConnectorState {
  let value = openState(key, row.id, row.state);
  return {
    get value() {
      return value;
    },
    async save(next) {
      await setServiceState(db, row.id, next === null ? null : sealState(key, row.id, next));
      value = next;
    },
  };
}
