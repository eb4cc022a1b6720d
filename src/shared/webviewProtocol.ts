/**
 * Messages between the extension and the Lifecycle panel (media/webview/lifecycle.js), typed once
 * here with zod. The extension builds the whole timeline model (src/core/views/timeline.ts) and
 * posts it; the webview only draws. Messages from the webview are untrusted input and are parsed
 * with `FromWebview` before anything acts on them.
 */
import { z } from 'zod';

export const Phase = z.enum(['load', 'warmup', 'pause', 'ready', 'capture', 'exit', 'restore', 'resume', 'serve']);

export const TimelineEvidence = z.object({
  kind: z.string(),
  text: z.string(),
  rank: z.string().optional(),
  valueMs: z.number().optional(),
});

/** One coloured stretch of a rank's lane: from a marker to the next one (or to the end / now). */
export const TimelineSegment = z.object({
  phase: Phase,
  /** ms since the run started */
  start: z.number(),
  end: z.number(),
  /** still going (the run is active and no later marker has arrived) */
  open: z.boolean(),
  /** the log lines that marked the phase (consecutive markers of one phase share a segment): the evidence */
  lines: z.array(z.string()),
  /** marked by the main process for the whole engine (pause, ready, restore…), not by the rank itself */
  inherited: z.boolean(),
});

export const TimelineLane = z.object({
  rank: z.string(),
  segments: z.array(TimelineSegment),
  warnings: z.number().int(),
  errors: z.number().int(),
  lastLine: z.string().optional(),
});

export const TimelineStep = z.object({
  name: z.string(),
  title: z.string(),
  state: z.enum(['pending', 'running', 'passed', 'warned', 'failed', 'skipped', 'cancelled']),
  verdict: z.string().optional(),
  start: z.number().optional(),
  end: z.number().optional(),
  durationMs: z.number().optional(),
  evidence: z.array(TimelineEvidence),
  /** the doer's own phases of this step (the snapshot agent's criu_dump, cuda_checkpoint …), in order, as sub-segments of its bar */
  parts: z.array(z.object({ name: z.string(), ms: z.number() })).optional(),
});

export const HistoryPoint = z.object({
  runId: z.string(),
  startedAt: z.number(),
  outcome: z.string(),
  restoreMs: z.number().optional(),
  warmupMs: z.number().optional(),
  current: z.boolean(),
});

export const TimelineModel = z.object({
  runId: z.string(),
  worker: z.string(),
  startedAt: z.number(),
  /** ms since start of the right edge of the chart (run end, or now while it runs) */
  span: z.number(),
  active: z.boolean(),
  outcome: z.string().optional(),
  restoreMs: z.number().optional(),
  warmupMs: z.number().optional(),
  lanes: z.array(TimelineLane),
  steps: z.array(TimelineStep),
  history: z.array(HistoryPoint),
});

/** Extension → webview. */
export const ToWebview = z.discriminatedUnion('type', [
  /** the whole model; sent at most a few times a second while a run goes */
  z.object({ type: z.literal('model'), model: TimelineModel.nullable(), history: z.array(HistoryPoint) }),
]);

/** Webview → extension. */
export const FromWebview = z.discriminatedUnion('type', [
  /** the script loaded and listens: send the current model */
  z.object({ type: z.literal('ready') }),
  /** what was drawn, so the extension (and its tests) know the panel shows the run */
  z.object({
    type: z.literal('rendered'),
    runId: z.string().nullable(),
    lanes: z.array(z.string()),
    segments: z.number().int().nonnegative(),
    steps: z.number().int().nonnegative(),
    historyBars: z.number().int().nonnegative(),
  }),
  /** open a rank's log at the line of a marker or evidence (Enter / click on a segment) */
  z.object({ type: z.literal('openRankLog'), rank: z.string().max(200), line: z.string().max(100_000).optional() }),
]);

export type Phase = z.output<typeof Phase>;
export type TimelineEvidence = z.output<typeof TimelineEvidence>;
export type TimelineSegment = z.output<typeof TimelineSegment>;
export type TimelineLane = z.output<typeof TimelineLane>;
export type TimelineStep = z.output<typeof TimelineStep>;
export type HistoryPoint = z.output<typeof HistoryPoint>;
export type TimelineModel = z.output<typeof TimelineModel>;
export type ToWebview = z.output<typeof ToWebview>;
export type FromWebview = z.output<typeof FromWebview>;
