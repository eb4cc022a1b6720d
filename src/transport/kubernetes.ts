/**
 * The kubernetes transport: kubectl (kubeconfig merging, exec credential plugins, proxies behave as
 * in a terminal). `kubectl exec -i POD -- argv` passes argv without any shell, so no quoting is
 * needed; the pod is resolved from the profile's name or label selector with `get -o json` (zod).
 */
import { z } from 'zod';
import type { KubernetesTransport as KubeSpec } from '../core/settings/workerProfile';
import type { ConnectionEnvironment } from '../core/worker/types';
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

/**
 * Read-only kubectl access for watching what the cluster's snapshot machinery does (the workflow's
 * `KubeSource`): raw JSON, parsed by the caller. On Kubernetes, capture and restore normally belong to
 * the snapshot agent DaemonSet, so a run there mostly observes.
 */
export interface KubeObserver {
  /** The profile's pods (by name or selector), as `get -o json` items. */
  pods(): Promise<unknown[]>;
  /** `get events -o json` of the namespace. */
  events(): Promise<unknown>;
  /** The DynamoCheckpoint named in the options, or undefined when none is named or it does not exist. */
  checkpoint?(): Promise<unknown | undefined>;
  /** The last lines of the snapshot agent's logs (when a selector is given). */
  agentLog?(): Promise<string>;
}

export interface KubeObserverOptions {
  checkpointName?: string;
  /** Label selector and namespace of the snapshot-agent DaemonSet pods. */
  agentSelector?: string;
  agentNamespace?: string;
  agentTailLines?: number;
}

export class KubernetesTransport implements WorkerTransport {
  readonly kind = 'kubernetes' as const;
  private pod: string | undefined;

  constructor(
    private readonly spec: Spec,
    private readonly env: ConnectionEnvironment,
    private readonly connectSeconds = 30,
  ) {
    this.pod = spec.pod;
  }

  get label(): string {
    return `pod ${this.spec.namespace ?? '(default namespace)'}/${this.pod ?? this.spec.selector ?? '?'}`;
  }

  baseArgs(): string[] {
    const a: string[] = [];
    if (this.env.kubeconfig) a.push('--kubeconfig', this.env.kubeconfig);
    if (this.spec.context) a.push('--context', this.spec.context);
    if (this.spec.namespace) a.push('--namespace', this.spec.namespace);
    a.push(`--request-timeout=${Math.ceil(this.connectSeconds)}s`);
    return a;
  }

  async connect(signal?: AbortSignal): Promise<void> {
    const args = this.spec.pod ? ['get', 'pod', this.spec.pod, '-o', 'json'] : ['get', 'pods', '-l', this.spec.selector!, '-o', 'json'];
    const r = await runArgv(this.env.kubectlPath, [...this.baseArgs(), ...args], { signal, timeoutMs: (this.connectSeconds + 5) * 1000 });
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
    this.pod = pod.metadata.name;
  }

  execArgs(argv: readonly string[]): string[] {
    if (!this.pod) throw new TransportError('no pod resolved yet', 'connect() first');
    const a = [...this.baseArgs(), 'exec', '-i', this.pod];
    if (this.spec.container) a.push('-c', this.spec.container);
    return [...a, '--', ...argv];
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

  /** `kubectl logs [-f] --timestamps POD [-c C]`: the pod's own output (an engine that is the pod's main process). */
  logs(o: { follow?: boolean; tailLines?: number; sinceSeconds?: number } = {}): RemoteProcess {
    if (!this.pod) throw new TransportError('no pod resolved yet', 'connect() first');
    const a = [...this.baseArgs(), 'logs', '--timestamps', this.pod];
    if (this.spec.container) a.push('-c', this.spec.container);
    if (o.follow) a.push('-f');
    if (o.tailLines !== undefined) a.push(`--tail=${o.tailLines}`);
    if (o.sinceSeconds !== undefined) a.push(`--since=${o.sinceSeconds}s`);
    // --request-timeout would cut a follow short.
    return spawnArgv(this.env.kubectlPath, o.follow ? a.filter((x) => !x.startsWith('--request-timeout')) : a);
  }

  observer(o: KubeObserverOptions = {}): KubeObserver {
    const getJson = async (args: string[], allowMissing = false): Promise<unknown> => {
      const r = await runArgv(this.env.kubectlPath, [...this.baseArgs(), ...args, '-o', 'json'], { timeoutMs: (this.connectSeconds + 5) * 1000 });
      if (r.code !== 0) {
        if (allowMissing && /NotFound|doesn't have a resource type/.test(r.stderr)) return undefined;
        throw this.failure(r.stderr);
      }
      try {
        return JSON.parse(r.stdout) as unknown;
      } catch {
        throw new TransportError(`kubectl ${args[0]} ${args[1]} printed something that is not JSON`, 'Check the kubectl path setting', r.stdout.slice(0, 200));
      }
    };
    const obs: KubeObserver = {
      pods: async () => {
        const j = await getJson(this.spec.pod ? ['get', 'pod', this.spec.pod] : ['get', 'pods', '-l', this.spec.selector!]);
        if (this.spec.pod) return [j];
        const l = PodList.safeParse(j);
        return l.success ? l.data.items : [];
      },
      events: () => getJson(['get', 'events']),
    };
    if (o.checkpointName) obs.checkpoint = () => getJson(['get', 'dynamocheckpoint', o.checkpointName!], true);
    if (o.agentSelector) {
      obs.agentLog = async () => {
        const ns = o.agentNamespace ? ['--namespace', o.agentNamespace] : [];
        const base = this.baseArgs().filter((x, i, all) => x !== '--namespace' && all[i - 1] !== '--namespace');
        const r = await runArgv(this.env.kubectlPath, [...base, ...ns, 'logs', '-l', o.agentSelector!, `--tail=${o.agentTailLines ?? 200}`, '--prefix'], {
          timeoutMs: (this.connectSeconds + 5) * 1000,
        });
        if (r.code !== 0) throw this.failure(r.stderr);
        return r.stdout;
      };
    }
    return obs;
  }

  async dispose(): Promise<void> {
    // kubectl keeps nothing open between calls.
  }
}
