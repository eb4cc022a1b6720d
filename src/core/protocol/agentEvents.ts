/**
 * The worker-side agent's protocol (media/agent/dsw_agent.py → extension): JSON lines on stdout,
 * one event per line, each typed once here and validated with zod. The Python agent mirrors these
 * shapes; `PROTOCOL_VERSION` is sent in every event as `v`. Unknown event types and malformed lines
 * are reported to the caller and skipped, never fatal.
 *
 * Owner: the Worker-connection issue (#4). Extend by adding variants; never change a field's meaning
 * without bumping PROTOCOL_VERSION.
 */
import { z } from 'zod';

export const PROTOCOL_VERSION = 1;
/** Lines longer than this are rejected before JSON parsing (a runaway or hostile worker). */
export const MAX_EVENT_LINE_BYTES = 8 * 1024 * 1024;

/**
 * Framed log chunks (follow's hot path): instead of a `log` event whose `data` is JSON-escaped, the
 * agent writes a small `log_frame` header line, then exactly `bytes` raw bytes (complete lines of the
 * log file, no escaping, no trailing newline of its own). The extension asks for it with the follow
 * config `logFrames: LOG_FRAME_FORMAT`; an agent without it keeps sending `log` events. The session
 * (transport/agentSession.ts) reads the raw bytes and yields an ordinary `log` event carrying them in
 * `bytes` (and `data`, decoded on first access), so `log_frame` never reaches a consumer.
 * Bump LOG_FRAME_FORMAT when the framing changes.
 */
export const LOG_FRAME_FORMAT = 1;
/** A frame header announcing more than this is invalid: its bytes are not read as a frame. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

const base = { v: z.literal(PROTOCOL_VERSION), t: z.number().describe('agent wall clock, ms since epoch') };

export const Gpu = z.object({
  index: z.number().int(),
  name: z.string(),
  uuid: z.string().optional(),
  memoryTotalMiB: z.number().optional(),
  memoryUsedMiB: z.number().optional(),
});

export const ToolInfo = z.object({
  present: z.boolean(),
  path: z.string().optional(),
  version: z.string().optional(),
  /** `criu check` result; absent for tools without a self-check. */
  check: z.object({ ok: z.boolean(), message: z.string() }).optional(),
});

export const HelloEvent = z.object({
  ...base,
  type: z.literal('hello'),
  agentVersion: z.string(),
  python: z.string(),
  platform: z.string(),
  hostname: z.string(),
  uid: z.number().int(),
  isRoot: z.boolean(),
  driverVersion: z.string().optional(),
  gpus: z.array(Gpu),
  cudaCheckpoint: ToolInfo,
  criu: ToolInfo,
  /** driver exposes cuCheckpointProcess* (r570+), so capture works without the cuda-checkpoint binary */
  cudaDriverCheckpointApi: z.boolean().optional(),
});

export const StartedEvent = z.object({
  ...base,
  type: z.literal('started'),
  runDir: z.string(),
  controlDir: z.string(),
  pid: z.number().int().positive(),
  pgid: z.number().int().positive(),
  logFiles: z.array(z.string()),
});

/** A chunk of complete lines from one log file; `end` is the byte offset after the chunk (resume point). */
export const LogChunkEvent = z.object({
  ...base,
  type: z.literal('log'),
  file: z.string(),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  data: z.string(),
  /** The chunk's raw bytes, when it came as a frame (never from a JSON line). `data` is their UTF-8 decoding. */
  bytes: z.custom<Uint8Array>((x) => x instanceof Uint8Array).optional(),
});

/** Wire-only header of a framed log chunk: `bytes` raw bytes follow the header's newline. */
export const LogFrameHeader = z
  .object({
    ...base,
    type: z.literal('log_frame'),
    file: z.string(),
    start: z.number().int().nonnegative(),
    end: z.number().int().nonnegative(),
    bytes: z.number().int().positive().max(MAX_FRAME_BYTES),
  })
  .refine((h) => h.end - h.start === h.bytes, { message: 'end - start must equal bytes', path: ['bytes'] });
export type LogFrameHeader = z.output<typeof LogFrameHeader>;

export const SentinelName = z.enum(['ready-for-snapshot', 'snapshot-complete', 'restore-complete', 'restore-failed', 'restore-context.json']);
export const SentinelEvent = z.object({
  ...base,
  type: z.literal('sentinel'),
  name: SentinelName,
  action: z.enum(['created', 'removed']),
});

export const PhaseEvent = z.object({
  ...base,
  type: z.literal('phase'),
  /** e.g. cuda_lock, cuda_checkpoint, criu_dump, write_snapshot_complete, criu_restore, cuda_restore, cuda_unlock, write_restore_complete */
  phase: z.string(),
  state: z.enum(['start', 'end', 'failed', 'skipped']),
  durationMs: z.number().nonnegative().optional(),
  detail: z.string().optional(),
  pid: z.number().int().optional(),
});

export const CaptureResultEvent = z.object({
  ...base,
  type: z.literal('capture_result'),
  ok: z.boolean(),
  mode: z.enum(['protocol', 'criu', 'command']),
  imageDir: z.string().optional(),
  imageBytes: z.number().nonnegative().optional(),
  timingsMs: z.record(z.string(), z.number()),
  error: z.string().optional(),
  /** The snapshot agent generation the capture followed (docs/compatibility.md); absent from older agents. */
  generation: z.enum(['release', 'kill']).optional(),
  /** The capture itself ended the source (the kill generation: Snapshot #101); its SIGKILL is then expected. */
  sourceKilled: z.boolean().optional(),
});

export const RestoreResultEvent = z.object({
  ...base,
  type: z.literal('restore_result'),
  ok: z.boolean(),
  mode: z.enum(['protocol', 'criu', 'command']),
  pid: z.number().int().optional(),
  timingsMs: z.record(z.string(), z.number()),
  error: z.string().optional(),
  generation: z.enum(['release', 'kill']).optional(),
});

export const ProcessExitEvent = z.object({
  ...base,
  type: z.literal('process_exit'),
  pid: z.number().int(),
  role: z.enum(['source', 'restored', 'other']).default('source'),
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
});

export const EndpointEvent = z.object({
  ...base,
  type: z.literal('endpoint'),
  url: z.string(),
});

export const DiagnosticEvent = z.object({
  ...base,
  type: z.enum(['warning', 'error']),
  message: z.string(),
  code: z.string().optional(),
});

export const DoneEvent = z.object({
  ...base,
  type: z.literal('done'),
  ok: z.boolean(),
  error: z.string().optional(),
});

export const AgentEvent = z.discriminatedUnion('type', [
  HelloEvent,
  StartedEvent,
  LogChunkEvent,
  SentinelEvent,
  PhaseEvent,
  CaptureResultEvent,
  RestoreResultEvent,
  ProcessExitEvent,
  EndpointEvent,
  DiagnosticEvent,
  DoneEvent,
]);

export type AgentEvent = z.output<typeof AgentEvent>;
export type HelloEvent = z.output<typeof HelloEvent>;
export type StartedEvent = z.output<typeof StartedEvent>;
export type LogChunkEvent = z.output<typeof LogChunkEvent>;
export type SentinelEvent = z.output<typeof SentinelEvent>;
export type PhaseEvent = z.output<typeof PhaseEvent>;
export type CaptureResultEvent = z.output<typeof CaptureResultEvent>;
export type RestoreResultEvent = z.output<typeof RestoreResultEvent>;
export type ProcessExitEvent = z.output<typeof ProcessExitEvent>;

export type ParsedLine =
  | { ok: true; event: AgentEvent }
  | { ok: true; frame: LogFrameHeader }
  | { ok: false; problem: 'oversized' | 'not-json' | 'unknown-type' | 'invalid' | 'version'; detail: string };

const KNOWN = new Set<string>(AgentEvent.options.flatMap((o) => (o.shape.type instanceof z.ZodLiteral ? [...o.shape.type.values] : o.shape.type.options)));

/** Parses one line of agent output. Never throws. */
export function parseAgentLine(line: string): ParsedLine {
  if (line.length > MAX_EVENT_LINE_BYTES) return { ok: false, problem: 'oversized', detail: `${line.length} characters` };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, problem: 'not-json', detail: line.slice(0, 200) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problem: 'not-json', detail: line.slice(0, 200) };
  const v = (value as { v?: unknown }).v;
  if (v !== PROTOCOL_VERSION) return { ok: false, problem: 'version', detail: `protocol version ${JSON.stringify(v)}, expected ${PROTOCOL_VERSION}` };
  const type = (value as { type?: unknown }).type;
  if (type === 'log_frame') {
    const h = LogFrameHeader.safeParse(value);
    if (h.success) return { ok: true, frame: h.data };
    const i = h.error.issues[0]!;
    return { ok: false, problem: 'invalid', detail: `log_frame: ${i.path.join('.')}: ${i.message}` };
  }
  if (typeof type !== 'string' || !KNOWN.has(type)) return { ok: false, problem: 'unknown-type', detail: `event type ${JSON.stringify(type)}` };
  const r = AgentEvent.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0]!;
    return { ok: false, problem: 'invalid', detail: `${type}: ${i.path.join('.')}: ${i.message}` };
  }
  return { ok: true, event: r.data };
}
