/**
 * Log throughput: 8 ranks of vLLM-style lines (1 GiB in total by default) streamed by the agent's
 * `follow` over the SSH transport into the log router, against the anchor measured in the same run:
 * `cat` of the same files over the same SSH ControlMaster connection, bytes counted in Node.
 *   node out/bench/transport/logThroughput.bench.js [--size-mb 1024] [--rounds 1]
 * Needs root (the throwaway sshd of test/system/support/sshd.ts). Prints bytes/s, the ratio and the
 * router's memory (heap and RSS growth, tail sizes).
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogRouter } from '../../src/core/logs/router';
import { WorkerProfile } from '../../src/core/settings/workerProfile';
import { AgentConnection } from '../../src/transport/connection';
import { LocalTransport } from '../../src/transport/local';
import { SshTransport } from '../../src/transport/ssh';
import type { WorkerTransport } from '../../src/transport/types';
import { startSshd } from '../../test/system/support/sshd';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SIZE_MB = arg('--size-mb', Number(process.env.DSW_BENCH_MB ?? 1024));
const RANKS = 8;
/** --local: the same pipeline without ssh (agent → pipe → router), to see what ssh costs. */
const LOCAL = process.argv.includes('--local');
/** DSW_BENCH_MARK=FILE: touched when each phase starts, for an outside per-process CPU sampler. */
const mark = () => process.env.DSW_BENCH_MARK && fs.writeFileSync(process.env.DSW_BENCH_MARK, '');
/** --profile FILE: a V8 CPU profile of the extension side during the agent→router phase only, and its top functions. */
const PROFILE = process.argv.includes('--profile') ? process.argv[process.argv.indexOf('--profile') + 1] : undefined;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function topSelf(p: Profile, n: number): string[] {
  const byId = new Map<number, number>();
  p.samples.forEach((id, i) => byId.set(id, (byId.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const self = new Map<string, number>();
  for (const node of p.nodes) {
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + (byId.get(node.id) ?? 0));
  }
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => `${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
}

// Each rank file gets SIZE/8 bytes of realistic lines (ANSI-coloured vLLM prefix, varying text).
const GEN = `
import os, sys
d, per = sys.argv[1], int(sys.argv[2])
words = "scheduler step prefill decode tokens kv cache block usage throughput latency ms".split()
for r in range(${RANKS}):
    with open(os.path.join(d, "rank%d.log" % r), "wb", buffering=1 << 20) as f:
        n, i = 0, 0
        while n < per:
            line = ("\\x1b[36m(EngineCore_DP%d pid=%d)\\x1b[0m INFO 09-02 15:50:01 [core.py:%d] %s %s=%d %s\\n" % (
                r, 1000 + r, i % 900, words[i % len(words)], words[(i * 7) % len(words)], i, "x" * (i % 60))).encode()
            f.write(line); n += len(line); i += 1
`;

function mb(n: number): string {
  return (n / 1048576).toFixed(1);
}

async function main(): Promise<void> {
  const sshd = await startSshd();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-bench-'));
  const env = { sshPath: 'ssh', sshConfigFile: sshd.configFile, kubectlPath: 'kubectl', extensionRoot: findRoot(), scratchDir: scratch };
  const profile = WorkerProfile.parse({ name: 'bench', transport: { kind: 'ssh', host: sshd.hosts.bash! }, python: '/usr/bin/python3', command: ['sleep', '600'] });
  const transport: WorkerTransport = LOCAL ? new LocalTransport() : new SshTransport({ kind: 'ssh', host: sshd.hosts.bash!, options: [] }, env);
  const conn = new AgentConnection(profile, env, transport);
  let handle: Awaited<ReturnType<typeof conn.startSource>> | undefined;
  try {
    await transport.connect();
    const h = await conn.startSource(`bench-${Date.now()}`, AbortSignal.timeout(60_000));
    handle = h;
    const logDir = `${h.runDir}/logs`;
    const per = Math.floor((SIZE_MB * 1048576) / RANKS);
    let t = Date.now();
    const gen = await transport.run(['python3', '-c', GEN, logDir, String(per)], { timeoutMs: 600_000 });
    if (gen.code !== 0) throw new Error(`generator failed: ${gen.stderr}`);
    const files = Array.from({ length: RANKS }, (_, r) => `${logDir}/rank${r}.log`);
    const sizes = await transport.run(['stat', '-c', '%s', ...files]);
    const total = sizes.stdout.trim().split('\n').reduce((a, s) => a + Number(s), 0);
    console.log(`generated ${mb(total)} MiB in ${RANKS} rank files in ${((Date.now() - t) / 1000).toFixed(1)} s`);

    // Anchor: cat of the same files over the same ControlMaster, bytes counted in Node.
    mark();
    t = performance.now();
    const cat = transport.spawn(['cat', ...files]);
    cat.stdin.end();
    let catBytes = 0;
    for await (const c of cat.stdout as AsyncIterable<Buffer>) catBytes += c.length;
    await cat.exited;
    const catS = (performance.now() - t) / 1000;

    // Ours: agent follow (offsets, JSON events) → zod validation → router (rank split, tails, per-rank files).
    const router = createLogRouter({ dir: path.join(scratch, 'router'), backend: 'vllm' });
    global.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    const rss0 = process.memoryUsage().rss;
    let heapMax = heap0;
    let rssMax = rss0;
    let retainedMax = heap0;
    const cpu0 = process.cpuUsage();
    let got = 0;
    let events = 0;
    const ac = new AbortController();
    const inspector = PROFILE ? new Session() : undefined;
    if (inspector) {
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.start');
    }
    mark();
    t = performance.now();
    for await (const e of conn.follow(h, { signal: ac.signal })) {
      if (e.type !== 'log' || !e.file.startsWith('rank')) continue;
      router.push(e.file, e.bytes ?? e.data);
      got += e.end - e.start;
      if (++events % 64 === 0) {
        const m = process.memoryUsage();
        heapMax = Math.max(heapMax, m.heapUsed);
        rssMax = Math.max(rssMax, m.rss);
      }
      // What the router keeps (after a full GC), sampled every ~128 MiB: this is the "flat" figure.
      if (events % 128 === 0 && global.gc) {
        global.gc();
        retainedMax = Math.max(retainedMax, process.memoryUsage().heapUsed);
      }
      if (got >= total) break;
    }
    const oursS = (performance.now() - t) / 1000;
    mark();
    if (inspector && PROFILE) {
      const { profile } = (await inspector.post('Profiler.stop')) as unknown as { profile: Profile };
      fs.writeFileSync(PROFILE, JSON.stringify(profile));
      console.log(`profile of the agent→router phase (${PROFILE}), self time:\n${topSelf(profile, 15).join('\n')}`);
      inspector.disconnect();
    }
    const cpu = process.cpuUsage(cpu0);
    ac.abort();
    const st = router.stats();
    const tails = router.ranks().map((r) => router.tail(r).length);
    router.dispose();

    const oursBps = got / oursS;
    const catBps = catBytes / catS;
    console.log(`transport           : ${transport.label}`);
    console.log(`anchor cat          : ${mb(catBytes)} MiB in ${catS.toFixed(2)} s = ${mb(catBps)} MiB/s`);
    console.log(`agent→router        : ${mb(got)} MiB in ${oursS.toFixed(2)} s = ${mb(oursBps)} MiB/s (${st.lines} lines, ${events} events)`);
    console.log(`ratio ours/anchor   : ${(oursBps / catBps).toFixed(3)} (target >= 0.9)`);
    console.log(`extension CPU       : ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s over ${oursS.toFixed(2)} s wall (${((cpu.user + cpu.system) / 1e4 / oursS).toFixed(0)}% of one core)`);
    console.log(`router memory       : retained heap after GC ${mb(heap0)} → max ${mb(retainedMax)} MiB${global.gc ? '' : ' (run with --expose-gc)'}; heap peak ${mb(heapMax)} MiB, rss peak ${mb(rssMax)} MiB; tails ${tails.join(',')} lines (cap 2000/rank)`);
  } finally {
    if (handle) {
      await conn.stop(handle, 1000).catch(() => undefined);
      await transport.run(['rm', '-rf', handle.runDir]).catch(() => undefined);
    }
    await conn.dispose();
    await sshd.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function findRoot(): string {
  let d = __dirname;
  while (!fs.existsSync(path.join(d, 'media', 'agent', 'dsw_agent.py'))) d = path.dirname(d);
  return d;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
