/**
 * Which cluster the Snapshots view shows and how it reaches it: the selected worker when it is a
 * kubernetes profile, else the first kubernetes profile; kubectl as the settings say. Running kubectl
 * needs a trusted workspace (the kubeconfig and kubectl path may come from the workspace).
 */
import * as vscode from 'vscode';
import type { WorkerProfile } from '../../core/settings/workerProfile';
import type { ConnectionEnvironment } from '../../core/worker/types';
import { KubernetesTransport } from '../../transport/kubernetes';
import type { Ctx } from '../context';

/** What the views need from the workflow area (its service implements it). */
export interface ProfileSource {
  profiles(): WorkerProfile[];
  selectedWorker(): string | undefined;
}

export interface SnapshotsTarget {
  profile: WorkerProfile & { transport: { kind: 'kubernetes' } };
  transport: KubernetesTransport;
  env: ConnectionEnvironment;
  /** "context prod, namespace llm" for the view's description */
  where: string;
}

export function kubectlEnvironment(ctx: Ctx): ConnectionEnvironment {
  const g = ctx.config.settings.general;
  return { sshPath: g['ssh.path'], kubectlPath: g['kubectl.path'], kubeconfig: g['kubectl.kubeconfig'] || undefined, extensionRoot: ctx.extensionRoot, scratchDir: ctx.storageDir };
}

/** The kubernetes profile to show, or why there is none. */
export function snapshotsTarget(ctx: Ctx, profiles: ProfileSource | undefined): SnapshotsTarget | { none: string } {
  if (!vscode.workspace.isTrusted) return { none: 'The workspace is not trusted, so kubectl is not run.' };
  const all = profiles?.profiles() ?? [];
  const kube = all.filter((p): p is SnapshotsTarget['profile'] => p.transport.kind === 'kubernetes');
  const selected = profiles?.selectedWorker();
  const profile = kube.find((p) => p.name === selected) ?? kube[0];
  if (!profile) return { none: 'No kubernetes worker profile: add one to dynamoSnapshot.workers to see its namespace\'s snapshots.' };
  const t = profile.transport;
  const env = kubectlEnvironment(ctx);
  return {
    profile,
    env,
    transport: new KubernetesTransport(t, env, profile.timeouts.connectSeconds),
    where: [t.context ? `context ${t.context}` : '', t.namespace ? `namespace ${t.namespace}` : "the context's namespace"].filter(Boolean).join(', '),
  };
}
