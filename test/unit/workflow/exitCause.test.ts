import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { findSnapshotModules, workspaceExitCauseFinder } from '../../../src/core/workflow/exitCause';
import { inProcessLinter } from '../../../src/core/workflow/exitCauseLint';

function ws(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-exitcause-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const BUGGY = 'from dynamo.common.snapshot.lifecycle import EngineSnapshotController\n\n\nasync def run(controller: EngineSnapshotController):\n    if not await controller.wait_for_restore():\n        raise SystemExit(0)\n';
const FIXED = BUGGY.replace('raise SystemExit(0)', 'os._exit(0)').replace('from dynamo', 'import os\nfrom dynamo');

describe('linking a bad source exit to the SNAP001 line', () => {
  it('finds the backend module and skips vendored trees', async () => {
    const root = ws({
      'components/src/dynamo/vllm/snapshot.py': BUGGY,
      'components/src/dynamo/sglang/snapshot.py': BUGGY,
      'node_modules/x/vllm/snapshot.py': BUGGY,
      '.venv/lib/vllm/snapshot.py': BUGGY,
    });
    assert.deepEqual(await findSnapshotModules(root, 'vllm'), [path.join(root, 'components/src/dynamo/vllm/snapshot.py')]);
    assert.equal((await findSnapshotModules(root, 'custom')).length, 2);
  });

  it('returns the SNAP001 finding with its file and 0-based line', async () => {
    const root = ws({ 'components/src/dynamo/vllm/snapshot.py': BUGGY });
    const ev = await workspaceExitCauseFinder(root, inProcessLinter())('vllm', new AbortController().signal);
    assert.equal(ev.length, 1);
    assert.equal(ev[0]!.kind, 'diagnostic');
    assert.match(ev[0]!.text, /^SNAP001 /);
    assert.deepEqual(ev[0]!.location, { file: path.join(root, 'components/src/dynamo/vllm/snapshot.py'), line: 5 });
  });

  it('says so when there is no module or no finding', async () => {
    const none = await workspaceExitCauseFinder(ws({ 'README.md': '' }), inProcessLinter())('sglang', new AbortController().signal);
    assert.match(none[0]!.text, /no sglang\/snapshot\.py in/);
    const clean = await workspaceExitCauseFinder(ws({ 'vllm/snapshot.py': FIXED }), inProcessLinter())('vllm', new AbortController().signal);
    assert.match(clean[0]!.text, /no SNAP001 finding in vllm\/snapshot\.py/);
  });
});
