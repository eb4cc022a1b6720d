/**
 * How the agent reaches the worker: `python3 -c LOADER N M SUBCOMMAND`, then the N bytes of
 * media/agent/dsw_agent.py and the M bytes of the JSON config written to stdin. The config travels
 * on stdin, not in argv, so profile env values never show up in the worker's process list. The
 * loader reads exactly N+M bytes with os.read (no buffered reader that could swallow what follows),
 * so stdin stays usable afterwards: its EOF tells the agent the extension is gone. Nothing is
 * installed or copied on the worker for this.
 */
import fs from 'node:fs';
import path from 'node:path';

export const AGENT_RELATIVE_PATH = path.join('media', 'agent', 'dsw_agent.py');

/** Python 3.8+ loader; sys.argv = ['-c', N, M, SUBCOMMAND]. */
export const LOADER = [
  'import os,sys',
  'n=int(sys.argv[1]);m=int(sys.argv[2]);b=bytearray()',
  'while len(b)<n+m:',
  ' c=os.read(0,n+m-len(b))',
  ' if not c:sys.exit("dsw: agent script truncated on stdin")',
  ' b+=c',
  'sys.argv=["dsw_agent.py",sys.argv[3],bytes(b[n:]).decode("utf-8")]',
  'exec(compile(bytes(b[:n]),"dsw_agent.py","exec"),{"__name__":"__main__","__dsw_source__":bytes(b[:n])})',
].join('\n');

export function readAgentScript(extensionRoot: string): Buffer {
  return fs.readFileSync(path.join(extensionRoot, AGENT_RELATIVE_PATH));
}

/** The argv and the stdin prefix (script + config) for one agent run. */
export function agentInvocation(python: string, script: Buffer, subcommand: string, config: unknown): { argv: string[]; stdin: Buffer } {
  const cfg = Buffer.from(JSON.stringify(config ?? {}), 'utf8');
  return { argv: [python, '-c', LOADER, String(script.length), String(cfg.length), subcommand], stdin: Buffer.concat([script, cfg]) };
}
