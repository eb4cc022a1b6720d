/** Picks the transport for a profile. */
import type { WorkerProfile } from '../core/settings/workerProfile';
import type { ConnectionEnvironment } from '../core/worker/types';
import { KubernetesTransport } from './kubernetes';
import { LocalTransport } from './local';
import { SshTransport } from './ssh';
import type { WorkerTransport } from './types';

export function createTransport(profile: WorkerProfile, env: ConnectionEnvironment): WorkerTransport {
  const t = profile.transport;
  switch (t.kind) {
    case 'local':
      return new LocalTransport();
    case 'ssh':
      return new SshTransport(t, env, profile.timeouts.connectSeconds);
    case 'kubernetes':
      return new KubernetesTransport(t, env, profile.timeouts.connectSeconds);
  }
}
