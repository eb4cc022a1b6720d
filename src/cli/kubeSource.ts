/**
 * The kubectl / snapshotctl side of a kubernetes observe-mode run (`profile.kubernetes`): the
 * transport's read-only observer (pods, events, API discovery, the snapshot objects, the agent's
 * logs) plus pod logs and snapshotctl, as the workflow's `KubeRunSource`. Used by the CLI and the extension.
 */
import { execa } from 'execa';
import type { WorkerProfile } from '../core/settings/workerProfile';
import type { ConnectionEnvironment } from '../core/worker/types';
import type { KubeRunSource } from '../core/workflow/kube/source';
import { KubernetesTransport } from '../transport/kubernetes';

/** undefined unless the profile is a kubernetes profile in observe mode. */
export function kubeSourceFor(profile: WorkerProfile, env: ConnectionEnvironment): KubeRunSource | undefined {
  const k = profile.kubernetes;
  const t = profile.transport;
  if (!k || t.kind !== 'kubernetes') return undefined;
  const tr = new KubernetesTransport(t, env, profile.timeouts.connectSeconds);
  const obs = tr.observer({ agentSelector: k.agentSelector, agentContainer: k.agentContainer, agentNamespace: k.agentNamespace });
  const source: KubeRunSource = {
    pods: () => obs.pods(),
    events: () => obs.events(),
    apiResources: () => obs.apiResources(),
    object: (kind, name) => obs.object(kind, name),
    snapshotList: () => obs.snapshotList(),
    agentLog: () => obs.agentLog(),
    agentWhere: () => obs.agentWhere(),
    podLog: (pod, container) => tr.podLog(pod, container),
  };
  if (k.snapshotctl) {
    const [file, ...prefix] = k.snapshotctl;
    source.snapshotctl = async (args, signal) => {
      const r = await execa(file!, [...prefix, ...args], {
        reject: false,
        cancelSignal: signal,
        stdin: 'ignore',
        timeout: Math.max(profile.timeouts.captureSeconds, profile.timeouts.restoreSeconds) * 1000,
        env: env.kubeconfig ? { KUBECONFIG: env.kubeconfig } : undefined,
        extendEnv: true,
      });
      // A program that cannot start at all has no exit status.
      if ((r as { code?: string }).code === 'ENOENT' || r.exitCode === undefined) return { code: null, stdout: '', stderr: r.message ?? `cannot run ${file}` };
      return { code: r.exitCode, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
    };
  }
  return source;
}
