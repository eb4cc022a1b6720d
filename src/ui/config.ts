/**
 * The VS Code side of settings: reads `dynamoSnapshot.*` through core/settings (zod), re-reads on
 * change, and shows each new problem once, naming the setting and what is wrong.
 */
import * as vscode from 'vscode';
import { readSettings, SECTION, formatSettingProblem, type Settings, type SettingProblem } from '../core/settings/settings';

export class ConfigService implements vscode.Disposable {
  private current: { settings: Settings; problems: SettingProblem[] };
  private readonly shown = new Set<string>();
  private readonly emitter = new vscode.EventEmitter<vscode.ConfigurationChangeEvent>();
  private readonly listener: vscode.Disposable;
  readonly onDidChange = this.emitter.event;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.current = this.read();
    this.listener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION)) return;
      this.current = this.read();
      this.report();
      this.emitter.fire(e);
    });
  }

  get settings(): Settings {
    return this.current.settings;
  }

  get problems(): readonly SettingProblem[] {
    return this.current.problems;
  }

  private read(): { settings: Settings; problems: SettingProblem[] } {
    const cfg = vscode.workspace.getConfiguration(SECTION);
    // In an untrusted workspace, restricted settings come from user settings only (VS Code applies
    // restrictedConfigurations for us); everything still goes through the same validation.
    return readSettings((key) => {
      if (key === 'lint') return lintObject(cfg);
      return cfg.get(key);
    });
  }

  /** Shows each problem once per session (a warning with a button to open the settings). */
  report(): void {
    for (const p of this.current.problems) {
      const text = formatSettingProblem(p);
      if (this.shown.has(text)) continue;
      this.shown.add(text);
      this.log.warn(text);
      void vscode.window.showWarningMessage(text, 'Open Settings').then((choice) => {
        if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', p.setting);
      });
    }
  }

  dispose(): void {
    this.listener.dispose();
    this.emitter.dispose();
  }
}

/** `dynamoSnapshot.lint.*` as one object, leaving out keys that are unset so zod applies defaults. */
function lintObject(cfg: vscode.WorkspaceConfiguration): Record<string, unknown> {
  const keys = ['enable', 'include', 'run', 'severity', 'codeAction', 'timeBudget'];
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = cfg.get(`lint.${k}`);
    if (v !== undefined) out[k] = v;
  }
  return out;
}
