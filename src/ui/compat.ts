/**
 * VS Code APIs newer than the engines.vscode floor (1.100; docs/architecture.md says why), used where
 * the running VS Code has them, with the 1.100 path kept. @types/vscode stays at the floor, so each
 * newer member is declared here with the release that added it; the integration and UI tiers run on
 * the minimum (1.100.3) and the newest (1.139.1) host, so both paths run.
 */
import * as vscode from 'vscode';

/** The release that added each API this module uses. */
export const API_SINCE = {
  /** QuickPickOptions.prompt / QuickPick.prompt: instructions shown under the input, above the items. */
  quickPickPrompt: '1.108',
} as const;

/** Whether `running` (default: this VS Code) is at least `release` (major.minor; "1.140.0-insider" counts as 1.140). */
export function vscodeAtLeast(release: string, running: string = vscode.version): boolean {
  const [ra = 0, rb = 0] = running.split(/[.-]/).map(Number);
  const [a = 0, b = 0] = release.split('.').map(Number);
  return ra > a || (ra === a && rb >= b);
}

/** QuickPickOptions as VS Code 1.108 declares them. */
export type QuickPickOptionsWithPrompt = vscode.QuickPickOptions & { prompt?: string };

/**
 * Quick pick options that also say what the choice is for. Since 1.108 VS Code shows `prompt` under the
 * input and keeps it while the user types; before, it ignores `prompt`, so the text joins the placeholder
 * (shown until the user types) instead of being lost.
 */
export function withPrompt(options: vscode.QuickPickOptions & { placeHolder: string }, prompt: string, running: string = vscode.version): QuickPickOptionsWithPrompt {
  return vscodeAtLeast(API_SINCE.quickPickPrompt, running) ? { ...options, prompt } : { ...options, placeHolder: `${options.placeHolder} ${prompt}` };
}
