/** Display names of the rank lifecycle phases (shared by the trees and the timeline). */
import type { RankPhase } from '../workflow/types';

export const PHASE_TITLES: Record<RankPhase, string> = {
  load: 'load',
  warmup: 'warm-up',
  pause: 'pause',
  ready: 'ready',
  capture: 'capture',
  exit: 'exit',
  restore: 'restore',
  resume: 'resume',
  serve: 'serve',
};

/** "1.2 s", "340 ms", "2 min 5 s": short enough for a tree description. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** "+12.34 s" relative to the run's start. */
export function formatOffset(ms: number): string {
  return `+${(ms / 1000).toFixed(2)} s`;
}
