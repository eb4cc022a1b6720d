/**
 * The kubectl / snapshotctl side of a kubernetes observe-mode run (`profile.kubernetes`): the
 * transport's read-only observer (pods, events, DynamoCheckpoint, snapshot-agent logs) plus pod logs
 * and snapshotctl, as the workflow's `KubeRunSource`. Used by the CLI and the extension.
 */
import { execa } from 'execa';
import type { WorkerProfile } from '../core/settings/workerProfile';
import type { ConnectionEnvironment } from '../core/worker/types';
import type { KubeRunSource } from '../core/workflow/kube/steps';
import { KubernetesTransport } from '../transport/kubernetes';
import { runArgv } from '../transport/process';

/** undefined unless the profile is a kubernetes profile in observe mode. */
export function kubeSourceFor(profile: WorkerProfile, env: ConnectionEnvironment): KubeRunSource | undefined {
  const k = profile.kubernetes;
  const t = profile.transport;
  if (!k || t.kind !== 'kubernetes') return undefined;
  const connectSeconds = profile.timeouts.connectSeconds;
  const tr = new KubernetesTransport(t, env, connectSeconds);
  const obs = tr.observer({ checkpointName: k.checkpoint, agentSelector: k.agentSelector, agentNamespace: k.agentNamespace });
  const source: KubeRunSource = {
    pods: () => obs.pods(),
    events: () => obs.events(),
    podLog: async (pod, container) => {
      const args = [...tr.baseArgs(), 'logs', pod, '--tail=500'];
      if (container) args.push('-c', container);
      const r = await runArgv(env.kubectlPath, args, { timeoutMs: (connectSeconds + 5) * 1000 });
      // split() always yields a string, so an empty stderr needs `||` to fall back on the exit status.
      if (r.code !== 0) throw new Error(`kubectl logs ${pod}: ${r.stderr.trim().split('\n').at(-1) || `exit ${r.code}`}`);
      return r.stdout;
    },
  };
  if (obs.checkpoint) source.checkpoint = () => obs.checkpoint!();
  if (obs.agentLog) source.agentLog = () => obs.agentLog!();
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
