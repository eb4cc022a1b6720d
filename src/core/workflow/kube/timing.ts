/**
 * The snapshot agent's timing summaries, in every shape it has logged them (ai-dynamo/snapshot
 * agent/internal/executor checkpoint.go / restore.go; the logger is zap's console encoder,
 * agent/internal/logging/logging.go):
 *
 * - today: `<RFC3339>\tINFO\t<logger>\t[<caller>\t]Checkpoint timing summary\t{"content": …,
 *   "checkpoint": {"duration": "9.2s", "phases": {"criu_dump": "5.2s", …}, "started_to_complete": "9.5s"}}`
 *   (and `"restore": {…}` for `Restore timing summary`): the fields are nested;
 * - a release before: the same nesting with `*_duration` phase names, and the wall time on a line of
 *   its own (`Checkpoint wall time from agent detection` `started_to_checkpoint_complete`);
 * - older agents: flat fields, as klog text (`"Checkpoint timing summary" duration="1.2s" …`) or a
 *   JSON line (`{"msg": "Restore timing summary", "duration": "812ms", …}`).
 *
 * Each becomes one summary: total, every phase in the order logged, the wall time since the agent
 * noticed the work, the ids it names and the line's own time. `kubectl logs --prefix` prefixes are allowed.
 */

export type SummaryKind = 'checkpoint' | 'restore';

export interface TimingSummary {
  kind: SummaryKind;
  /** the agent's total for the operation ("duration") */
  durationMs?: number;
  /** every phase, in the order the agent logged them (`*_duration` suffixes dropped) */
  phases: { name: string; ms: number }[];
  /** from "the agent detected the work" to "done" (started_to_complete, or the separate wall-time line) */
  startedToCompleteMs?: number;
  /** non-duration fields: pod, content, checkpoint_id, container, … */
  ids: Record<string, string>;
  /** the line's timestamp (ms since the epoch), when it has one */
  at?: number;
  /** the raw line (for evidence) */
  line: string;
}

/** Go durations ("1m2.5s", "523ms", "1.2µs") or plain numbers (seconds) → ms. */
export function parseDurationMs(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v * 1000 : undefined;
  if (typeof v !== 'string') return undefined;
  const s = v.trim().replace(/^"|"$/g, '');
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const unit: Record<string, number> = { h: 3600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, ns: 0.000001 };
  let total = 0;
  let matched = '';
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) {
    total += Number(m[1]) * unit[m[2]!]!;
    matched += m[0];
  }
  return matched.length > 0 && matched === s ? total : undefined;
}

const SUMMARY = /(Checkpoint|Restore) timing summary/;
const WALL = /(Checkpoint|Restore) wall time from agent detection/;
const ISO = /(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d))/;
const NOT_FIELDS = new Set(['msg', 'message', 'level', 'ts', 'time', 'logger', 'caller', 'stacktrace']);

/** The JSON object a line ends with (zap console) or is (zap JSON), else undefined. */
function trailingJson(line: string): Record<string, unknown> | undefined {
  for (let i = line.indexOf('{'); i >= 0; i = line.indexOf('{', i + 1)) {
    try {
      const o: unknown = JSON.parse(line.slice(i));
      if (o && typeof o === 'object' && !Array.isArray(o)) return o as Record<string, unknown>;
    } catch {
      /* not from here: try the next brace */
    }
  }
  return undefined;
}

/** klog / logr text: "key"="value", key="value", key=value. */
function textFields(line: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of line.matchAll(/"?([A-Za-z_][\w.-]*)"?=("(?:[^"\\]|\\.)*"|\S+)/g)) {
    try {
      out[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
    } catch {
      out[m[1]!] = m[2]!;
    }
  }
  return out;
}

function stamp(line: string, fields: Record<string, unknown>): number | undefined {
  const raw = typeof fields.ts === 'string' ? fields.ts : typeof fields.time === 'string' ? fields.time : ISO.exec(line)?.[1];
  const t = raw ? Date.parse(raw) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

const phaseName = (k: string): string => k.replace(/_duration$/, '');

function summaryFrom(kind: SummaryKind, line: string): TimingSummary {
  const fields = trailingJson(line) ?? textFields(line);
  const s: TimingSummary = { kind, phases: [], ids: {}, at: stamp(line, fields), line };
  // Nested (today): the figures live under "checkpoint" / "restore", the ids beside it.
  const nested = fields[kind];
  const body = nested && typeof nested === 'object' && !Array.isArray(nested) ? (nested as Record<string, unknown>) : fields;
  if (body !== fields) {
    for (const [k, v] of Object.entries(fields)) if (k !== kind && !NOT_FIELDS.has(k) && (typeof v === 'string' || typeof v === 'number')) s.ids[k] = String(v);
  }
  for (const [k, v] of Object.entries(body)) {
    if (NOT_FIELDS.has(k)) continue;
    if (k === 'phases' && v && typeof v === 'object') {
      for (const [p, d] of Object.entries(v as Record<string, unknown>)) {
        const ms = parseDurationMs(d);
        if (ms !== undefined) s.phases.push({ name: phaseName(p), ms });
      }
      continue;
    }
    const ms = /(_id|^pod|^content|^container|^checkpoint|^node|^namespace)$/.test(k) ? undefined : parseDurationMs(v);
    if (k === 'duration' && ms !== undefined) s.durationMs = ms;
    else if (k === 'started_to_complete' && ms !== undefined) s.startedToCompleteMs = ms;
    // Older agents logged the phases beside duration, flat.
    else if (ms !== undefined) s.phases.push({ name: phaseName(k), ms });
    else if (typeof v === 'string' || typeof v === 'number') s.ids[k] = String(v);
  }
  return s;
}

/** Every `Checkpoint timing summary` / `Restore timing summary` in an agent log, oldest first. */
export function parseTimingSummaries(log: string): TimingSummary[] {
  const out: TimingSummary[] = [];
  for (const line of log.split('\n')) {
    const m = SUMMARY.exec(line);
    if (m) {
      out.push(summaryFrom(m[1] === 'Checkpoint' ? 'checkpoint' : 'restore', line));
      continue;
    }
    // The release that logged the wall time separately: it belongs to the summary just before it.
    const w = WALL.exec(line);
    if (w) {
      const kind: SummaryKind = w[1] === 'Checkpoint' ? 'checkpoint' : 'restore';
      const prev = out.at(-1);
      const fields = trailingJson(line) ?? textFields(line);
      const ms = parseDurationMs(fields[kind === 'checkpoint' ? 'started_to_checkpoint_complete' : 'started_to_restore_complete']);
      if (prev?.kind === kind && ms !== undefined) prev.startedToCompleteMs ??= ms;
    }
  }
  return out;
}

/** The newest summary of a kind, preferring one that names `about` (a pod, content or snapshot name) when given. */
export function lastSummary(log: string | undefined, kind: SummaryKind, about: readonly string[] = []): TimingSummary | undefined {
  if (!log) return undefined;
  const all = parseTimingSummaries(log).filter((s) => s.kind === kind);
  const named = about.length ? all.filter((s) => Object.values(s.ids).some((v) => about.some((a) => v === a || v.endsWith(`/${a}`)))) : [];
  return (named.length ? named : all).at(-1);
}

/** Flat metrics for the run record: `<prefix>.duration`, `<prefix>.<phase>`, `<prefix>.started_to_complete`. */
export function summaryFields(s: TimingSummary): Record<string, number> {
  const out: Record<string, number> = {};
  if (s.durationMs !== undefined) out.duration = s.durationMs;
  for (const p of s.phases) out[p.name] = p.ms;
  if (s.startedToCompleteMs !== undefined) out.started_to_complete = s.startedToCompleteMs;
  return out;
}
