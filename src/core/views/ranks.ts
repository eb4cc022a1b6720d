/** Rank ids come from the log router (core/logs/ranks.ts): "main", "DP0", "TP1", "RANK2", "agent". */
export { compareRanks } from '../logs/ranks';

/** A rank id safe to use as a file name (Save Logs…, document URIs). */
export function rankFileName(rank: string): string {
  return `${rank.replace(/[^A-Za-z0-9_.-]/g, '_') || 'rank'}.log`;
}
