// SmoothMQ lists every tenant's queues but acts on one tenant per connection: the backend
// of a queue's tenant is opened on first use and kept. Without `backendForTenant` (pgmq,
// or a file opened for one tenant) every queue uses the main backend.
import { useCallback, useState } from 'react';
import type { Backend } from '../../backends/types.js';
import type { QueueRef } from '../model/queue-ref.js';

export interface TenantBackends {
  /** The backend for this queue if it is open already (undefined while its tenant's is opening). */
  readonly backendOf: (queue: QueueRef) => Backend | undefined;
  /** The backend for this queue, opening its tenant's first when needed. */
  readonly resolveBackend: (queue: QueueRef) => Promise<Backend>;
}

export function useTenantBackends(backend: Backend, backendForTenant: ((tenant: number) => Promise<Backend>) | undefined): TenantBackends {
  const [opened, setOpened] = useState<ReadonlyMap<number, Backend>>(new Map());
  const backendOf = useCallback(
    (queue: QueueRef): Backend | undefined => {
      if (queue.tenant === undefined || !backendForTenant) return backend;
      return opened.get(queue.tenant);
    },
    [backend, backendForTenant, opened],
  );
  const resolveBackend = useCallback(
    async (queue: QueueRef): Promise<Backend> => {
      const known = backendOf(queue);
      if (known) return known;
      const b = await backendForTenant!(queue.tenant!);
      setOpened((m) => new Map(m).set(queue.tenant!, b));
      return b;
    },
    [backendOf, backendForTenant],
  );
  return { backendOf, resolveBackend };
}
