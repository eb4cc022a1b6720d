/**
 * The agent's hello as rows for the Workers view: host, each GPU, the driver, and the tools the
 * capture needs (cuda-checkpoint or the driver's checkpoint API, CRIU with its self-check), with a
 * warning level where something the capture needs is missing.
 */
import type { HelloEvent } from '../protocol/agentEvents';

export interface HelloDetail {
  label: string;
  value: string;
  icon?: string;
  level?: 'warning' | 'error';
}

export function helloDetails(h: HelloEvent): HelloDetail[] {
  const rows: HelloDetail[] = [];
  rows.push({ label: 'host', value: `${h.hostname} · ${h.platform}${h.isRoot ? ' · root' : ` · uid ${h.uid}`}`, icon: 'server' });
  if (h.gpus.length === 0) rows.push({ label: 'GPU', value: 'none found', icon: 'circuit-board', level: 'warning' });
  for (const g of h.gpus) {
    const mem = g.memoryTotalMiB !== undefined ? ` · ${(g.memoryTotalMiB / 1024).toFixed(0)} GiB` : '';
    rows.push({ label: `GPU ${g.index}`, value: `${g.name}${mem}`, icon: 'circuit-board' });
  }
  rows.push({ label: 'driver', value: h.driverVersion ?? 'not found', icon: 'chip', level: h.driverVersion ? undefined : h.gpus.length ? 'warning' : undefined });
  const cc = h.cudaCheckpoint;
  const api = h.cudaDriverCheckpointApi;
  rows.push({
    label: 'cuda-checkpoint',
    value: cc.present ? `${cc.version ?? 'present'}${cc.path ? ` (${cc.path})` : ''}` : api ? 'not installed; the driver API will be used' : 'not found',
    icon: 'tools',
    level: cc.present || api || h.gpus.length === 0 ? undefined : 'warning',
  });
  const criu = h.criu;
  rows.push({
    label: 'CRIU',
    value: criu.present ? `${criu.version ?? 'present'}${criu.check ? ` · check: ${criu.check.ok ? 'ok' : criu.check.message}` : ''}` : 'not found',
    icon: 'tools',
    level: criu.present && criu.check && !criu.check.ok ? 'warning' : undefined,
  });
  rows.push({ label: 'python', value: h.python, icon: 'symbol-namespace' });
  rows.push({ label: 'agent', value: h.agentVersion, icon: 'versions' });
  return rows;
}
