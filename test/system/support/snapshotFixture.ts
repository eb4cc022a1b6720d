/**
 * A real API server holding a namespace of finished snapshot cycles, for the Snapshots view's host
 * and UI tests: `llama-snap` captured (content Ready, SnapshotJob Completed) and restored into
 * `llama-restore-0` (RestoreSucceeded) and `llama-restore-1` (RestoreIncompatible: memory-limit),
 * and `qwen-snap` whose capture failed. Written by playing the scripted scenarios on the cluster.
 */
import type { KubeCluster } from './kubeCluster';
import { installCrds, startKubeCluster } from './kubeCluster';
import { ScenarioOnCluster } from './scenarioOnCluster';
import { SNAPSHOT_API_CRDS } from './snapshotCrds';
import { INCOMPATIBLE_MESSAGE, KubeScenario } from '../../unit/workflow/support/kubeScenario';

export interface SnapshotFixture {
  cluster: KubeCluster;
  namespace: string;
  /** a worker profile for this cluster (the view shows its namespace) */
  profile: Record<string, unknown>;
  stop(): Promise<void>;
}

async function playToEnd(c: KubeCluster, sc: KubeScenario, done: () => boolean): Promise<void> {
  const play = new ScenarioOnCluster(c, sc);
  await play.setup();
  const end = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > end) throw new Error(`scenario ${sc.snapshotName} did not finish within 60 s`);
    await new Promise((r) => setTimeout(r, 40));
    await play.sync();
  }
  if (play.refused.length) throw new Error(`the API server refused: ${play.refused.join('; ')}`);
}

export async function startSnapshotFixture(dir: string): Promise<SnapshotFixture> {
  const cluster = await startKubeCluster(dir);
  try {
    await installCrds(cluster, SNAPSHOT_API_CRDS);
    const namespace = 'llm';
    const llama = new KubeScenario({ namespace, readyMs: 50, stepMs: 1100 });
    await playToEnd(cluster, llama, () => llama.target?.conditions.some((x) => (x as { status?: string; type: string }).type === 'nvidia.com/Restored' && (x as { status: string }).status === 'True') ?? false);
    // A second pod restored from the same snapshot, refused on a smaller memory limit.
    const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    await cluster.must('POST', `/api/v1/namespaces/${namespace}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'llama-restore-1', labels: { app: 'llama' }, annotations: { 'nvidia.com/restore-from': llama.snapshotName } }, spec: { nodeName: 'node-a', containers: [{ name: 'main', image: 'registry.example/vllm-worker:1.6.1', resources: { limits: { memory: '1Gi' } } }] } });
    await cluster.must('PATCH', `/api/v1/namespaces/${namespace}/pods/llama-restore-1/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }, { type: 'nvidia.com/Restored', status: 'False', reason: 'RestoreIncompatible', message: INCOMPATIBLE_MESSAGE, lastTransitionTime: now }] } }, 'application/merge-patch+json');
    const qwen = new KubeScenario({ namespace, prefix: 'qwen', checkpointFails: true, readyMs: 50, stepMs: 100 });
    await playToEnd(cluster, qwen, () => qwen.objects.get(`PodSnapshot/${qwen.snapshotName}`)?.status !== undefined && JSON.stringify(qwen.objects.get(`PodSnapshot/${qwen.snapshotName}`)!.status).includes('Failed'));
    return {
      cluster,
      namespace,
      profile: { name: 'kube-llama', transport: { kind: 'kubernetes', context: 'dsw-test', namespace, selector: 'app=llama', container: 'main' }, kubernetes: { snapshot: llama.snapshotName } },
      stop: () => cluster.stop(),
    };
  } catch (e) {
    await cluster.stop();
    throw e;
  }
}
