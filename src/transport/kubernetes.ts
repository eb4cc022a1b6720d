/**
 * The kubernetes transport: kubectl (kubeconfig merging, exec credential plugins, proxies behave as
 * in a terminal). `kubectl exec -i POD -- argv` passes argv without any shell, so no quoting is
 * needed; the pod is resolved from the profile's name or label selector with `get -o json` (zod).
 *
 * No value can become an option (issue 13): every name is checked again here as Kubernetes names
 * are (the profile schema checks them first, with the profile and field in the message), option
 * values travel in the same word as their flag (`--namespace=NS`), and positional names sit behind
 * `--` wherever kubectl allows it (get, logs; exec's pod must precede its `--`, so there the name
 * check is what keeps it a name).
 */
import { z } from 'zod';
import { assertKubeName } from '../core/settings/kubeNames';
import type { KubernetesTransport as KubeSpec } from '../core/settings/workerProfile';
import type { ConnectionEnvironment } from '../core/worker/types';
import { KubeWatch, type WatchEvent } from './kubeWatch';
import { runArgv, spawnArgv } from './process';
import { TransportError, type ExitStatus, type RemoteProcess, type RunOptions, type RunResult, type WorkerTransport } from './types';

type Spec = z.output<typeof KubeSpec>;

const Pod = z.looseObject({
  metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }),
  spec: z.looseObject({ containers: z.array(z.looseObject({ name: z.string() })) }).optional(),
  status: z.looseObject({ phase: z.string().optional() }).optional(),
});
const PodList = z.looseObject({ items: z.array(Pod) });
export type Pod = z.output<typeof Pod>;

/** Resources of the snapshot API generations, fully qualified so no other group's short name can match. */
const RESOURCE: Record<'dynamocheckpoint' | 'podsnapshot' | 'podsnapshotcontent' | 'snapshotjob', string> = {
  dynamocheckpoint: 'dynamocheckpoints.nvidia.com',
  podsnapshot: 'podsnapshots.nvidia.com',
  podsnapshotcontent: 'podsnapshotcontents.nvidia.com',
  snapshotjob: 'snapshotjobs.nvidia.com',
};
export type SnapshotResource = keyof typeof RESOURCE;

/**
 * Read-only kubectl access for watching what the cluster's snapshot machinery does (the workflow's
 * `KubeSource`): raw JSON, parsed by the caller.
 */
export interface KubeObserver {
  /** The profile's pods (by name or selector), as `get -o json` items. */
  pods(): Promise<unknown[]>;
  /** `get events -o json` of the namespace. */
  events(): Promise<unknown>;
  /** The nvidia.com resources the cluster serves (cached per kubeconfig + context for a minute). */
  apiResources(): Promise<string[]>;
  /** One snapshot object by name; undefined when it, or its kind, does not exist. */
  object(kind: SnapshotResource, name: string): Promise<unknown | undefined>;
  /** PodSnapshots and SnapshotJobs of the namespace as one List. */
  snapshotList(): Promise<unknown>;
  /** The last lines of the snapshot agent pods' logs (`--prefix`ed with pod/container). */
  agentLog(): Promise<string>;
  /** Where the agent pods are (discovered namespace, pod count). */
  agentWhere(): Promise<string>;
}

export interface KubeObserverOptions {
  /** Label selector, container and (optional: discovered) namespace of the snapshot-agent pods. */
  agentSelector?: string;
  agentContainer?: string;
  agentNamespace?: string;
  agentTailLines?: number;
}

/** `api-resources` answers per kubeconfig + context, for a minute: discovery does not change within a run. */
const discovery = new Map<string, { at: number; names: Promise<string[]> }>();
const DISCOVERY_TTL_MS = 60_000;

export class KubernetesTransport implements WorkerTransport {
  readonly kind = 'kubernetes' as const;
  private pod: string | undefined;

  constructor(
    private readonly spec: Spec,
    private readonly env: ConnectionEnvironment,
    private readonly connectSeconds = 30,
  ) {
    // The schema validated these already; a caller that built a spec by hand gets the same check.
    if (spec.pod !== undefined) assertKubeName('pod', spec.pod, 'transport.pod');
    if (spec.namespace !== undefined) assertKubeName('namespace', spec.namespace, 'transport.namespace');
    if (spec.context !== undefined) assertKubeName('context', spec.context, 'transport.context');
    if (spec.container !== undefined) assertKubeName('container', spec.container, 'transport.container');
    if (spec.selector !== undefined) assertKubeName('selector', spec.selector, 'transport.selector');
    this.pod = spec.pod;
  }

  get label(): string {
    return `pod ${this.spec.namespace ?? '(default namespace)'}/${this.pod ?? this.spec.selector ?? '?'}`;
  }

  /** Global flags, each one word (`--flag=value`). */
  baseArgs(o: { namespace?: string | null } = {}): string[] {
    const a: string[] = [];
    if (this.env.kubeconfig) a.push(`--kubeconfig=${this.env.kubeconfig}`);
    if (this.spec.context) a.push(`--context=${this.spec.context}`);
    const ns = o.namespace === null ? undefined : (o.namespace ?? this.spec.namespace);
    if (ns) a.push(`--namespace=${ns}`);
    a.push(`--request-timeout=${Math.ceil(this.connectSeconds)}s`);
    return a;
  }

  private selection(): string[] {
    return this.spec.pod ? ['get', 'pod', '-o', 'json', '--', this.spec.pod] : ['get', 'pods', `--selector=${this.spec.selector!}`, '-o', 'json'];
  }

  async connect(signal?: AbortSignal): Promise<void> {
    const r = await runArgv(this.env.kubectlPath, [...this.baseArgs(), ...this.selection()], { signal, timeoutMs: (this.connectSeconds + 5) * 1000 });
    if (r.code !== 0) throw this.failure(r.stderr);
    let json: unknown;
    try {
      json = JSON.parse(r.stdout);
    } catch {
      throw new TransportError('kubectl get printed something that is not JSON', 'Check the kubectl path setting', r.stdout.slice(0, 200));
    }
    const pods = this.spec.pod ? [Pod.safeParse(json)] : (() => {
      const l = PodList.safeParse(json);
      return l.success ? l.data.items.map((p) => ({ success: true as const, data: p })) : [l];
    })();
    const running = pods.flatMap((p) => (p.success && p.data.status?.phase === 'Running' ? [p.data] : []));
    if (running.length === 0) {
      const what = this.spec.pod ? `pod ${this.spec.pod} is not running` : `no running pod matches ${this.spec.selector}`;
      throw new TransportError(what, 'Check the profile\'s namespace, pod/selector and context with "kubectl get pods"');
    }
    running.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const pod = running[0]!;
    if (this.spec.container && pod.spec && !pod.spec.containers.some((c) => c.name === this.spec.container)) {
      throw new TransportError(`pod ${pod.metadata.name} has no container ${this.spec.container}`, `Containers: ${pod.spec.containers.map((c) => c.name).join(', ')}`);
    }
    // A name from the API is a name, but it is about to precede exec's `--`: check it like any other.
    this.pod = assertKubeName('pod', pod.metadata.name, 'pod name from the API');
  }

  execArgs(argv: readonly string[]): string[] {
    if (!this.pod) throw new TransportError('no pod resolved yet', 'connect() first');
    const a = [...this.baseArgs(), 'exec', '-i'];
    if (this.spec.container) a.push(`--container=${this.spec.container}`);
    return [...a, this.pod, '--', ...argv];
  }

  spawn(argv: readonly string[]): RemoteProcess {
    return spawnArgv(this.env.kubectlPath, this.execArgs(argv));
  }

  run(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    return runArgv(this.env.kubectlPath, this.execArgs(argv), options);
  }

  explainFailure(status: ExitStatus, stderr: string): TransportError | undefined {
    if (status.code === 0) return undefined;
    if (/Unable to connect|connection refused|error: |Error from server/.test(stderr)) return this.failure(stderr);
    return undefined;
  }

  private failure(stderr: string): TransportError {
    const last = stderr.trim().split('\n').filter(Boolean).slice(-2).join(' | ');
    if (/NotFound/.test(last)) {
      return new TransportError(`${this.label} was not found: ${last}`, 'Check the profile\'s pod name and namespace with "kubectl get pods"', last);
    }
    return new TransportError(`kubectl could not reach ${this.label}: ${last}`, 'Try "kubectl get pods" with the same context and namespace in a terminal', last);
  }

  /** `kubectl logs [-f] --timestamps [--container=C] -- POD`: the pod's own output (an engine that is the pod's main process). */
  logs(o: { follow?: boolean; tailLines?: number; sinceSeconds?: number; pod?: string } = {}): RemoteProcess {
    const pod = o.pod === undefined ? this.pod : assertKubeName('pod', o.pod, 'pod');
    if (!pod) throw new TransportError('no pod resolved yet', 'connect() first');
    // --request-timeout would cut a follow short.
    const a = [...this.baseArgs().filter((x) => !(o.follow && x.startsWith('--request-timeout'))), 'logs', '--timestamps'];
    if (this.spec.container) a.push(`--container=${this.spec.container}`);
    if (o.follow) a.push('--follow');
    if (o.tailLines !== undefined) a.push(`--tail=${o.tailLines}`);
    if (o.sinceSeconds !== undefined) a.push(`--since=${o.sinceSeconds}s`);
    return spawnArgv(this.env.kubectlPath, [...a, '--', pod]);
  }

  /** The last lines of one pod container's log (not the profile's pod necessarily). */
  async podLog(pod: string, container: string | undefined, tailLines = 500): Promise<string> {
    assertKubeName('pod', pod, 'pod');
    const args = [...this.baseArgs(), 'logs', `--tail=${tailLines}`];
    if (container) args.push(`--container=${assertKubeName('container', container, 'container')}`);
    const r = await runArgv(this.env.kubectlPath, [...args, '--', pod], { timeoutMs: (this.connectSeconds + 5) * 1000 });
    // split() always yields a string, so an empty stderr needs `||` to fall back on the exit status.
    if (r.code !== 0) throw new Error(`kubectl logs ${pod}: ${r.stderr.trim().split('\n').at(-1) || `exit ${r.code}`}`);
    return r.stdout;
  }

  private async getJson(args: string[], o: { allowMissing?: boolean; namespace?: string | null } = {}): Promise<unknown> {
    const r = await runArgv(this.env.kubectlPath, [...this.baseArgs({ namespace: o.namespace }), ...args], { timeoutMs: (this.connectSeconds + 5) * 1000 });
    if (r.code !== 0) {
      if (o.allowMissing && /NotFound|doesn't have a resource type|the server could not find the requested resource/.test(r.stderr)) return undefined;
      throw this.failure(r.stderr);
    }
    try {
      return JSON.parse(r.stdout) as unknown;
    } catch {
      throw new TransportError(`kubectl ${args.slice(0, 2).join(' ')} printed something that is not JSON`, 'Check the kubectl path setting', r.stdout.slice(0, 200));
    }
  }

  /** An object as YAML (read-only views): `get RESOURCE -o yaml -- NAME`. */
  async getYaml(kind: SnapshotResource | 'pod', name: string): Promise<string> {
    assertKubeName(kind === 'pod' ? 'pod' : 'object', name, kind);
    const r = await runArgv(this.env.kubectlPath, [...this.baseArgs({ namespace: kind === 'podsnapshotcontent' ? null : undefined }), 'get', kind === 'pod' ? 'pod' : RESOURCE[kind], '-o', 'yaml', '--', name], { timeoutMs: (this.connectSeconds + 5) * 1000 });
    if (r.code !== 0) throw this.failure(r.stderr);
    return r.stdout;
  }

  /** `kubectl api-resources --api-group=nvidia.com -o name`, cached per kubeconfig + context. */
  apiResources(): Promise<string[]> {
    const key = `${this.env.kubectlPath}\0${this.env.kubeconfig ?? ''}\0${this.spec.context ?? ''}`;
    const hit = discovery.get(key);
    if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.names;
    const names = runArgv(this.env.kubectlPath, [...this.baseArgs({ namespace: null }), 'api-resources', '--api-group=nvidia.com', '-o', 'name'], { timeoutMs: (this.connectSeconds + 5) * 1000 }).then((r) => {
      if (r.code !== 0) throw this.failure(r.stderr);
      return r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
    });
    discovery.set(key, { at: Date.now(), names });
    // A failure is not remembered: the next call asks again.
    names.catch(() => discovery.delete(key));
    return names;
  }

  observer(o: KubeObserverOptions = {}): KubeObserver {
    const selector = o.agentSelector ? assertKubeName('selector', o.agentSelector, 'kubernetes.agentSelector') : undefined;
    const container = o.agentContainer ? assertKubeName('container', o.agentContainer, 'kubernetes.agentContainer') : undefined;
    if (o.agentNamespace) assertKubeName('namespace', o.agentNamespace, 'kubernetes.agentNamespace');
    let agentNs: Promise<{ namespace?: string; pods: number; how: string }> | undefined;
    const findAgent = () =>
      (agentNs ??= (async () => {
        if (!selector) return { pods: 0, how: 'no agent selector' };
        if (o.agentNamespace) {
          const j = await this.getJson(['get', 'pods', `--selector=${selector}`, '-o', 'json'], { namespace: o.agentNamespace });
          const n = PodList.safeParse(j).data?.items.length ?? 0;
          return { namespace: o.agentNamespace, pods: n, how: `namespace ${o.agentNamespace} (kubernetes.agentNamespace), ${n} pod${n === 1 ? '' : 's'}` };
        }
        // Discovered: the namespace most of the selector's pods run in, cluster-wide; where listing
        // pods cluster-wide is not allowed, the profile's own namespace.
        let j: unknown;
        let fallback = '';
        try {
          j = await this.getJson(['get', 'pods', '--all-namespaces', `--selector=${selector}`, '-o', 'json'], { namespace: null });
        } catch (e) {
          if (!/forbidden|Forbidden/.test(e instanceof Error ? e.message : String(e))) throw e;
          j = await this.getJson(['get', 'pods', `--selector=${selector}`, '-o', 'json']);
          fallback = ' (listing pods in all namespaces is forbidden, so only the profile\'s namespace was searched)';
        }
        const items = PodList.safeParse(j).data?.items ?? [];
        const count = new Map<string, number>();
        for (const p of items) if (p.metadata.namespace) count.set(p.metadata.namespace, (count.get(p.metadata.namespace) ?? 0) + 1);
        const best = [...count.entries()].sort((a, b) => b[1] - a[1])[0];
        if (!best) throw new Error(`no pod matches ${selector} in ${fallback ? 'the profile\'s namespace' : 'any namespace'}${fallback}`);
        return { namespace: best[0], pods: best[1], how: `namespace ${best[0]} (discovered${fallback}), ${best[1]} pod${best[1] === 1 ? '' : 's'}` };
      })().catch((e: unknown) => {
        agentNs = undefined;
        throw e;
      }));
    return {
      pods: async () => {
        const j = await this.getJson(this.selection());
        if (this.spec.pod) return [j];
        const l = PodList.safeParse(j);
        return l.success ? l.data.items : [];
      },
      events: () => this.getJson(['get', 'events', '-o', 'json']),
      apiResources: () => this.apiResources(),
      object: async (kind, name) => {
        assertKubeName('object', name, kind);
        return this.getJson(['get', RESOURCE[kind], '-o', 'json', '--', name], { allowMissing: true, namespace: kind === 'podsnapshotcontent' ? null : undefined });
      },
      snapshotList: () => this.getJson(['get', `${RESOURCE.podsnapshot},${RESOURCE.snapshotjob}`, '-o', 'json']),
      agentLog: async () => {
        const where = await findAgent();
        const args = [...this.baseArgs({ namespace: where.namespace ?? null }), 'logs', `--selector=${selector!}`, `--tail=${o.agentTailLines ?? 200}`, '--prefix'];
        if (container) args.push(`--container=${container}`);
        const r = await runArgv(this.env.kubectlPath, args, { timeoutMs: (this.connectSeconds + 5) * 1000 });
        if (r.code !== 0) throw this.failure(r.stderr);
        return r.stdout;
      },
      agentWhere: async () => (await findAgent()).how,
    };
  }

  /**
   * `kubectl get RESOURCE --watch --output-watch-events -o json`: one long-lived kubectl per
   * resource, events parsed as they arrive (the Snapshots view). Cluster-scoped resources ignore the
   * namespace. Stop it with `stop()`.
   */
  watch(resource: SnapshotResource | 'pods' | 'events', onEvent: (e: WatchEvent) => void, onEnd: (why: string) => void): KubeWatch {
    const cluster = resource === 'podsnapshotcontent';
    const what = resource === 'pods' || resource === 'events' ? resource : RESOURCE[resource];
    const args = [...this.baseArgs({ namespace: cluster ? null : undefined }).filter((x) => !x.startsWith('--request-timeout')), 'get', what, '--watch', '--output-watch-events', '-o', 'json'];
    return new KubeWatch(spawnArgv(this.env.kubectlPath, args), onEvent, onEnd);
  }

  async dispose(): Promise<void> {
    // kubectl keeps nothing open between calls.
  }
}
