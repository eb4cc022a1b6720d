/**
 * Plays a scripted snapshot cycle (test/unit/workflow/support/kubeScenario.ts) on a real API server
 * (kubeCluster.ts): as the scenario moves on, its pods, custom objects and events are created and
 * patched the way their owners would write them — objects first, status through the status
 * subresource (the kubelet's part for pods, the operator's and the agent's for the snapshot objects),
 * labels and annotations by merge patch — and the pods' logs are served by the cluster's node. Every
 * write is validated by the API server against the CRDs, so a scripted object that upstream's schema
 * would refuse fails the test here.
 */
import type { KubeCluster } from './kubeCluster';
import { podJson, type KubeScenario, type ScenarioPod } from '../../unit/workflow/support/kubeScenario';

const PLURAL: Record<string, string> = { PodSnapshot: 'podsnapshots', PodSnapshotContent: 'podsnapshotcontents', SnapshotJob: 'snapshotjobs', DynamoCheckpoint: 'dynamocheckpoints' };
const MERGE = 'application/merge-patch+json';

/** A merge patch turning `from` into `to` for a string map (removed keys become null). */
function mapPatch(from: Record<string, string>, to: Record<string, string>): Record<string, string | null> | undefined {
  const p: Record<string, string | null> = {};
  for (const k of Object.keys(from)) if (!(k in to)) p[k] = null;
  for (const [k, v] of Object.entries(to)) if (from[k] !== v) p[k] = v;
  return Object.keys(p).length ? p : undefined;
}

export class ScenarioOnCluster {
  private readonly seen = new Map<string, { labels: Record<string, string>; annotations: Record<string, string>; status: string }>();
  private events = 0;
  private stopped = false;
  private loop?: Promise<void>;
  /** Writes the API server refused (each one a failed test: the scenario broke the schema). */
  readonly refused: string[] = [];

  constructor(private readonly c: KubeCluster, readonly sc: KubeScenario) {}

  async setup(): Promise<void> {
    for (const ns of new Set([this.sc.ns, this.sc.agent.namespace])) {
      const r = await this.c.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      if (r.status !== 201 && r.status !== 409) throw new Error(`namespace ${ns}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    await this.sync();
  }

  private async write(method: string, p: string, body: unknown, type?: string): Promise<void> {
    const r = await this.c.request(method, p, body, type);
    if (r.status < 200 || r.status > 299) this.refused.push(`${method} ${p} → ${r.status}: ${JSON.stringify(r.body).slice(0, 800)}`);
  }

  private async pod(p: ScenarioPod): Promise<void> {
    const j = podJson(p) as { metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> }; spec: unknown; status: unknown };
    const base = `/api/v1/namespaces/${p.namespace}/pods`;
    const key = `pod/${p.namespace}/${p.name}`;
    const was = this.seen.get(key);
    const status = JSON.stringify(j.status);
    if (!was) {
      await this.write('POST', base, { apiVersion: 'v1', kind: 'Pod', metadata: { name: p.name, labels: j.metadata.labels, annotations: j.metadata.annotations }, spec: j.spec });
      await this.write('PATCH', `${base}/${p.name}/status`, { status: j.status }, MERGE);
    } else {
      const labels = mapPatch(was.labels, j.metadata.labels);
      const annotations = mapPatch(was.annotations, j.metadata.annotations);
      if (labels || annotations) await this.write('PATCH', `${base}/${p.name}`, { metadata: { ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) } }, MERGE);
      if (status !== was.status) await this.write('PATCH', `${base}/${p.name}/status`, { status: j.status }, MERGE);
    }
    this.seen.set(key, { labels: { ...j.metadata.labels }, annotations: { ...j.metadata.annotations }, status });
    this.c.logs.set(`${p.namespace}/${p.name}/${p.container}`, p.log);
  }

  private async object(o: Record<string, unknown>): Promise<void> {
    const kind = o.kind as string;
    const meta = o.metadata as { name: string; namespace?: string };
    const base = meta.namespace ? `/apis/nvidia.com/v1alpha1/namespaces/${meta.namespace}/${PLURAL[kind]}` : `/apis/nvidia.com/v1alpha1/${PLURAL[kind]}`;
    const key = `${kind}/${meta.namespace ?? ''}/${meta.name}`;
    const status = JSON.stringify(o.status ?? {});
    const was = this.seen.get(key);
    if (!was) {
      const { status: _s, ...rest } = o;
      await this.write('POST', base, rest);
    }
    if (!was || was.status !== status) await this.write('PATCH', `${base}/${meta.name}/status`, { status: o.status ?? {} }, MERGE);
    this.seen.set(key, { labels: {}, annotations: {}, status });
  }

  /** Moves the scenario on and writes what changed. */
  async sync(): Promise<void> {
    this.sc.tick();
    for (const p of [...this.sc.workerPods(), this.sc.agent]) await this.pod(p);
    // Contents are cluster-scoped and made by the operator before the agent's status.
    const objects = [...this.sc.objects.values()].sort((a, b) => Number(a.kind !== 'PodSnapshotContent') - Number(b.kind !== 'PodSnapshotContent'));
    for (const o of objects) await this.object(o);
    for (; this.events < this.sc.events.length; this.events++) await this.write('POST', `/api/v1/namespaces/${this.sc.ns}/events`, this.sc.events[this.events]);
  }

  /** Keeps syncing every `ms` until stop(); bounded by the caller's test timeout. */
  start(ms = 50): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.sync().catch((e: unknown) => this.refused.push(String(e)));
        await new Promise((r) => setTimeout(r, ms));
      }
    })();
  }

  /** Stops syncing and removes the agent pod (the next scenario brings its own; no kubelet, so no grace period). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await this.c.request('DELETE', `/api/v1/namespaces/${this.sc.agent.namespace}/pods/${this.sc.agent.name}`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
  }
}
