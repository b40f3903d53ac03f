// The store the configuration names (docs/design.md "Storage"); one per data folder and
// settings in a process, so every caller shares one S3 client and its connections.
import type { Config, StorageConfig } from '../config.ts';
import { LocalStore } from './local.ts';
import { S3Store } from './s3.ts';
import type { BlobStore } from './store.ts';

const open = new Map<string, BlobStore>();

export function storeFor(dataDir: string, storage: StorageConfig): BlobStore {
  const id = JSON.stringify([dataDir, storage]);
  let store = open.get(id);
  if (!store) {
    store = storage.kind === 's3' ? new S3Store(storage) : new LocalStore(dataDir);
    open.set(id, store);
  }
  return store;
}

export const configuredStore = (config: Pick<Config, 'dataDir' | 'storage'>) =>
  storeFor(config.dataDir, config.storage);
