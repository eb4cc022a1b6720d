/**
 * How the agent reaches the worker: `python3 -c LOADER N SUBCOMMAND CONFIG`, with the N bytes of
 * media/agent/dsw_agent.py written to stdin first. The loader reads exactly N bytes with os.read
 * (no buffered reader that could swallow what follows), so stdin stays usable afterwards: its EOF
 * tells the agent the extension is gone. Nothing is installed or copied on the worker for this.
 */
import fs from 'node:fs';
import path from 'node:path';

export const AGENT_RELATIVE_PATH = path.join('media', 'agent', 'dsw_agent.py');

/** Python 3.8+ loader; sys.argv = ['-c', N, SUBCOMMAND, CONFIG]. */
export const LOADER = [
  'import os,sys',
  'n=int(sys.argv[1]);b=bytearray()',
  'while len(b)<n:',
  ' c=os.read(0,n-len(b))',
  ' if not c:sys.exit("dsw: agent script truncated on stdin")',
  ' b+=c',
  'sys.argv=["dsw_agent.py"]+sys.argv[2:]',
  'exec(compile(bytes(b),"dsw_agent.py","exec"),{"__name__":"__main__","__dsw_source__":bytes(b)})',
].join('\n');

export function readAgentScript(extensionRoot: string): Buffer {
  return fs.readFileSync(path.join(extensionRoot, AGENT_RELATIVE_PATH));
}

export function agentArgv(python: string, script: Buffer, subcommand: string, config: unknown): string[] {
  return [python, '-c', LOADER, String(script.length), subcommand, JSON.stringify(config)];
}
