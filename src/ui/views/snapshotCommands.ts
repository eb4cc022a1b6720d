/**
 * The Snapshots view's actions: open an object's YAML (read-only), show the agent's log lines about a
 * snapshot, compare two snapshots (their facts side by side in a diff editor), and restore from a
 * snapshot with the profile's snapshotctl (its generation detected from `--help`, every value in its
 * flag's word, `--kube-context` passed where it exists). Cluster text is shown in read-only virtual
 * documents (`dynamo-snapshot-k8s:`), never as markup.
 */
import * as vscode from 'vscode';
import { kubeSourceFor } from '../../cli/kubeSource';
import { DEFAULT_AGENT_CONTAINER, DEFAULT_AGENT_SELECTOR } from '../../core/settings/workerProfile';
import { snapshotFacts } from '../../core/views/snapshots/facts';
import type { SnapshotRow } from '../../core/views/snapshots/tree';
import { parseSnapshotctl, snapshotctlArgs, snapshotctlGeneration, snapshotctlMissing } from '../../core/workflow/kube/snapshotctl';
import type { CommandSpec } from '../commands/table';
import type { Ctx } from '../context';
import { kubectlEnvironment } from './snapshotsCluster';
import type { SnapshotsTree } from './snapshotsTree';

export const K8S_SCHEME = 'dynamo-snapshot-k8s';

/** Read-only documents with cluster text: set once, shown as plain text. */
export class K8sDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(K8S_SCHEME, this);

  set(path: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: K8S_SCHEME, path });
    this.texts.set(uri.toString(), text);
    this.emitter.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  dispose(): void {
    this.registration.dispose();
    this.emitter.dispose();
  }
}

interface Parts {
  tree: SnapshotsTree;
  docs: K8sDocuments;
}

function target(p: Parts) {
  const t = p.tree.target;
  if ('none' in t) throw new Error(t.none);
  return t;
}

function rowArg(p: Parts, arg: unknown): SnapshotRow {
  const row = (arg as SnapshotRow | undefined) ?? p.tree.view.selection[0];
  if (!row?.object) throw new Error('select a snapshot, content, job or pod in the Snapshots view first');
  return row;
}

const RESOURCE = { PodSnapshot: 'podsnapshot', PodSnapshotContent: 'podsnapshotcontent', SnapshotJob: 'snapshotjob', Pod: 'pod' } as const;

export async function openYaml(p: Parts, arg: unknown): Promise<void> {
  const row = rowArg(p, arg);
  const o = row.object!;
  const t = target(p);
  const yaml = await t.transport.getYaml(RESOURCE[o.kind], o.name);
  const uri = p.docs.set(`/${o.namespace ?? '(cluster)'}/${o.kind}/${o.name}.yaml`, yaml);
  const doc = await vscode.workspace.openTextDocument(uri);
  await Promise.resolve(vscode.languages.setTextDocumentLanguage(doc, 'yaml')).catch(() => doc);
  await vscode.window.showTextDocument(doc, { preview: true });
}

/** The agent's log lines that name the snapshot, its content, its source pod or a pod restored from it. */
export async function showAgentLog(p: Parts, arg: unknown): Promise<void> {
  const row = rowArg(p, arg);
  const t = target(p);
  const k = t.profile.kubernetes;
  const store = p.tree.store;
  const s = row.snapshot ? store.snapshots.get(row.snapshot) : undefined;
  const c = s ? store.contentOf(s) : undefined;
  const names = [s?.name, s?.contentName, c?.name, c?.uid, s?.sourcePod, ...(s ? store.restoredFrom(s).map((r) => r.pod.name) : []), row.object?.name].filter((x): x is string => Boolean(x));
  const obs = t.transport.observer({ agentSelector: k?.agentSelector ?? DEFAULT_AGENT_SELECTOR, agentContainer: k?.agentContainer ?? DEFAULT_AGENT_CONTAINER, agentNamespace: k?.agentNamespace, agentTailLines: 5000 });
  const [where, log] = await Promise.all([obs.agentWhere().catch((e: unknown) => `agent pods not found: ${e instanceof Error ? e.message : String(e)}`), obs.agentLog()]);
  const lines = log.split('\n').filter((l) => names.some((n) => l.includes(n)));
  const text = [`# snapshot agent: ${where}`, `# lines naming ${[...new Set(names)].join(', ')} (of the last 5000 per agent pod)`, '', ...(lines.length ? lines : ['(none)'])].join('\n');
  const doc = await vscode.workspace.openTextDocument(p.docs.set(`/agent-log/${row.snapshot ?? row.object!.name}.log`, text));
  await vscode.window.showTextDocument(doc, { preview: true });
}

/** Two snapshots side by side (the two selected, or this one and one picked). */
export async function compareSnapshots(p: Parts, arg: unknown, selected?: unknown): Promise<void> {
  const store = p.tree.store;
  const picked = (Array.isArray(selected) ? (selected as SnapshotRow[]) : []).filter((r) => r.kind === 'snapshot');
  const first = picked[0] ?? rowArg(p, arg);
  let second = picked.find((r) => r.snapshot !== first.snapshot)?.snapshot;
  if (!second) {
    const others = store.list().filter((s) => s.name !== first.snapshot).map((s) => ({ label: s.name, description: s.state }));
    if (others.length === 0) throw new Error('there is only one PodSnapshot in this namespace');
    second = (await vscode.window.showQuickPick(others, { title: `Compare ${first.snapshot} with…` }))?.label;
    if (!second) return;
  }
  const a = p.docs.set(`/compare/${first.snapshot}.txt`, snapshotFacts(store, first.snapshot!));
  const b = p.docs.set(`/compare/${second}.txt`, snapshotFacts(store, second));
  await vscode.commands.executeCommand('vscode.diff', a, b, `PodSnapshot ${first.snapshot} ↔ ${second}`);
}

/** `snapshotctl restore` from the row's snapshot, with a manifest from the profile or picked. */
export async function restoreFromSnapshot(ctx: Ctx, p: Parts, arg: unknown): Promise<void> {
  const row = rowArg(p, arg);
  if (!row.snapshot) throw new Error('pick a PodSnapshot to restore from');
  const t = target(p);
  const k = t.profile.kubernetes;
  const ctl = k?.snapshotctl;
  if (!ctl) throw new Error(`worker profile "${t.profile.name}" has no kubernetes.snapshotctl, so there is nothing to restore with`);
  let manifest = k.restoreManifest ?? k.manifest;
  if (!manifest) {
    const f = await vscode.window.showOpenDialog({ title: `Pod manifest for the pod restored from ${row.snapshot}`, canSelectMany: false, filters: { 'Pod manifest': ['yaml', 'yml', 'json'] } });
    if (!f?.[0]) return;
    manifest = f[0].fsPath;
  }
  // The same snapshotctl invocation as a run's (kubeconfig from the settings, no shell).
  const run = (args: string[]) => kubeSourceFor(t.profile, kubectlEnvironment(ctx))!.snapshotctl!(args, AbortSignal.timeout(t.profile.timeouts.restoreSeconds * 1000));
  const help = await run(['--help']);
  if (help.code === null) throw new Error(`snapshotctl (${ctl.join(' ')}) cannot run: ${help.stderr.trim()}`);
  const generation = snapshotctlGeneration(`${help.stdout}\n${help.stderr}`);
  const req = { action: 'restore' as const, manifest, snapshot: row.snapshot, namespace: t.profile.transport.namespace, kubeContext: t.profile.transport.context, containers: [t.profile.transport.container ?? 'main'] };
  const missing = snapshotctlMissing(generation, req);
  if (missing) throw new Error(missing);
  const args = snapshotctlArgs(generation, req);
  ctx.log.info(`snapshotctl ${args.join(' ')}`);
  const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Restoring from ${row.snapshot}…` }, () => run(args));
  const kv = parseSnapshotctl(r.stdout);
  if (r.code !== 0) throw new Error(`snapshotctl restore failed (exit ${r.code ?? '?'}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
  void vscode.window.showInformationMessage(`Dynamo Snapshot: restore from ${row.snapshot} requested${kv.restore_pod ? ` (pod ${kv.restore_pod})` : ''}; the Snapshots view shows its Restored condition.`);
}

export function snapshotCommands(parts: (ctx: Ctx) => Parts): CommandSpec[] {
  return [
    { id: 'dynamoSnapshot.refreshSnapshots', needsTrust: true, run: (ctx) => parts(ctx).tree.restartIfShown(true) },
    { id: 'dynamoSnapshot.openSnapshotYaml', needsTrust: true, run: (ctx, arg) => openYaml(parts(ctx), arg) },
    { id: 'dynamoSnapshot.showSnapshotAgentLog', needsTrust: true, run: (ctx, arg) => showAgentLog(parts(ctx), arg) },
    { id: 'dynamoSnapshot.compareSnapshots', run: (ctx, arg, selected) => compareSnapshots(parts(ctx), arg, selected) },
    { id: 'dynamoSnapshot.restoreFromSnapshot', needsTrust: true, run: (ctx, arg) => restoreFromSnapshot(ctx, parts(ctx), arg) },
  ];
}
