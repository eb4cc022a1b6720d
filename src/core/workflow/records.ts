/**
 * Run records: one JSON file per run (versioned zod schema) with the steps, verdicts, evidence,
 * timings, lifecycle events and log paths. Written to a temp file in the same directory, fsynced, then
 * renamed, so a crash or a window reload leaves either the old file or the new one, never half of one.
 * Reading validates; a corrupt or foreign file is reported and skipped, never fatal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { STEP_NAMES } from './types';

export const RUN_RECORD_SCHEMA = 'dynamo-snapshot-workbench/run';
export const RUN_RECORD_VERSION = 1;

const Evidence = z.object({
  kind: z.enum(['log', 'exit', 'timing', 'request', 'diagnostic', 'note']),
  text: z.string(),
  rank: z.string().optional(),
  location: z.object({ file: z.string(), line: z.number().int().nonnegative() }).optional(),
  valueMs: z.number().optional(),
  phase: z.string().optional(),
});

const StepState = z.enum(['pending', 'running', 'passed', 'warned', 'failed', 'skipped', 'cancelled']);

export const StepRecordSchema = z.object({
  name: z.enum(STEP_NAMES),
  state: StepState,
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  verdict: z.string().optional(),
  evidence: z.array(Evidence),
});

const RankPhase = z.enum(['load', 'warmup', 'pause', 'ready', 'capture', 'exit', 'restore', 'resume', 'serve']);
const RecordedEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run-started'), runId: z.string(), worker: z.string(), at: z.number(), steps: z.array(z.enum(STEP_NAMES)) }),
  z.object({ type: z.literal('step'), runId: z.string(), step: StepRecordSchema }),
  z.object({ type: z.literal('rank-marker'), runId: z.string(), rank: z.string(), phase: RankPhase, at: z.number(), line: z.string() }),
  z.object({ type: z.literal('run-ended'), runId: z.string(), at: z.number(), outcome: z.enum(['passed', 'failed', 'cancelled']) }),
]);

export const RunRecordSchema = z.object({
  schema: z.literal(RUN_RECORD_SCHEMA),
  version: z.literal(RUN_RECORD_VERSION),
  runId: z.string().regex(/^[A-Za-z0-9_.-]+$/),
  worker: z.string(),
  transport: z.enum(['local', 'ssh', 'kubernetes']),
  backend: z.string(),
  captureMode: z.enum(['protocol', 'criu', 'command']),
  startedAt: z.number(),
  endedAt: z.number(),
  outcome: z.enum(['passed', 'failed', 'cancelled']),
  steps: z.array(StepRecordSchema),
  metrics: z.object({
    readyMs: z.number().optional(),
    captureMs: z.number().optional(),
    restoreMs: z.number().optional(),
    firstTokenMs: z.number().optional(),
    imageBytes: z.number().optional(),
    phaseTimingsMs: z.record(z.string(), z.number()).optional(),
  }),
  host: z.object({ hostname: z.string(), gpus: z.array(z.string()), driverVersion: z.string().optional() }).optional(),
  ranks: z.array(z.object({ id: z.string(), lines: z.number().int(), markers: z.record(z.string(), z.number()) })),
  logs: z.object({ runDir: z.string().optional(), workerFiles: z.array(z.string()), localDir: z.string().optional() }),
  events: z.array(RecordedEvent),
});

export type RunRecord = z.output<typeof RunRecordSchema>;

export function recordFileName(runId: string): string {
  return `run-${runId}.json`;
}

/** Writes the record atomically; returns its path. */
export async function writeRecord(dir: string, record: RunRecord): Promise<string> {
  const checked = RunRecordSchema.parse(record);
  await fs.promises.mkdir(dir, { recursive: true });
  const file = path.join(dir, recordFileName(checked.runId));
  const tmp = path.join(dir, `.${recordFileName(checked.runId)}.${process.pid}.${Date.now()}.tmp`);
  const fh = await fs.promises.open(tmp, 'w');
  try {
    await fh.writeFile(JSON.stringify(checked, null, 1) + '\n');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(tmp, file);
  return file;
}

export type ReadResult = { ok: true; record: RunRecord; file: string } | { ok: false; file: string; problem: string };

export async function readRecord(file: string): Promise<ReadResult> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (e) {
    return { ok: false, file, problem: `cannot read: ${e instanceof Error ? e.message : String(e)}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, file, problem: 'not valid JSON (truncated or corrupt)' };
  }
  const v = (value as { version?: unknown } | null)?.version;
  if (typeof value === 'object' && value !== null && typeof v === 'number' && v > RUN_RECORD_VERSION) {
    return { ok: false, file, problem: `written by a newer version (record version ${v}, this one reads ${RUN_RECORD_VERSION})` };
  }
  const r = RunRecordSchema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0]!;
    return { ok: false, file, problem: `not a run record: ${i.path.join('.') || '(root)'}: ${i.message}` };
  }
  return { ok: true, record: r.data, file };
}

export interface RecordList {
  records: { record: RunRecord; file: string }[];
  problems: { file: string; problem: string }[];
}

/** Every record in `dir`, newest first; unreadable files are listed as problems. */
export async function listRecords(dir: string): Promise<RecordList> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return { records: [], problems: [] };
  }
  const out: RecordList = { records: [], problems: [] };
  for (const name of names.filter((n) => /^run-.+\.json$/.test(n))) {
    const r = await readRecord(path.join(dir, name));
    if (r.ok) out.records.push({ record: r.record, file: r.file });
    else out.problems.push({ file: r.file, problem: r.problem });
  }
  out.records.sort((a, b) => b.record.startedAt - a.record.startedAt);
  return out;
}

/** Keeps the newest `keep` records (and removes leftover temp files); returns the paths removed. */
export async function pruneRecords(dir: string, keep: number): Promise<string[]> {
  const { records } = await listRecords(dir);
  const removed: string[] = [];
  for (const { file } of records.slice(Math.max(0, keep))) {
    await fs.promises.rm(file, { force: true });
    removed.push(file);
  }
  let names: string[] = [];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    /* no directory: nothing to clean */
  }
  const hourAgo = Date.now() - 3600_000;
  for (const n of names.filter((x) => x.startsWith('.run-') && x.endsWith('.tmp'))) {
    const p = path.join(dir, n);
    const st = await fs.promises.stat(p).catch(() => undefined);
    // Only stale ones: a fresh temp file may belong to a write in progress in another window.
    if (st && st.mtimeMs < hourAgo) {
      await fs.promises.rm(p, { force: true });
      removed.push(p);
    }
  }
  return removed;
}
