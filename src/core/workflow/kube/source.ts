/**
 * What a Kubernetes observe-mode run reads and runs: raw kubectl output (parsed in this folder, so
 * the transport stays a pipe) and snapshotctl. Provided by the kubernetes transport's observer
 * (src/transport/kubernetes.ts) for the product and by scripted clusters in the tests.
 */

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export type SnapshotObjectKind = 'dynamocheckpoint' | 'podsnapshot' | 'podsnapshotcontent';

export interface KubeSource {
  /** The profile's pods (by name or selector), as `get -o json` items. */
  pods(): Promise<unknown[]>;
  /** `get events -o json` of the namespace. */
  events(): Promise<unknown>;
  /**
   * The `nvidia.com` resources the cluster serves (`kubectl api-resources --api-group=nvidia.com
   * -o name`), cached per context by the provider; absent: the generation is unknown.
   */
  apiResources?(): Promise<string[]>;
  /** One object by name, undefined when it does not exist (or its kind is not served). */
  object?(kind: SnapshotObjectKind, name: string): Promise<unknown | undefined>;
  /** The namespace's PodSnapshots and SnapshotJobs as one List (`get podsnapshots,snapshotjobs -o json`). */
  snapshotList?(): Promise<unknown>;
  /** The last lines of the snapshot agent pods' logs (`kubectl logs -l SEL --prefix`). */
  agentLog?(): Promise<string>;
  /** Where the agent pods were found ("namespace snapshot-system, 2 pods"), for the preflight. */
  agentWhere?(): Promise<string>;
}

/** What a kubernetes run observes through (kubectl via the transport) and triggers with (snapshotctl). */
export interface KubeRunSource extends KubeSource {
  /** Runs the profile's snapshotctl with these arguments (absent: no snapshotctl configured). */
  snapshotctl?(args: string[], signal: AbortSignal): Promise<CommandResult>;
  /** The last lines of a pod container's own log (`kubectl logs`), for warm-up / resume lines and exit evidence. */
  podLog?(pod: string, container: string | undefined): Promise<string>;
}
