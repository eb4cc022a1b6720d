/**
 * The Snapshots view in the host, against a real kube-apiserver holding finished snapshot cycles
 * (test/system/support/snapshotFixture.ts): it appears with a kubernetes worker profile, watches the
 * four resources (one `kubectl get --watch` each) only while visible — none once hidden — and shows
 * the objects; "Restore from This Snapshot" runs the profile's snapshotctl with today's flags.
 */
import * as assert from 'assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { kubeClusterParts } from '../system/support/kubeCluster';
import { startSnapshotFixture, type SnapshotFixture } from '../system/support/snapshotFixture';
import { SNAPSHOTCTL_HELP } from '../unit/workflow/support/kubeScenario';
import { viewsService, waitFor } from './support';

suite('Views: Snapshots (real kube-apiserver)', () => {
  let fixture: SnapshotFixture | undefined;
  let why: string | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-int-snap-'));
  const cfg = () => vscode.workspace.getConfiguration('dynamoSnapshot');
  const calls = path.join(dir, 'snapshotctl.calls');

  suiteSetup(async function () {
    this.timeout(240_000);
    const parts = kubeClusterParts();
    if ('missing' in parts) {
      why = parts.missing;
      return;
    }
    fixture = await startSnapshotFixture(path.join(dir, 'cluster'));
    const ctl = path.join(dir, 'snapshotctl');
    fs.writeFileSync(path.join(dir, 'help'), SNAPSHOTCTL_HELP);
    fs.writeFileSync(ctl, `#!/bin/sh\n[ "$1" = "--help" ] && { cat '${path.join(dir, 'help')}' >&2; exit 0; }\nprintf '%s\\n' "$*" >> '${calls}'\necho status=Submitted\necho restore_pod=llama-restore-2\n`, { mode: 0o755 });
    await cfg().update('kubectl.kubeconfig', fixture.cluster.kubeconfig, vscode.ConfigurationTarget.Workspace);
    await cfg().update('workers', [{ ...fixture.profile, kubernetes: { ...(fixture.profile.kubernetes as object), snapshotctl: [ctl], restoreManifest: path.join(dir, 'restore-pod.yaml') } }], vscode.ConfigurationTarget.Workspace);
  });

  suiteTeardown(async function () {
    this.timeout(60_000);
    await cfg().update('workers', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg().update('kubectl.kubeconfig', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('workbench.view.explorer');
    await fixture?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const skipIfNoCluster = (t: Mocha.Context) => {
    if (!why) return;
    if (process.env.DSW_REQUIRE_SYSTEM === '1') throw new Error(`required system part missing: ${why}`);
    t.skip();
  };

  test('shown: four watches fill the tree; hidden: no watch runs', async function () {
    skipIfNoCluster(this);
    const { v } = await viewsService();
    await vscode.commands.executeCommand('dynamoSnapshot.snapshots.focus');
    await waitFor('the view to watch its four resources', () => v.snapshots.watching === 4, 30_000);
    // The four watches deliver independently: wait until the pods' (the restored count) has arrived too.
    const rows = await waitFor('llama-snap with its 2 restored pods, and qwen-snap', () => {
      const r = v.snapshots.getChildren();
      return r.some((x) => x.label === 'llama-snap' && /2 restored/.test(x.description ?? '')) && r.some((x) => x.label === 'qwen-snap') ? r : undefined;
    }, 60_000);
    const llama = rows.find((r) => r.label === 'llama-snap')!;
    assert.match(llama.description!, /^Ready · \d+ s · from llama-job-source-x7q2m · 2 restored$/);
    const kids = await waitFor('the content and the job under llama-snap', () => {
      const k = v.snapshots.getChildren(llama).map((r) => `${r.kind}:${r.label}:${r.description}`);
      return k.some((x) => x.startsWith('content:')) && k.some((x) => x.startsWith('job:')) ? k : undefined;
    }, 60_000);
    assert.ok(kids.some((k) => /^content:podsnapshotcontent-[0-9a-f-]+:Ready · node node-a$/.test(k)), kids.join('\n'));
    assert.ok(kids.some((k) => /^job:SnapshotJob llama-job:Completed/.test(k)), kids.join('\n'));
    assert.ok(kids.some((k) => /^restored:llama-restore-0:RestoreSucceeded/.test(k)), kids.join('\n'));
    assert.ok(kids.some((k) => /^restored:llama-restore-1:RestoreIncompatible/.test(k)), kids.join('\n'));
    assert.strictEqual(v.snapshots.getTreeItem(llama).contextValue, 'snapshots:snapshot');
    assert.ok(v.snapshots.events > 0);
    // Hidden: every watch stopped, nothing polls.
    await vscode.commands.executeCommand('workbench.view.explorer');
    await waitFor('no watch while hidden', () => v.snapshots.watching === 0, 15_000);
    const before = v.snapshots.events;
    await new Promise((r) => setTimeout(r, 1500));
    assert.strictEqual(v.snapshots.events, before, 'no watch events arrive while hidden');
    // Shown again: watching again, from a fresh list.
    await vscode.commands.executeCommand('dynamoSnapshot.snapshots.focus');
    await waitFor('watching again', () => v.snapshots.watching === 4 && v.snapshots.getChildren().some((x) => x.label === 'llama-snap'), 60_000);
  });

  test('Restore from This Snapshot runs the profile\'s snapshotctl with --manifest, --snapshot, --namespace, --kube-context', async function () {
    skipIfNoCluster(this);
    const { v } = await viewsService();
    await vscode.commands.executeCommand('dynamoSnapshot.snapshots.focus');
    const llama = await waitFor('llama-snap', () => v.snapshots.getChildren().find((x) => x.label === 'llama-snap'), 60_000);
    await vscode.commands.executeCommand('dynamoSnapshot.restoreFromSnapshot', llama);
    const got = await waitFor('snapshotctl called', () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim() : undefined), 30_000);
    assert.strictEqual(got, `restore --manifest=${path.join(dir, 'restore-pod.yaml')} --snapshot=llama-snap --namespace=llm --kube-context=dsw-test`);
  });
});
