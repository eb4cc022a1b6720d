/**
 * A throwaway sshd on 127.0.0.1 for the system tests (shared/reference/worker-transport.md §1.6):
 * throwaway host and user keys, key-only, dedicated users whose login shells are bash, dash and zsh
 * (plus fish and tcsh when installed), and root. Each call gets its own directory and free port, so
 * test files running in parallel never collide; user creation is idempotent.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

export interface TestSshd {
  dir: string;
  port: number;
  /** ssh_config with one Host alias per shell: dsw-bash, dsw-dash, dsw-zsh, …, dsw-root. */
  configFile: string;
  /** Login shell → Host alias. */
  hosts: Record<string, string>;
  stop(): Promise<void>;
}

const SHELLS: Record<string, string> = { bash: '/bin/bash', dash: '/bin/dash', zsh: '/usr/bin/zsh', fish: '/usr/bin/fish', tcsh: '/usr/bin/tcsh' };

/** Why the sshd cannot run here, or undefined when it can. */
export function sshdUnavailable(): string | undefined {
  if (!fs.existsSync('/usr/sbin/sshd')) return 'no /usr/sbin/sshd (apt-get install openssh-server)';
  if (process.getuid?.() !== 0) return 'needs root to create the test users';
  for (const t of ['ssh', 'ssh-keygen', 'useradd']) {
    if (!['/usr/bin', '/usr/sbin', '/bin', '/sbin'].some((d) => fs.existsSync(path.join(d, t)))) return `no ${t}`;
  }
  for (const s of ['bash', 'dash', 'zsh']) if (!fs.existsSync(SHELLS[s]!)) return `no ${s} (apt-get install ${s})`;
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function ensureUser(name: string, shell: string): Promise<void> {
  const exists = (await execa('id', [name], { reject: false })).exitCode === 0;
  if (!exists) await execa('useradd', ['-m', '-s', shell, name]);
  else await execa('usermod', ['-s', shell, name]);
  // useradd leaves the account locked ("!"), which sshd refuses even for keys when UsePAM is off.
  await execa('usermod', ['-p', '*', name]);
}

export async function startSshd(): Promise<TestSshd> {
  const why = sshdUnavailable();
  if (why) throw new Error(why);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-sshd-'));
  fs.chmodSync(dir, 0o755); // the users must read authorized_keys in it
  const port = await freePort();
  const shells = Object.keys(SHELLS).filter((s) => fs.existsSync(SHELLS[s]!));
  for (const s of shells) await ensureUser(`dsw${s}`, SHELLS[s]!);
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'host_ed25519'), '-C', 'dsw-test-host']);
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'user_ed25519'), '-C', 'dsw-test-user']);
  fs.copyFileSync(path.join(dir, 'user_ed25519.pub'), path.join(dir, 'authorized_keys'));
  fs.chmodSync(path.join(dir, 'authorized_keys'), 0o644);
  fs.writeFileSync(
    path.join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${dir}/host_ed25519`,
      `PidFile ${dir}/sshd.pid`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'MaxSessions 64',
      'MaxStartups 100:30:200',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  const hostKey = fs.readFileSync(path.join(dir, 'host_ed25519.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  fs.writeFileSync(path.join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey}\n`);
  const hosts: Record<string, string> = {};
  const blocks: string[] = [];
  for (const [shell, user] of [...shells.map((s) => [s, `dsw${s}`]), ['root', 'root']] as [string, string][]) {
    hosts[shell] = `dsw-${shell}`;
    blocks.push(
      [
        `Host dsw-${shell}`,
        '  HostName 127.0.0.1',
        `  Port ${port}`,
        `  User ${user}`,
        `  IdentityFile ${dir}/user_ed25519`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${dir}/known_hosts`,
        '  StrictHostKeyChecking yes',
        '  BatchMode yes',
        '  LogLevel ERROR',
      ].join('\n'),
    );
  }
  const configFile = path.join(dir, 'ssh_config');
  fs.writeFileSync(configFile, blocks.join('\n') + '\n');
  fs.mkdirSync('/run/sshd', { recursive: true });
  await execa('/usr/sbin/sshd', ['-t', '-f', path.join(dir, 'sshd_config')]);
  await execa('/usr/sbin/sshd', ['-f', path.join(dir, 'sshd_config'), '-E', path.join(dir, 'sshd.log')]);
  const stop = async () => {
    try {
      const pid = Number(fs.readFileSync(path.join(dir, 'sshd.pid'), 'utf8').trim());
      // Per-connection sshd processes outlive the listener (a ControlMaster keeps them): end them too.
      for (const child of childrenOf(pid)) process.kill(child, 'SIGTERM');
      if (pid > 0) process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100; i++) {
    const r = await execa('ssh', ['-F', configFile, hosts.bash!, 'true'], { reject: false, stdin: 'ignore' });
    if (r.exitCode === 0) return { dir, port, configFile, hosts, stop };
    await new Promise((res) => setTimeout(res, 100));
  }
  const log = fs.readFileSync(path.join(dir, 'sshd.log'), 'utf8');
  await stop();
  throw new Error(`test sshd did not accept logins:\n${log.slice(-2000)}`);
}

/** skip(reason) unless DSW_REQUIRE_SYSTEM=1, where a missing part is a failure. */
export function skipOrFail(t: { skip(msg: string): void }, reason: string): void {
  if (process.env.DSW_REQUIRE_SYSTEM === '1') throw new Error(`required system part missing: ${reason}`);
  t.skip(reason);
}

function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
