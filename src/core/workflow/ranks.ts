/**
 * What each rank has said so far: the lifecycle markers seen (first time per kind), warm-up state and
 * a short tail of lines for evidence. Fed line by line; answers the questions the steps ask
 * ("has every DP rank warmed up?", "has every rank resumed?").
 */
import type { Backend } from '../logs/ranks';
import { parseLogLine } from './logLine';
import { matchMarker, type MarkerDef, type MarkerKind } from './markers';

export interface MarkerHit {
  rank: string;
  def: MarkerDef;
  at: number;
  line: string;
}

export interface RankState {
  id: string;
  lines: number;
  seen: Partial<Record<MarkerKind, MarkerHit>>;
  tail: string[];
  /** Note lines (capture-env overrides, …): every one, bounded, unlike `seen` which keeps the first of each kind. */
  notes: MarkerHit[];
  /** Lines this rank logged while the main process's warm-up ran (per-rank activity: extra evidence, never required). */
  warmupActivity: { lines: number; first?: string };
}

const MAX_NOTES = 20;

export class RankTracker {
  private readonly ranks = new Map<string, RankState>();
  /** Last lines over all ranks, in arrival order, for exit evidence. */
  private readonly merged: string[] = [];
  /** Rank of the line pushed last (lets the caller group lines by rank without parsing twice). */
  lastRank = 'main';

  constructor(
    private readonly backend: Backend = 'vllm',
    private readonly tailSize = 40,
  ) {}

  /** Feeds one raw line; returns the marker it carries, if any. */
  push(raw: string, at: number): MarkerHit | undefined {
    const { rank, message } = parseLogLine(raw, this.backend);
    this.lastRank = rank;
    const st = this.rank(rank);
    st.lines++;
    if (rank !== 'main') {
      const main = this.ranks.get('main')?.seen;
      if (main?.['warmup-start'] && !main['warmup-done'] && !main['warmup-failed']) {
        st.warmupActivity.lines++;
        st.warmupActivity.first ??= raw;
      }
    }
    st.tail.push(raw);
    if (st.tail.length > this.tailSize) st.tail.shift();
    this.merged.push(raw);
    if (this.merged.length > this.tailSize) this.merged.shift();
    const def = matchMarker(message);
    if (!def) return undefined;
    const hit: MarkerHit = { rank, def, at, line: raw };
    if (def.kind === 'note' && st.notes.length < MAX_NOTES) st.notes.push(hit);
    // The first occurrence is the one that counts (a restored process repeats nothing before it).
    st.seen[def.kind] ??= hit;
    return hit;
  }

  /** Forgets restore/resume markers so a second restore cycle is judged on its own lines. */
  resetKinds(kinds: readonly MarkerKind[]): void {
    for (const st of this.ranks.values()) for (const k of kinds) delete st.seen[k];
  }

  clear(): void {
    this.ranks.clear();
    this.merged.length = 0;
  }

  rank(id: string): RankState {
    let st = this.ranks.get(id);
    if (!st) {
      st = { id, lines: 0, seen: {}, tail: [], notes: [], warmupActivity: { lines: 0 } };
      this.ranks.set(id, st);
    }
    return st;
  }

  all(): RankState[] {
    return [...this.ranks.values()].sort((a, b) => rankOrder(a.id) - rankOrder(b.id) || a.id.localeCompare(b.id));
  }

  /**
   * Data-parallel ranks to judge: `DP0..DP<n-1>` (or TRT-LLM's `RANK0..`) when the size is known, else
   * the DP ranks seen, else the single `main`. SGLang's `TP<t>` ids are tensor-parallel workers of one
   * DP rank, so they count as a single rank.
   */
  expectedRanks(dataParallelSize?: number): string[] {
    const seen = this.all().map((r) => r.id);
    const family = seen.some((id) => /^DP\d+$/.test(id)) ? 'DP' : seen.some((id) => /^RANK\d+$/.test(id)) ? 'RANK' : 'DP';
    if (dataParallelSize !== undefined) {
      return dataParallelSize === 1 ? ['main'] : Array.from({ length: dataParallelSize }, (_, i) => `${family}${i}`);
    }
    const ranks = seen.filter((id) => new RegExp(`^${family}\\d+$`).test(id));
    return ranks.length > 1 ? ranks : ['main'];
  }

  /** The hit of `kind` on `rank`; with a single expected rank, a hit on any rank counts. */
  hit(rank: string, kind: MarkerKind, expected: readonly string[]): MarkerHit | undefined {
    const own = this.ranks.get(rank)?.seen[kind];
    if (own) return own;
    if (expected.length === 1) return this.first(kind);
    return undefined;
  }

  /** The earliest hit of `kind` on any rank. */
  first(kind: MarkerKind): MarkerHit | undefined {
    let best: MarkerHit | undefined;
    for (const st of this.ranks.values()) {
      const h = st.seen[kind];
      if (h && (!best || h.at < best.at)) best = h;
    }
    return best;
  }

  tail(n = 20): string[] {
    return this.merged.slice(-n);
  }
}

function rankOrder(id: string): number {
  const m = /^DP(\d+)$/.exec(id);
  return m ? Number(m[1]) : id === 'main' ? -1 : 1e9;
}
