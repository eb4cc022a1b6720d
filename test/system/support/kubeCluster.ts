/**
 * A real Kubernetes API server for the system tests: kube-apiserver built from the Go module proxy
 * (scripts/kube-apiserver.sh, cached in .cache/kube-apiserver) on Debian's etcd (etcd-server), on
 * 127.0.0.1 only, with TLS, a static bearer token and AlwaysAllow authorization. Discovery, CRDs
 * and their schema validation, status subresources, watches, events and kubectl's every request are
 * the real server's. There is no kubelet or scheduler: pods are created with `spec.nodeName` set and
 * their status is written through the status subresource as the kubelet (and the snapshot agent)
 * would; `kubectl logs` is proxied by the API server, as on any cluster, to the node's kubelet
 * endpoint, which this module serves (`/containerLogs/<ns>/<pod>/<container>`, from `logs`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { repoRoot } from '../../support/paths';
import { kubeconfigText } from './kubeconfig';

export const K8S_VERSION = 'v1.32.4';

export interface KubeCluster {
  url: string;
  kubeconfig: string;
  /** container logs the node serves, by `<ns>/<pod>/<container>` */
  logs: Map<string, string>;
  /** A request to the API server as cluster admin; resolves with the status and the parsed body. */
  request(method: string, apiPath: string, body?: unknown, contentType?: string): Promise<{ status: number; body: unknown }>;
  /** Like request, but throws unless 2xx. */
  must(method: string, apiPath: string, body?: unknown, contentType?: string): Promise<unknown>;
  stop(): Promise<void>;
}

/** Where the binaries are, or why the real server cannot run here. */
export function kubeClusterParts(): { apiserver: string; etcd: string } | { missing: string } {
  const apiserver = process.env.DSW_KUBE_APISERVER ?? path.join(repoRoot, '.cache/kube-apiserver', K8S_VERSION, 'kube-apiserver');
  if (!fs.existsSync(apiserver)) return { missing: `kube-apiserver ${K8S_VERSION} not built (bash scripts/kube-apiserver.sh; scripts/setup.sh runs it)` };
  const etcd = ['/usr/bin/etcd', '/usr/local/bin/etcd'].find((p) => fs.existsSync(p));
  if (!etcd) return { missing: 'etcd not installed (Debian package etcd-server)' };
  return { apiserver, etcd };
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

async function until(what: string, seconds: number, check: () => Promise<boolean>, logs: () => string): Promise<void> {
  const end = Date.now() + seconds * 1000;
  for (let i = 0; Date.now() < end; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** i, 500)));
  }
  throw new Error(`${what} did not happen within ${seconds} s:\n${logs().slice(-3000)}`);
}

/** Starts etcd and the API server with their state in `dir`, which `stop()` removes. */
export async function startKubeCluster(dir: string): Promise<KubeCluster> {
  const parts = kubeClusterParts();
  if ('missing' in parts) throw new Error(parts.missing);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const certs = path.join(dir, 'certs');
  fs.mkdirSync(certs, { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  fs.writeFileSync(path.join(certs, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
  fs.writeFileSync(path.join(certs, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
  const token = crypto.randomBytes(24).toString('hex');
  fs.writeFileSync(path.join(certs, 'tokens.csv'), `${token},dsw-admin,1000,system:masters\n`, { mode: 0o600 });
  const [etcdClient, etcdPeer, apiPort, kubeletPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const procs: ChildProcess[] = [];
  let out = '';
  const keep = (p: ChildProcess, name: string) => {
    procs.push(p);
    p.stdout?.on('data', (d: Buffer) => (out = (out + `[${name}] ${d.toString()}`).slice(-20000)));
    p.stderr?.on('data', (d: Buffer) => (out = (out + `[${name}] ${d.toString()}`).slice(-20000)));
  };
  const etcdUrl = `http://127.0.0.1:${etcdClient}`;
  keep(
    spawn(parts.etcd, ['--data-dir', path.join(dir, 'etcd'), '--listen-client-urls', etcdUrl, '--advertise-client-urls', etcdUrl, '--listen-peer-urls', `http://127.0.0.1:${etcdPeer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeer}`, '--initial-cluster', `default=http://127.0.0.1:${etcdPeer}`], { stdio: ['ignore', 'pipe', 'pipe'] }),
    'etcd',
  );
  keep(
    spawn(parts.apiserver, [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${certs}`,
      `--token-auth-file=${path.join(certs, 'tokens.csv')}`,
      '--authorization-mode=AlwaysAllow',
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${path.join(certs, 'sa.pub')}`,
      `--service-account-signing-key-file=${path.join(certs, 'sa.key')}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      // No controller-manager makes default service accounts, so pods must not need one.
      '--disable-admission-plugins=ServiceAccount',
      '--kubelet-preferred-address-types=InternalIP',
      '--profiling=false',
    ], { stdio: ['ignore', 'pipe', 'pipe'] }),
    'apiserver',
  );
  const stopAll = async () => {
    for (const p of procs.reverse()) {
      if (p.exitCode === null && p.signalCode === null) {
        p.kill('SIGTERM');
        await new Promise<void>((r) => {
          const t = setTimeout(() => (p.kill('SIGKILL'), r()), 5000);
          p.once('exit', () => (clearTimeout(t), r()));
        });
      }
    }
  };
  const crt = path.join(certs, 'apiserver.crt');
  let ca: Buffer | undefined;
  const request = (method: string, apiPath: string, body?: unknown, contentType = 'application/json') =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = https.request(
        { host: '127.0.0.1', port: apiPort, path: apiPath, method, ca, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(data ? { 'Content-Type': contentType, 'Content-Length': data.length } : {}) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              /* plain text (readyz) */
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${apiPath}: no answer in 30 s`)));
      req.end(data);
    });
  const must = async (method: string, apiPath: string, body?: unknown, contentType?: string) => {
    const r = await request(method, apiPath, body, contentType);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${apiPath} → ${r.status}: ${JSON.stringify(r.body).slice(0, 600)}`);
    return r.body;
  };
  const logs = new Map<string, string>();
  let kubelet: https.Server | undefined;
  try {
    await until('the API server writes its serving certificate', 60, async () => fs.existsSync(crt) && fs.readFileSync(crt, 'utf8').includes('END CERTIFICATE'), () => out);
    ca = fs.readFileSync(crt);
    await until('kube-apiserver /readyz', 90, async () => (await request('GET', '/readyz')).status === 200, () => out);
    // The node: its kubelet endpoint serves container logs (the API server proxies kubectl logs there).
    kubelet = https.createServer({ key: fs.readFileSync(path.join(certs, 'apiserver.key')), cert: ca }, (req, res) => {
      const u = new URL(req.url ?? '/', 'https://x');
      const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(u.pathname);
      const text = m ? logs.get(`${m[1]}/${m[2]}/${m[3]}`) : undefined;
      if (text === undefined) {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end(`no log for ${u.pathname}\n`);
        return;
      }
      let lines = text.split('\n').filter(Boolean);
      const tail = Number(u.searchParams.get('tailLines') ?? 'NaN');
      if (Number.isFinite(tail) && tail >= 0) lines = lines.slice(-tail);
      if (u.searchParams.get('timestamps') === 'true') lines = lines.map((l) => `${new Date().toISOString()} ${l}`);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(lines.map((l) => `${l}\n`).join(''));
    });
    await new Promise<void>((r) => kubelet!.listen(kubeletPort, '127.0.0.1', r));
    await must('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a', labels: { 'nvidia.com/gpu.present': 'true' } } });
    await must('PATCH', '/api/v1/nodes/node-a/status', { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'test node', lastHeartbeatTime: new Date().toISOString(), lastTransitionTime: new Date().toISOString() }] } }, 'application/merge-patch+json');
  } catch (e) {
    kubelet?.close();
    await stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const url = `https://127.0.0.1:${apiPort}`;
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, kubeconfigText({ name: 'dsw-test', server: url, caData: ca.toString('base64'), user: { token } }), { mode: 0o600 });
  return {
    url,
    kubeconfig,
    logs,
    request,
    must,
    // The directory is the cluster's (etcd preallocates a 64 MiB WAL): gone with it.
    stop: async () => {
      kubelet?.closeAllConnections();
      await new Promise<void>((r) => kubelet!.close(() => r()));
      await stopAll();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Creates the CRDs and waits until each is Established (served). */
export async function installCrds(c: KubeCluster, crds: readonly Record<string, unknown>[]): Promise<void> {
  for (const crd of crds) await c.must('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  for (const crd of crds) {
    const name = (crd.metadata as { name: string }).name;
    await until(`CRD ${name} Established`, 30, async () => {
      const r = (await c.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).body as { status?: { conditions?: { type: string; status: string }[] } };
      return Boolean(r.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True'));
    }, () => '');
  }
}
