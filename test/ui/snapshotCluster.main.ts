/**
 * For the UI test (test/ui/ui-test.mjs): starts a real kube-apiserver with a namespace of snapshot
 * cycles (test/system/support/snapshotFixture.ts), prints one JSON line with its kubeconfig and a
 * worker profile, and stops the cluster when stdin closes or on SIGTERM. Prints `{"skip": why}`
 * when the server cannot run here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kubeClusterParts } from '../system/support/kubeCluster';
import { startSnapshotFixture } from '../system/support/snapshotFixture';

async function main(): Promise<void> {
  const parts = kubeClusterParts();
  if ('missing' in parts) {
    process.stdout.write(`${JSON.stringify({ skip: parts.missing })}\n`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-ui-kapi-'));
  const f = await startSnapshotFixture(dir);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await f.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ kubeconfig: f.cluster.kubeconfig, profile: f.profile })}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
