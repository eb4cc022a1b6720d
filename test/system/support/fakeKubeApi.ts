/**
 * A small fake Kubernetes API server (shared/reference/worker-transport.md §2.3) so the real
 * kubectl can be driven offline: discovery, GET pod / list pods by label, and pods/exec upgraded to
 * a WebSocket (v5/v4.channel.k8s.io) that runs the requested argv on this machine with no shell.
 * It is a stand-in, not a cluster: it checks argv passing, stdin/stdout/stderr, exit codes and
 * pod selection; it cannot check RBAC, exec credential plugins, container runtimes or orphans.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { kubeconfigText } from './kubeconfig';

export interface FakePod {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  containers?: string[];
  phase?: string;
  /** Optional, additive: served as-is and read on every request, so a test can change them mid-run. */
  annotations?: Record<string, string>;
  conditions?: unknown[];
  containerStatuses?: unknown[];
  /** The container log a non-follow `kubectl logs` gets (default: the 5 generated lines' first). */
  log?: string;
}

/** Optional, additive: what a snapshot-observing test serves besides pods (read on every request). */
export interface FakeKubeExtra {
  /** Items of `get events` (default: one RestoreSucceeded event). */
  events?: unknown[];
  /** DynamoCheckpoint objects by name (nvidia.com/v1alpha1, advertised only when given). */
  checkpoints?: Record<string, unknown>;
}

export interface FakeKubeApi {
  url: string;
  kubeconfig: string;
  /** argv of every exec, for assertions. */
  execs: { pod: string; container?: string; argv: string[] }[];
  stop(): Promise<void>;
}

function podJson(p: FakePod) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: p.name, namespace: p.namespace, labels: p.labels ?? {}, uid: crypto.randomUUID(), ...(p.annotations ? { annotations: p.annotations } : {}) },
    spec: { containers: (p.containers ?? ['main']).map((name) => ({ name, image: 'standin' })) },
    status: { phase: p.phase ?? 'Running', ...(p.conditions ? { conditions: p.conditions } : {}), ...(p.containerStatuses ? { containerStatuses: p.containerStatuses } : {}) },
  };
}

/** One unmasked server frame (binary unless opcode says otherwise). */
function frame(payload: Buffer, opcode = 2): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | opcode, n]) : n < 65536 ? Buffer.from([0x80 | opcode, 126, n >> 8, n & 255]) : Buffer.alloc(10);
  if (n >= 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** Parses masked client frames from a growing buffer; returns [frames, rest]. */
function parseFrames(buf: Buffer): [{ opcode: number; data: Buffer }[], Buffer] {
  const out: { opcode: number; data: Buffer }[] = [];
  let off = 0;
  for (;;) {
    if (buf.length - off < 2) break;
    const opcode = buf[off]! & 0x0f;
    const masked = (buf[off + 1]! & 0x80) !== 0;
    let len = buf[off + 1]! & 0x7f;
    let p = off + 2;
    if (len === 126) {
      if (buf.length - p < 2) break;
      len = buf.readUInt16BE(p);
      p += 2;
    } else if (len === 127) {
      if (buf.length - p < 8) break;
      len = Number(buf.readBigUInt64BE(p));
      p += 8;
    }
    const mask = masked ? buf.subarray(p, p + 4) : undefined;
    if (masked) p += 4;
    if (buf.length - p < len) break;
    const data = Buffer.from(buf.subarray(p, p + len));
    if (mask) for (let i = 0; i < data.length; i++) data[i]! ^= mask[i % 4]!;
    out.push({ opcode, data });
    off = p + len;
  }
  return [out, buf.subarray(off)];
}

export async function startFakeKubeApi(pods: FakePod[], dir: string, extra: FakeKubeExtra = {}): Promise<FakeKubeApi> {
  const execs: FakeKubeApi['execs'] = [];
  const sockets = new Set<net.Socket>();
  const json = (res: http.ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const p = u.pathname;
    if (p === '/version') return json(res, 200, { major: '1', minor: '32', gitVersion: 'v1.32.0-fake' });
    if (p === '/api') return json(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (p === '/apis') {
      const groups = extra.checkpoints ? [{ name: 'nvidia.com', versions: [{ groupVersion: 'nvidia.com/v1alpha1', version: 'v1alpha1' }], preferredVersion: { groupVersion: 'nvidia.com/v1alpha1', version: 'v1alpha1' } }] : [];
      return json(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups });
    }
    if (p === '/apis/nvidia.com/v1alpha1' && extra.checkpoints) {
      return json(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'nvidia.com/v1alpha1', resources: [{ name: 'dynamocheckpoints', singularName: 'dynamocheckpoint', namespaced: true, kind: 'DynamoCheckpoint', verbs: ['get', 'list'], shortNames: ['dckpt'] }] });
    }
    const ckpt = /^\/apis\/nvidia\.com\/v1alpha1\/namespaces\/([^/]+)\/dynamocheckpoints\/([^/]+)$/.exec(p);
    if (ckpt && extra.checkpoints) {
      const o = extra.checkpoints[ckpt[2]!];
      if (o) return json(res, 200, o);
      return json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `dynamocheckpoints.nvidia.com "${ckpt[2]}" not found`, reason: 'NotFound', code: 404 });
    }
    if (p === '/api/v1') {
      return json(res, 200, {
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [
          { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
          { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
          { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
          { name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: ['get', 'list'], shortNames: ['ev'] },
        ],
      });
    }
    const one = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(p);
    if (one) {
      const pod = pods.find((x) => x.namespace === one[1] && x.name === one[2]);
      if (pod) return json(res, 200, podJson(pod));
      return json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `pods "${one[2]}" not found`, reason: 'NotFound', code: 404 });
    }
    const log = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(p);
    if (log) {
      const served = pods.find((x) => x.namespace === log[1] && x.name === log[2])?.log;
      if (served !== undefined && u.searchParams.get('follow') !== 'true') {
        const tailLines = Number(u.searchParams.get('tailLines') ?? 'NaN');
        const lines = served.split('\n').filter(Boolean);
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end((Number.isFinite(tailLines) ? lines.slice(-tailLines) : lines).map((l) => `${l}\n`).join(''));
        return;
      }
      // A few lines, 100 ms apart, then the end (the "container" exits).
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      let i = 0;
      const follow = u.searchParams.get('follow') === 'true';
      const tick = () => {
        res.write(`${new Date().toISOString()} (EngineCore_DP${i % 2} pid=7) line ${i}\n`);
        if (++i < 5 && follow) setTimeout(tick, 100);
        else res.end();
      };
      tick();
      return;
    }
    if (/^\/api\/v1\/namespaces\/([^/]+)\/events$/.test(p)) {
      return json(res, 200, {
        kind: 'EventList',
        apiVersion: 'v1',
        metadata: {},
        items: extra.events ?? [{ metadata: { name: 'e1', namespace: 'llm' }, involvedObject: { kind: 'Pod', name: 'worker-0' }, reason: 'RestoreSucceeded', message: 'Restore completed from checkpoint abc', type: 'Normal', source: { component: 'snapshot' } }],
      });
    }
    const list = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/.exec(p);
    if (list) {
      const sel = (u.searchParams.get('labelSelector') ?? '').split(',').filter(Boolean).map((kv) => kv.split('='));
      const items = pods.filter((x) => x.namespace === list[1] && sel.every(([k, v]) => x.labels?.[k!] === v)).map(podJson);
      return json(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items });
    }
    json(res, 404, { kind: 'Status', status: 'Failure', message: `fake API: no ${p}`, code: 404 });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req, socket: net.Socket) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/.exec(u.pathname);
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
    const proto = ['v5.channel.k8s.io', 'v4.channel.k8s.io'].find((x) => offered.includes(x));
    if (!m || !proto || !pods.some((x) => x.namespace === m[1] && x.name === m[2])) {
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const accept = crypto.createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${proto}\r\n\r\n`);
    const argv = u.searchParams.getAll('command');
    execs.push({ pod: m[2]!, container: u.searchParams.get('container') ?? undefined, argv });
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    const send = (ch: number, data: Buffer) => {
      if (!socket.destroyed) socket.write(frame(Buffer.concat([Buffer.from([ch]), data])));
    };
    child.stdout.on('data', (d: Buffer) => send(1, d));
    child.stderr.on('data', (d: Buffer) => send(2, d));
    child.stdin.on('error', () => undefined);
    child.on('error', (e) => send(2, Buffer.from(`${e.message}\n`)));
    let stdoutDone = false;
    let exit: number | null | undefined;
    const finish = () => {
      if (!stdoutDone || exit === undefined) return;
      const status =
        exit === 0
          ? { metadata: {}, status: 'Success' }
          : { metadata: {}, status: 'Failure', message: `command terminated with non-zero exit code: ${exit}`, reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(exit ?? 137) }] } };
      send(3, Buffer.from(JSON.stringify(status)));
      if (!socket.destroyed) socket.end(frame(Buffer.from([0x03, 0xe8]), 8));
    };
    child.stdout.on('end', () => {
      stdoutDone = true;
      finish();
    });
    child.on('exit', (code) => {
      exit = code;
      finish();
    });
    let buf: Buffer = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      const [frames, rest] = parseFrames(Buffer.concat([buf, d]));
      buf = rest;
      for (const f of frames) {
        if (f.opcode === 8) child.stdin.end();
        else if (f.opcode === 9) socket.write(frame(f.data, 10));
        else if (f.data[0] === 0 && f.data.length > 1) child.stdin.write(f.data.subarray(1));
        else if (f.data[0] === 255 && f.data[1] === 0) child.stdin.end(); // v5: close stdin
      }
    });
    // The client went away: what a real container runtime does is not knowable here, so just close stdin.
    socket.on('close', () => child.stdin.end());
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, kubeconfigText({ name: 'fake', server: url }));
  return {
    url,
    kubeconfig,
    execs,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
