/**
 * Worker profiles (`dynamoSnapshot.workers`): the one place they are typed and validated.
 * Used by the extension, the CLI (`--config FILE`) and the tests; no `vscode` import.
 */
import { z } from 'zod';
import { kubeNameProblem, type KubeNameKind } from './kubeNames';

const positiveSeconds = (what: string, dflt: number) => {
  const message = `${what} must be a finite number of seconds greater than 0`;
  return z
    .number({ error: message })
    .refine((n) => Number.isFinite(n) && n > 0, { message })
    .default(dflt);
};

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A name kubectl gets as an argument: validated as Kubernetes validates it, so it can never become an option. */
const kubeName = (kind: KubeNameKind) =>
  z.string().superRefine((v, ctx) => {
    const problem = kubeNameProblem(kind, v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const LocalTransport = z.strictObject({ kind: z.literal('local') });

export const SshTransport = z.strictObject({
  kind: z.literal('ssh'),
  /** An SSH config alias (preferred) or a host name. */
  host: z.string().min(1, 'host must name an SSH config alias or a host').refine((h) => !h.startsWith('-'), 'host must not start with "-"'),
  user: z.string().min(1).regex(/^[A-Za-z0-9._][A-Za-z0-9._-]*$/, 'user must be a plain user name').optional(),
  port: z.number().int().min(1).max(65535).optional(),
  identityFile: z.string().min(1).optional(),
  /** Extra `-o` options, each `Key=Value` (e.g. `ProxyJump=bastion`). */
  options: z.array(z.string().regex(/^[A-Za-z][A-Za-z0-9]*=.+$/s, 'each option must look like Key=Value')).default([]),
});

export const KubernetesTransport = z
  .strictObject({
    kind: z.literal('kubernetes'),
    context: kubeName('context').optional(),
    namespace: kubeName('namespace').optional(),
    pod: kubeName('pod').optional(),
    selector: kubeName('selector').optional(),
    container: kubeName('container').optional(),
  })
  .refine((t) => Boolean(t.pod) !== Boolean(t.selector), { message: 'name exactly one of pod or selector' });

export const Transport = z.discriminatedUnion('kind', [LocalTransport, SshTransport, KubernetesTransport]);

export const Backend = z.enum(['vllm', 'sglang', 'trtllm', 'custom']);
export const CaptureMode = z.enum(['protocol', 'criu', 'command']);

export const SmokeSettings = z.strictObject({
  /** Base URL of the restored worker's OpenAI-compatible server, e.g. http://127.0.0.1:8000. `${port}` is replaced by the port the worker reports. */
  url: z.string().min(1).default('http://127.0.0.1:${port}'),
  model: z.string().min(1).optional(),
  requests: z.number().int().min(1).max(1000).default(5),
  prompt: z.string().min(1).default('The capital of France is'),
  maxTokens: z.number().int().min(1).max(4096).default(16),
});

export const Timeouts = z.strictObject({
  connectSeconds: positiveSeconds('timeouts.connectSeconds', 30),
  readySeconds: positiveSeconds('timeouts.readySeconds', 900),
  warmupSeconds: positiveSeconds('timeouts.warmupSeconds', 600),
  captureSeconds: positiveSeconds('timeouts.captureSeconds', 600),
  exitSeconds: positiveSeconds('timeouts.exitSeconds', 60),
  restoreSeconds: positiveSeconds('timeouts.restoreSeconds', 600),
  requestSeconds: positiveSeconds('timeouts.requestSeconds', 60),
});

export const CriuSettings = z.strictObject({
  /** criu executable on the worker. */
  path: z.string().min(1).default('criu'),
  /** cuda-checkpoint executable; when absent the agent uses the driver API through ctypes. */
  cudaCheckpointPath: z.string().min(1).optional(),
  extraArgs: z.array(z.string()).default([]),
  /** Extra arguments for `criu restore` (e.g. `--tcp-established`). */
  restoreExtraArgs: z.array(z.string()).default([]),
});

/**
 * Observe mode for a kubernetes profile: Dynamo's snapshot agent captures and restores, the run
 * watches it (pods, annotations, events, the checkpoint object, the agent's timing summaries) and,
 * with `snapshotctl`, triggers it. Absent: a kubernetes profile runs the agent inside the pod.
 */
/** The snapshot agent DaemonSet as ai-dynamo/snapshot's chart labels it (charts/snapshot/templates/daemonset.yaml). */
export const DEFAULT_AGENT_SELECTOR = 'app.kubernetes.io/name=snapshot,app.kubernetes.io/component=snapshot-agent';
export const DEFAULT_AGENT_CONTAINER = 'agent';

export const KubernetesObserve = z
  .strictObject({
    /**
     * The snapshot object to watch for capture, in whichever API the cluster serves: a `PodSnapshot`
     * (ai-dynamo/snapshot) or, on clusters from before dynamo#14076, a `DynamoCheckpoint`.
     */
    checkpoint: kubeName('object').optional(),
    /** Same as `checkpoint` (the clearer name on today's API); give one of them. */
    snapshot: kubeName('object').optional(),
    /** Namespace of the snapshot-agent DaemonSet pods; discovered from the selector when absent. */
    agentNamespace: kubeName('namespace').optional(),
    /** Label selector of the snapshot-agent pods (their logs carry the timing summaries). */
    agentSelector: kubeName('selector').default(DEFAULT_AGENT_SELECTOR),
    /** The agent pods' container whose log is read. */
    agentContainer: kubeName('container').default(DEFAULT_AGENT_CONTAINER),
    /** snapshotctl argv prefix (e.g. ["snapshotctl"]); when set, the run triggers checkpoint / restore with it. */
    snapshotctl: z.array(z.string().min(1)).min(1, 'snapshotctl must be a non-empty argv list').optional(),
    /** Pod manifest for `snapshotctl checkpoint --manifest` (a local path). */
    manifest: z.string().min(1).optional(),
    /** Pod manifest for `snapshotctl restore --manifest` (today's snapshotctl creates the restore pod from it; default: `manifest`). */
    restoreManifest: z.string().min(1).optional(),
    /** Older snapshotctl only: checkpoint id for `--checkpoint-id` / `--checkpoint-hash` (default: the restore pod's label). */
    checkpointId: kubeName('id').optional(),
    /** Older snapshotctl only: restore target pod for `snapshotctl restore --pod` (default: the pod marked restore target). */
    restorePod: kubeName('pod').optional(),
    /** How often the cluster is polled while a step waits. */
    pollSeconds: z.number({ error: 'kubernetes.pollSeconds must be a number of seconds' }).min(0.01).max(60).default(2),
  })
  .refine((k) => !k.checkpoint || !k.snapshot || k.checkpoint === k.snapshot, {
    message: 'kubernetes.checkpoint and kubernetes.snapshot name the same object; give one of them',
    path: ['snapshot'],
  });

/** The snapshot object a profile names, under either field. */
export function snapshotObjectName(k: z.output<typeof KubernetesObserve>): string | undefined {
  return k.snapshot ?? k.checkpoint;
}

export const WorkerProfile = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'name must be 1–64 letters, digits, ".", "_" or "-"'),
    description: z.string().optional(),
    transport: Transport.default({ kind: 'local' }),
    backend: Backend.default('vllm'),
    /** Launch command as argv; never run through a local shell. Not needed in Kubernetes observe mode, where the operator starts the worker. */
    command: z.array(z.string()).default([]),
    env: z
      .record(z.string(), z.string())
      .default({})
      .refine((e) => Object.keys(e).every((k) => envName.test(k)), { message: 'env names must match [A-Za-z_][A-Za-z0-9_]*' }),
    cwd: z.string().min(1).optional(),
    python: z.string().min(1).default('python3'),
    /** Control directory on the worker; default: a fresh one under the run directory. */
    controlDir: z.string().min(1).optional(),
    captureMode: CaptureMode.default('protocol'),
    captureCommand: z.array(z.string()).min(1).optional(),
    /** Written to restore-context.json as `{"env": …}` before restore-complete; `null` unsets a variable in the restored worker. */
    restoreContextEnv: z
      .record(z.string(), z.string().nullable())
      .default({})
      .refine((e) => Object.keys(e).every((k) => envName.test(k)), { message: 'restoreContextEnv names must match [A-Za-z_][A-Za-z0-9_]*' }),
    /** Expected data-parallel ranks (warm-up must be seen on each); default: the ranks seen in the logs. */
    dataParallelSize: z.number().int().min(1).max(1024).optional(),
    smoke: SmokeSettings.default(SmokeSettings.parse({})),
    timeouts: Timeouts.default(Timeouts.parse({})),
    criu: CriuSettings.default(CriuSettings.parse({})),
    /** Kubernetes observe mode (see KubernetesObserve); only with `transport.kind: "kubernetes"`. */
    kubernetes: KubernetesObserve.optional(),
  })
  .refine((p) => p.command.length > 0 || p.kubernetes !== undefined, {
    message: 'command must be a non-empty argv list (only a kubernetes profile in observe mode may leave it out)',
    path: ['command'],
  })
  .refine((p) => p.kubernetes === undefined || p.transport.kind === 'kubernetes', {
    message: 'kubernetes (observe mode) needs transport.kind "kubernetes"',
    path: ['kubernetes'],
  })
  .refine((p) => p.captureMode !== 'command' || (p.captureCommand?.length ?? 0) > 0, {
    message: 'captureCommand is required when captureMode is "command"',
    path: ['captureCommand'],
  });

export type WorkerProfile = z.output<typeof WorkerProfile>;
export type WorkerProfileInput = z.input<typeof WorkerProfile>;
export type TransportSpec = z.output<typeof Transport>;

export const LOCAL_DEMO = 'local-demo';

/** One problem with one profile, phrased for a person: which profile, which field, what was expected. */
export interface ProfileProblem {
  profile: string;
  field: string;
  message: string;
}

export function describeIssue(profile: string, issue: z.core.$ZodIssue): ProfileProblem {
  const field = issue.path.map(String).join('.') || '(profile)';
  let message = issue.message;
  if (issue.code === 'invalid_type' && /received undefined/.test(message)) message = `${field} is required`;
  if (issue.code === 'unrecognized_keys') message = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return { profile, field, message };
}

export function formatProblem(p: ProfileProblem, setting = 'dynamoSnapshot.workers'): string {
  return `${setting}: worker profile "${p.profile}": ${p.field}: ${p.message}`;
}

/**
 * Parses the raw `dynamoSnapshot.workers` value. Valid profiles are kept even when others are wrong,
 * so one typo never hides every worker.
 */
export function parseWorkerProfiles(raw: unknown): { profiles: WorkerProfile[]; problems: ProfileProblem[] } {
  const problems: ProfileProblem[] = [];
  const profiles: WorkerProfile[] = [];
  if (raw === undefined || raw === null) return { profiles, problems };
  if (!Array.isArray(raw)) {
    problems.push({ profile: '(all)', field: '(setting)', message: 'must be a list of worker profiles' });
    return { profiles, problems };
  }
  const seen = new Set<string>();
  raw.forEach((entry, i) => {
    const label = typeof entry === 'object' && entry !== null && typeof (entry as { name?: unknown }).name === 'string'
      ? (entry as { name: string }).name
      : `#${i + 1}`;
    const r = WorkerProfile.safeParse(entry);
    if (!r.success) {
      for (const issue of r.error.issues) problems.push(describeIssue(label, issue));
      return;
    }
    if (seen.has(r.data.name)) {
      problems.push({ profile: r.data.name, field: 'name', message: 'another profile has the same name' });
      return;
    }
    seen.add(r.data.name);
    profiles.push(r.data);
  });
  return { profiles, problems };
}
