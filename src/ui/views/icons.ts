/** Theme icons for phases, step states and evidence: one place, so trees and tooltips agree. */
import * as vscode from 'vscode';
import type { Evidence, RankPhase, StepState } from '../../core/workflow/types';

const PHASE_ICON: Record<RankPhase, string> = {
  load: 'cloud-download',
  warmup: 'flame',
  pause: 'debug-pause',
  ready: 'check',
  capture: 'device-camera',
  exit: 'debug-stop',
  restore: 'history',
  resume: 'debug-continue',
  serve: 'radio-tower',
};

export function phaseIcon(phase: RankPhase | undefined, health: 'ok' | 'warning' | 'error' | 'idle'): vscode.ThemeIcon {
  const color =
    health === 'error'
      ? new vscode.ThemeColor('list.errorForeground')
      : health === 'warning'
        ? new vscode.ThemeColor('list.warningForeground')
        : health === 'ok'
          ? new vscode.ThemeColor('charts.green')
          : undefined;
  return new vscode.ThemeIcon(phase ? PHASE_ICON[phase] : 'circle-outline', color);
}

export function stepIcon(state: StepState): vscode.ThemeIcon {
  switch (state) {
    case 'pending':
      return new vscode.ThemeIcon('circle-large-outline', new vscode.ThemeColor('disabledForeground'));
    case 'running':
      return new vscode.ThemeIcon('loading~spin');
    case 'passed':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'warned':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    case 'skipped':
      return new vscode.ThemeIcon('debug-step-over', new vscode.ThemeColor('disabledForeground'));
    case 'cancelled':
      return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
  }
}

export function evidenceIcon(kind: Evidence['kind']): vscode.ThemeIcon {
  const id = { log: 'output', exit: 'debug-stop', timing: 'watch', request: 'globe', diagnostic: 'bug', note: 'note' }[kind] ?? 'info';
  return new vscode.ThemeIcon(id);
}
