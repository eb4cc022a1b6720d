/**
 * Lifecycle markers: the exact log strings Dynamo's lifecycle and backends print (matched against the
 * message after `parseLogLine` removed the rank prefix and logging header), each mapped to a rank
 * phase. Every generation is accepted — the pinned ai-dynamo release, the newer and older stored
 * revisions of ai-dynamo/dynamo — because a workspace may run any of them; `source` names where each
 * string was read (docs/compatibility.md lists them with commits). Notes are lines worth showing
 * (capture-env overrides, a vLLM build without checkpoint hooks) that change no verdict.
 */
import type { RankPhase } from './types';

/** A marker's meaning beyond its phase: warm-up has a start, an end and failure forms. */
export type MarkerKind =
  | 'snapshot-mode'
  | 'load'
  | 'warmup-start'
  | 'warmup-done'
  | 'warmup-failed'
  | 'warmup-skipped'
  | 'warmup-not-applicable'
  | 'pause'
  | 'ready'
  | 'capture'
  | 'restore'
  | 'resume'
  | 'serve'
  | 'config-error'
  | 'note';

export interface MarkerDef {
  kind: MarkerKind;
  phase: RankPhase;
  /** An exact string, or an anchored regex for strings with a substituted part. */
  match: string | RegExp;
  /** Where the string comes from (for the report). */
  source: string;
}

export const MARKERS: readonly MarkerDef[] = [
  { kind: 'snapshot-mode', phase: 'load', match: 'Snapshot mode enabled (watcher-driven signals)', source: 'Dynamo lifecycle' },
  { kind: 'snapshot-mode', phase: 'load', match: 'Checkpoint mode enabled (watcher-driven signals)', source: 'Dynamo lifecycle (legacy)' },
  { kind: 'snapshot-mode', phase: 'load', match: 'Checkpoint mode enabled: TRT-LLM engine is initialized before Dynamo runtime creation', source: 'TRT-LLM' },
  { kind: 'snapshot-mode', phase: 'load', match: 'Unified vLLM snapshot mode enabled', source: 'vLLM unified entrypoint (ai-dynamo/dynamo)' },
  { kind: 'load', phase: 'load', match: /^SGLang engine loaded in \d+(?:\.\d+)?s \((?:snapshot|checkpoint) mode\)$/, source: 'SGLang (ai-dynamo 1.6.1 sglang/snapshot.py; "checkpoint mode" before the rename)' },
  { kind: 'load', phase: 'load', match: /^Fetching model .+ in a subprocess$/, source: 'model prefetch' },

  { kind: 'warmup-start', phase: 'warmup', match: 'vLLM snapshot warmup starting', source: 'vLLM (dynamo#11744)' },
  { kind: 'warmup-start', phase: 'warmup', match: 'Running vLLM snapshot warmup generation', source: 'vLLM (dynamo#13341)' },
  { kind: 'warmup-start', phase: 'warmup', match: 'SGLang snapshot warmup starting', source: 'SGLang' },
  { kind: 'warmup-done', phase: 'warmup', match: 'vLLM snapshot warmup complete', source: 'vLLM (dynamo#11744)' },
  { kind: 'warmup-done', phase: 'warmup', match: 'vLLM snapshot warmup generation completed', source: 'vLLM (dynamo#13341)' },
  { kind: 'warmup-done', phase: 'warmup', match: 'SGLang snapshot warmup complete', source: 'SGLang' },
  { kind: 'warmup-failed', phase: 'warmup', match: 'vLLM snapshot warmup ended without a final output', source: 'vLLM (dynamo#11744)' },
  { kind: 'warmup-failed', phase: 'warmup', match: 'vLLM snapshot warmup generated no tokens', source: 'vLLM (dynamo#11744)' },
  { kind: 'warmup-skipped', phase: 'warmup', match: /^Skipping vLLM snapshot warmup: .+$/, source: 'vLLM (dynamo#13341)' },
  { kind: 'warmup-not-applicable', phase: 'warmup', match: 'Skipping SGLang snapshot warmup for non-generation model', source: 'SGLang (ai-dynamo 1.6.1 sglang/snapshot.py warmup_engine)' },
  // TRT-LLM logs no warm-up of its own in snapshot mode (its pause is a gc.collect()); a generic
  // "<Backend> snapshot warmup starting/complete" covers the stand-in engine and custom backends.
  { kind: 'warmup-start', phase: 'warmup', match: /^[\w.-]+ snapshot warmup starting(?: .*)?$/, source: 'generic' },
  { kind: 'warmup-done', phase: 'warmup', match: /^[\w.-]+ snapshot warmup complete(?: .*)?$/, source: 'generic' },

  { kind: 'pause', phase: 'pause', match: 'Pausing model', source: 'Dynamo lifecycle' },
  { kind: 'ready', phase: 'ready', match: /^Ready for snapshot\. Polling for sentinel in .+ \(snapshot-complete or restore-complete\)$/, source: 'Dynamo lifecycle' },
  { kind: 'ready', phase: 'ready', match: 'Ready for checkpoint. Waiting for watcher signal (SIGUSR1=checkpoint complete, SIGCONT=restore complete)', source: 'Dynamo lifecycle (legacy)' },

  { kind: 'capture', phase: 'capture', match: 'Snapshot completion sentinel detected', source: 'Dynamo lifecycle' },
  { kind: 'capture', phase: 'capture', match: 'Initial vLLM snapshot captured successfully; exiting without destroying the engine', source: 'vLLM (dynamo#12184)' },
  { kind: 'capture', phase: 'capture', match: 'vLLM snapshot captured successfully', source: 'vLLM (ai-dynamo 1.6.1 vllm/snapshot.py)' },
  { kind: 'capture', phase: 'capture', match: 'Initial TRT-LLM snapshot captured successfully; exiting without destroying the engine', source: 'TRT-LLM' },

  { kind: 'restore', phase: 'restore', match: /^Captured snapshot restore context at .+$/, source: 'restore standby' },
  { kind: 'restore', phase: 'restore', match: 'Restore sentinel detected', source: 'Dynamo lifecycle (before 1.6)' },
  { kind: 'restore', phase: 'restore', match: 'Restore sentinel detected; returning application-paused', source: 'Dynamo lifecycle (ai-dynamo 1.6.1: resume is elect_and_wake)' },
  { kind: 'resume', phase: 'resume', match: 'Resuming model after restore', source: 'Dynamo lifecycle (before 1.6)' },
  { kind: 'resume', phase: 'resume', match: '[Shadow] Engine awake, registering with discovery', source: 'Dynamo elect_and_wake with a failover lock (ai-dynamo 1.6.1)' },
  { kind: 'resume', phase: 'resume', match: 'Applied snapshot restore context runtime env', source: 'Dynamo lifecycle' },
  { kind: 'resume', phase: 'resume', match: 'Refreshed snapshot restore runtime config', source: 'Dynamo lifecycle' },
  { kind: 'serve', phase: 'serve', match: 'Dynamo runtime created after TRT-LLM snapshot restore', source: 'TRT-LLM' },

  { kind: 'config-error', phase: 'load', match: /^--headless is incompatible with snapshot mode/, source: 'vLLM' },
  { kind: 'config-error', phase: 'load', match: /^TRT-LLM Dynamo Snapshot currently supports only the (?:single-GPU )?aggregated text worker path\./, source: 'TRT-LLM' },
  { kind: 'config-error', phase: 'load', match: /^--embedding-worker-processes greater than 1 is incompatible with checkpoint mode/, source: 'vLLM (ai-dynamo 1.6.1 vllm/main.py)' },

  // configure_snapshot_capture_env: "Overriding NAME='old' with 'new' for snapshot mode because …"
  // (HF_HUB_OFFLINE: "… in snapshot mode to avoid …"). Shown as notes: the override is what Dynamo does.
  { kind: 'note', phase: 'load', match: /^Overriding [A-Z_][A-Z0-9_]*=.* with '[^']*' (?:for|in) snapshot mode (?:because|to avoid) .+$/, source: 'Dynamo lifecycle configure_snapshot_capture_env' },
  { kind: 'note', phase: 'load', match: /^This vLLM build has no AsyncLLM\.checkpoint_prepare\/checkpoint_restore; snapshotting without communicator checkpointing\./, source: 'vLLM (ai-dynamo 1.6.1 vllm/snapshot.py)' },
];

/** The marker a message is, if any. */
export function matchMarker(message: string): MarkerDef | undefined {
  for (const m of MARKERS) {
    if (typeof m.match === 'string' ? message === m.match : m.match.test(message)) return m;
  }
  return undefined;
}
