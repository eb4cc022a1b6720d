/**
 * Finds the Python with the pinned ai-dynamo package (the repository's .venv, scripts/python/venv.sh)
 * and says precisely what is missing when the real lifecycle cannot run there.
 */
import { execa } from 'execa';
import { dynamoPython } from '../../../src/core/settings/builtinProfiles';

/** What the real-lifecycle engine imports: the lifecycle, Dynamo's logging, the restore-context runtime parser. */
const PROBE = [
  'import dynamo.common.snapshot.lifecycle, dynamo.common.snapshot.restore_context, dynamo.runtime.logging',
  'from dynamo.common.snapshot.restore_context import parse_snapshot_restore_runtime_config as p',
  'p([])',
].join('\n');

export async function findDynamo(repoRoot: string): Promise<{ python?: string; why?: string }> {
  const python = dynamoPython(repoRoot);
  const r = await execa(python, ['-c', PROBE], { reject: false, all: true });
  if (r.exitCode === 0) return { python };
  const last = String(r.all ?? r.shortMessage).trim().split('\n').slice(-1)[0];
  return { why: `the pinned ai-dynamo package is not importable with ${python}: ${last} (bash scripts/python/venv.sh installs it into .venv)` };
}
