/**
 * The CLI's kubectl side of observe mode (src/cli/kubeSource.ts) when kubectl fails without saying
 * why: the error still names the pod and the exit status instead of ending in an empty message.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { kubeSourceFor } from '../../../src/cli/kubeSource';
import { WorkerProfile } from '../../../src/core/settings/workerProfile';
import { scratch, testEnv } from './helpers';

test('kubectl logs failing with an empty stderr is reported with its exit status', async () => {
  const dir = scratch('kubesrc');
  // A kubectl that exits 3 and prints nothing (a crashed credential plugin does this).
  const kubectl = path.join(dir, 'kubectl');
  fs.writeFileSync(kubectl, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
  const profile = WorkerProfile.parse({
    name: 'kobs',
    command: ['true'],
    transport: { kind: 'kubernetes', namespace: 'llm', pod: 'worker-0' },
    kubernetes: { checkpoint: 'ckpt' },
  });
  const source = kubeSourceFor(profile, testEnv(dir, { kubectlPath: kubectl }));
  assert.ok(source);
  assert.ok(source.podLog);
  await assert.rejects(source.podLog('worker-0', undefined), (e: unknown) => e instanceof Error && e.message === 'kubectl logs worker-0: exit 3');
});
