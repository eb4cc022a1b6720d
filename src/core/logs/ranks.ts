/**
 * Which rank a log line belongs to, from the backend's per-rank prefix, in the shapes upstream prints
 * (docs/compatibility.md, "Log shapes"). Rank ids are stable strings the views and the workflow share:
 * "DP<d>" for a data-parallel rank (vLLM EngineCore_DP<d>/Worker_DP<d>_TP<t>, SGLang "[ts DP<d>…]"),
 * "TP<t>" for SGLang without DP, "RANK<n>" for TRT-LLM, "main" for the main process (unprefixed
 * lines, vLLM's APIServer, SGLang's "[ts] " with no parallel part) and "agent" for the agent's own messages.
 */
import type { WorkerProfile } from '../settings/workerProfile';

export type Backend = WorkerProfile['backend'];

export const MAIN_RANK = 'main';
export const AGENT_RANK = 'agent';

// vLLM (vllm/utils: _add_prefix): `ESC[1;36m(EngineCore_DP0 pid=N)ESC[0;0m `; the colour codes vary
// with the release (ESC[36m/ESC[0m before), so any SGR code is accepted on both sides.
// eslint-disable-next-line no-control-regex
const VLLM = /^(?:\x1b\[[0-9;]*m)?\((?<proc>[A-Za-z]+(?:[_ -](?:DP|PP|TP|EP)?\d+)*)(?: rank=\d+)?\s+pid=(?<pid>\d+)\)(?:\x1b\[[0-9;]*m)?\s?/;
const TRTLLM = /^\[(?<ts>\d{2}\/\d{2}\/\d{4}-\d{2}:\d{2}:\d{2})\]\s\[TRT-LLM\]\s(?:\[RANK (?<rank>\d+)\]\s)?\[(?<lvl>[VDIWE])\]\s/;
// TRT-LLM's C++ logger (cpp/include/tensorrt_llm/common/logger.h getPrefix): `[TensorRT-LLM][INFO] ` or, with a rank, `[TensorRT-LLM][INFO][1] `.
const TRTLLM_CPP = /^\[TensorRT-LLM\]\[(?:TRACE|DEBUG|INFO|WARNING|ERROR)\](?:\[(?<rank>\d+)\])? /;
const LABEL = /^\s*(?<rank>\d+):\s/;
// SGLang (srt/managers/scheduler.py run_scheduler_process + srt/utils configure_logger):
// `[YYYY-MM-DD HH:MM:SS DP{d} PP{p} ATTN_CP{c} MOE_DP{m} TP{t} EP{e}] `, each part only when its size
// is > 1 (DP only with DP > 1), so DP=2 TP=1 prints `[ts DP1] ` and the main process `[ts] `. Older
// releases printed `DP_RANK 0 ATTN_TP_RANK 0`.
const SGLANG = /^\[(?<ts>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?)(?<parts>(?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP|ATTN_TP)(?:_RANK )?\d+)*)\] /;
const SGLANG_PART = / (DP|PP|ATTN_CP|MOE_DP|TP|EP|ATTN_TP)(?:_RANK )?(\d+)/g;

export interface Classified {
  rank: string;
  /** The line with the per-rank prefix removed: what lifecycle strings are matched against. */
  text: string;
}

function vllmRank(proc: string): string {
  const dp = /_DP(\d+)/.exec(proc) ?? /^EngineCore_(\d+)$/.exec(proc);
  if (dp) return `DP${dp[1]}`;
  // DP=1: "EngineCore", "Worker_TP1", "VllmWorker rank=0": all belong to the single DP rank; the
  // front end ("APIServer") and anything else is the main process.
  if (/^(EngineCore|Worker|VllmWorker)/.test(proc)) return 'DP0';
  return MAIN_RANK;
}

/**
 * Classifies one line. Every backend's format is tried (a "custom" backend may print any of them),
 * starting with the profile's own so its shape wins when two could match.
 */
export function classifyLine(line: string, backend: Backend = 'vllm'): Classified {
  const order = backend === 'sglang' ? [sglang, vllm, trtllm] : backend === 'trtllm' ? [trtllm, vllm, sglang] : [vllm, sglang, trtllm];
  for (const f of order) {
    const r = f(line);
    if (r) return r;
  }
  return { rank: MAIN_RANK, text: line };
}

/**
 * The end of a vLLM-looking prefix "[ESC[36m](Name pid=N)[ESC[0m] " found with indexOf only: the hot
 * path for millions of lines. The regex then runs once per distinct prefix (see prefixCache).
 */
function vllmPrefixEnd(line: string): number {
  let i = 0;
  if (line.charCodeAt(0) === 0x1b) {
    i = line.indexOf('m', 1) + 1;
    if (i <= 0 || i > 12) return -1;
  }
  if (line.charCodeAt(i) !== 0x28 /* ( */) return -1;
  const close = line.indexOf(')', i);
  if (close < 0 || close - i > 96) return -1;
  let end = close + 1;
  if (line.charCodeAt(end) === 0x1b) {
    // The reset after the name: ESC[0;0m (vLLM today) or ESC[0m (older releases).
    const m = line.indexOf('m', end + 1);
    if (m > 0 && m - end <= 8) end = m + 1;
  }
  if (line.charCodeAt(end) === 0x20) end++;
  return end;
}

/** prefix → rank (or null: not a rank prefix). Bounded: cleared when it fills (pids change rarely). */
const prefixCache = new Map<string, string | null>();
const PREFIX_CACHE_MAX = 4096;

function vllm(line: string): Classified | undefined {
  const end = vllmPrefixEnd(line);
  if (end < 0) return undefined;
  const prefix = line.slice(0, end);
  let rank = prefixCache.get(prefix);
  if (rank === undefined) {
    const m = VLLM.exec(prefix);
    rank = m?.groups && m[0].length === end ? vllmRank(m.groups.proc!) : null;
    if (prefixCache.size >= PREFIX_CACHE_MAX) prefixCache.clear();
    prefixCache.set(prefix, rank);
  }
  return rank === null ? undefined : { rank, text: line.slice(end) };
}

function sglang(line: string): Classified | undefined {
  if (line.charCodeAt(0) !== 0x5b /* [ */) return undefined;
  const m = SGLANG.exec(line);
  if (!m?.groups) return undefined;
  const parts = new Map<string, string>();
  for (const p of (m.groups.parts ?? '').matchAll(SGLANG_PART)) parts.set(p[1]!, p[2]!);
  // The DP rank owns its tensor/pipeline/expert workers; without DP, a TP worker is its own id
  // (RankTracker counts TP<t> ids as one DP rank), and the other parts alone name the first one.
  const first = [...parts][0];
  const rank = parts.has('DP') ? `DP${parts.get('DP')!}` : parts.has('TP') ? `TP${parts.get('TP')!}` : first ? `${first[0]}${first[1]}` : MAIN_RANK;
  return { rank, text: line.slice(m[0].length) };
}

function trtllm(line: string): Classified | undefined {
  const c = TRTLLM_CPP.exec(line);
  if (c?.groups) return { rank: c.groups.rank !== undefined ? `RANK${c.groups.rank}` : MAIN_RANK, text: line.slice(c[0].length) };
  const m = TRTLLM.exec(line);
  if (m?.groups) return { rank: m.groups.rank !== undefined ? `RANK${m.groups.rank}` : MAIN_RANK, text: line.slice(m[0].length) };
  const l = LABEL.exec(line);
  if (l?.groups && /^\s*\d+:\s\[/.test(line)) return { rank: `RANK${l.groups.rank}`, text: line.slice(l[0].length) };
  return undefined;
}

/** Orders rank ids for display: main, DP0, DP1, …, DP10, then others, agent last. */
export function compareRanks(a: string, b: string): number {
  const key = (r: string): [number, string, number] => {
    if (r === MAIN_RANK) return [0, '', 0];
    if (r === AGENT_RANK) return [3, '', 0];
    const m = /^([A-Z]+)(\d+)$/.exec(r);
    return m ? [1, m[1]!, Number(m[2])] : [2, r, 0];
  };
  const [x, y] = [key(a), key(b)];
  return x[0] - y[0] || x[1].localeCompare(y[1]) || x[2] - y[2];
}
