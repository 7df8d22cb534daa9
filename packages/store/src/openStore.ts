import type { OpenStoreOptions, Store } from './types';
import { StoreError } from './types';

/** Opens (creating and migrating when needed) the database at `opts.file`. */
export function openStore(opts: OpenStoreOptions): Store {
  // Implementation lands in the next commits; the signature is final.
  throw new StoreError('closed', `openStore(${opts.file}): not implemented yet`);
}
