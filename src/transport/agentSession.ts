/**
 * One run of the agent on the worker: spawn it through the transport, hand it its script, and turn
 * its stdout into validated events. Malformed, oversized, unknown and wrong-version lines and
 * anything on stderr are reported through onProblem and skipped, never fatal.
 */
import { MAX_EVENT_LINE_BYTES, parseAgentLine, type AgentEvent, type LogChunkEvent, type LogFrameHeader } from '../core/protocol/agentEvents';
import type { ProtocolProblem } from '../core/worker/types';
import { decodeUtf8 } from '../core/logs/router';
import { agentInvocation } from './agentLoader';
import { readLines } from './lines';
import { TransportError, type ExitStatus, type RemoteProcess, type WorkerTransport } from './types';

export interface AgentSession {
  /** Validated events in order; ends when the agent's stdout ends. Throws TransportError when the worker was not reached. */
  events(): AsyncGenerator<AgentEvent>;
  /** Closes the agent's stdin: it stops what it runs attached and exits. */
  close(): void;
  kill(): void;
  readonly exited: Promise<ExitStatus>;
}

const STDERR_KEEP = 16 * 1024;

export function startAgent(
  transport: WorkerTransport,
  python: string,
  script: Buffer,
  subcommand: string,
  config: unknown,
  onProblem: (p: ProtocolProblem) => void = () => undefined,
): AgentSession {
  const inv = agentInvocation(python, script, subcommand, config);
  const proc: RemoteProcess = transport.spawn(inv.argv);
  proc.stdin.write(inv.stdin);
  let stderrTail = '';
  // A line may arrive in several chunks: report whole lines only, the unfinished rest when stderr ends.
  let stderrPartial = '';
  const reportStderr = (line: string) => {
    if (line.trim()) onProblem({ kind: 'stderr', detail: line.slice(0, 2000) });
  };
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (s: string) => {
    stderrTail = (stderrTail + s).slice(-STDERR_KEEP);
    const lines = (stderrPartial + s).split('\n');
    stderrPartial = lines.pop()!.slice(-STDERR_KEEP);
    for (const line of lines) reportStderr(line);
  });
  proc.stderr.on('end', () => {
    reportStderr(stderrPartial);
    stderrPartial = '';
  });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    proc.stdin.end();
  };
  async function* events(): AsyncGenerator<AgentEvent> {
    let gotOutput = false;
    // A valid log_frame header (bounded by MAX_FRAME_BYTES in its schema) makes the reader take the
    // next `bytes` raw bytes; an invalid one stays an ordinary line and is reported below.
    let header: LogFrameHeader | undefined;
    const frameOf = (line: string): number => {
      if (!line.includes('"log_frame"')) return 0;
      const r = parseAgentLine(line);
      header = r.ok && 'frame' in r ? r.frame : undefined;
      return header?.bytes ?? 0;
    };
    for await (const item of readLines(proc.stdout, MAX_EVENT_LINE_BYTES, frameOf)) {
      gotOutput = true;
      if ('oversized' in item) {
        onProblem({ kind: 'oversized', detail: `${item.oversized} bytes without a newline` });
        continue;
      }
      if ('truncatedFrame' in item) {
        onProblem({ kind: 'invalid', detail: `log_frame: output ended after ${item.truncatedFrame} of ${item.expected} bytes` });
        continue;
      }
      if (item.frame && header) {
        yield logEventOf(header, item.frame);
        continue;
      }
      if (item.line.trim() === '') continue;
      const r = parseAgentLine(item.line);
      if (r.ok && 'event' in r) yield r.event;
      else if (r.ok) onProblem({ kind: 'invalid', detail: 'log_frame header without its bytes' });
      else onProblem({ kind: r.problem, detail: r.detail });
    }
    const status = await proc.exited;
    const failure = explainFailure(transport, python, status, stderrTail, gotOutput);
    if (failure) throw failure;
  }
  // Killing must also close our end of stdin: an ssh mux client hands its stdin to the ControlMaster,
  // which keeps the session (and the remote job) alive for as long as that pipe stays open.
  const kill = () => {
    closed = true;
    proc.stdin.destroy();
    proc.kill('SIGKILL');
  };
  return { events, close, kill, exited: proc.exited };
}

/**
 * A framed chunk as an ordinary `log` event: `bytes` are the raw bytes; `data` (their UTF-8 text) is
 * decoded on first access, so a consumer that routes bytes never pays for the string.
 */
function logEventOf(h: LogFrameHeader, bytes: Buffer): LogChunkEvent {
  let text: string | undefined;
  return {
    v: h.v,
    t: h.t,
    type: 'log',
    file: h.file,
    start: h.start,
    end: h.end,
    bytes,
    get data() {
      return (text ??= decodeUtf8(bytes));
    },
  };
}

/** Exit statuses that mean "the agent never ran", turned into messages that say what to try. */
function explainFailure(t: WorkerTransport, python: string, s: ExitStatus, stderr: string, gotOutput: boolean): TransportError | undefined {
  if (gotOutput) return undefined;
  const last = stderr.trim().split('\n').slice(-3).join(' | ');
  const viaTransport = t.explainFailure?.(s, stderr);
  if (viaTransport) return viaTransport;
  if (s.code === 127 || /not found|No such file/.test(last)) {
    return new TransportError(
      `Python "${python}" was not found on ${t.label}`,
      'Set the worker profile\'s "python" to a Python 3.8+ interpreter that exists there',
      last,
    );
  }
  if (s.code !== 0) {
    return new TransportError(`the agent could not start on ${t.label} (exit ${s.code ?? s.signal})`, `stderr: ${last || '(empty)'}`, last);
  }
  return undefined;
}
