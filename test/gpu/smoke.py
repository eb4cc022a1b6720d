"""The real-GPU proof (issue #7), driven by test/gpu/run.sh: stdlib-only Python 3.8+, no Node needed.

One pass of the snapshot smoke test in `criu` capture mode, through the worker-side agent
(media/agent/dsw_agent.py) exactly as the extension drives it, on a local run directory:

  prerequisites → private CRIU sysroot from the carried Debian packages → agent hello → start the
  engine (test/gpu/gpu_engine.py; --cpu: media/engine/standin_engine.py) → warm-up → ready (and the
  engine's pre-capture reference answer) → CUDA lock + checkpoint → criu dump --leave-running →
  snapshot-complete (release) → source exits 0 → kill → PIDs gone → criu restore → CUDA restore +
  unlock → restore-complete → resume → 5 smoke requests whose tokens must equal the pre-capture
  answer → stop and clean up.

It prints one table (step, time, detail, PASS/FAIL/SKIP) and a summary, writes table.txt and
result.json into the work directory (and into $OUT when that is set), and exits 0 only when every
step passed. Every wait has a timeout, the whole run a deadline (--budget), and every process it
started is stopped at the end, also on SIGTERM/SIGINT.

Node: the agent is always driven directly with Python, whether or not Node and dist/cli.js exist on
the box: the box may have no Node, the table needs the agent's per-step events, and one path keeps
the proof identical everywhere. `node dist/cli.js run` drives the same agent subcommands.

  python3 test/gpu/smoke.py [--dry-run] [--cpu] [--work DIR] [--keep] [--budget S] [--memory-mb N]
"""
import argparse
import ctypes
import io
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
AGENT = os.path.join(ROOT, "media", "agent", "dsw_agent.py")
STANDIN = os.path.join(ROOT, "media", "engine", "standin_engine.py")
GPU_ENGINE = os.path.join(HERE, "gpu_engine.py")
DEBS = os.environ.get("DSW_CRIU_DEBS") or os.path.join(HERE, "criu-debs")
MIN_DRIVER = 570  # cuCheckpointProcess* (CUDA 12.8) — below it nothing can checkpoint
DYNAMO_MIN_DRIVER = 580  # what Dynamo's snapshot docs ask for (docs/compatibility.md)
SMOKE_REQUESTS = 5
T0 = time.monotonic()


def elapsed():
    return time.monotonic() - T0


def log(msg):
    sys.stderr.write("[%6.1fs] %s\n" % (elapsed(), msg))
    sys.stderr.flush()


class Failed(Exception):
    pass


# ---------------------------------------------------------------- the table


class Table(object):
    def __init__(self):
        self.rows = []
        self.facts = {}

    def add(self, step, seconds, detail, result):
        self.rows.append({"step": step, "seconds": seconds, "detail": detail, "result": result})
        t = "%.2f s" % seconds if seconds is not None else "-"
        log("%-4s %-34s %9s  %s" % (result, step, t, detail))

    def ok(self):
        return bool(self.rows) and all(r["result"] in ("PASS", "SKIP") for r in self.rows)

    def render(self, header):
        w = max([len(r["step"]) for r in self.rows] + [4])
        lines = [header, ""]
        lines.append(" %3s  %-*s  %9s  %-6s  %s" % ("#", w, "step", "time", "result", "detail"))
        lines.append(" %3s  %s  %s  %s  %s" % ("---", "-" * w, "-" * 9, "-" * 6, "-" * 40))
        for i, r in enumerate(self.rows, 1):
            t = "%.2f s" % r["seconds"] if r["seconds"] is not None else "-"
            lines.append(" %3d  %-*s  %9s  %-6s  %s" % (i, w, r["step"], t, r["result"], r["detail"]))
        return "\n".join(lines)


def mib(n):
    return "%.0f MiB" % (n / 1048576.0)


def human_bytes(n):
    if n is None:
        return "?"
    if n >= 1 << 30:
        return "%.2f GiB" % (n / float(1 << 30))
    return "%.1f MiB" % (n / 1048576.0)


# ---------------------------------------------------------------- small helpers


def run_cmd(argv, timeout=30, env=None):
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=env)
        return r.returncode, r.stdout.decode("utf-8", "replace").strip()
    except FileNotFoundError:
        return 127, "%s: not found" % argv[0]
    except subprocess.TimeoutExpired:
        return 124, "%s: no answer within %ss" % (argv[0], timeout)
    except OSError as e:
        return 126, "%s: %s" % (argv[0], e)


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def tail(text, n=1500):
    return text[-n:]


def free_bytes(path):
    while not os.path.exists(path):
        path = os.path.dirname(path) or "/"
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def mem_available():
    for line in read_text("/proc/meminfo").splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


# ---------------------------------------------------------------- GPU facts


def nvidia_smi(query, extra=()):
    if not shutil.which("nvidia-smi"):
        return None
    rc, out = run_cmd(["nvidia-smi", "--query-%s" % query, "--format=csv,noheader,nounits"] + list(extra), timeout=20)
    if rc != 0:
        return None
    return [[c.strip() for c in line.split(",")] for line in out.splitlines() if line.strip()]


def gpu_index():
    vis = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return vis if vis.isdigit() else "0"


def gpu_used_mib():
    """Used memory of the engine's GPU: nvidia-smi, else NVML through ctypes (this process is never checkpointed)."""
    rows = nvidia_smi("gpu=memory.used", ["-i", gpu_index()])
    try:
        if rows:
            return float(rows[0][0])
    except (ValueError, IndexError):
        pass
    return nvml_used_mib(int(gpu_index()))


class _NvmlMemory(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]


def nvml_used_mib(index):
    try:
        nv = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return None
    if nv.nvmlInit_v2() != 0:
        return None
    try:
        h, m = ctypes.c_void_p(), _NvmlMemory()
        if nv.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(h)) != 0 or nv.nvmlDeviceGetMemoryInfo(h, ctypes.byref(m)) != 0:
            return None
        return m.used / 1048576.0
    finally:
        nv.nvmlShutdown()


class GpuSampler(object):
    """nvidia-smi every 0.5 s in the background: shows GPU memory drop while checkpointed."""

    def __init__(self):
        self.samples = []
        self.stop = threading.Event()
        self.thread = None

    def start(self):
        if gpu_used_mib() is None:
            return
        self.thread = threading.Thread(target=self.loop, name="gpu-sampler")
        self.thread.daemon = True
        self.thread.start()

    def loop(self):
        while not self.stop.is_set():
            v = gpu_used_mib()
            if v is not None:
                self.samples.append((time.monotonic(), v))
            self.stop.wait(0.5)

    def window(self, t0, t1):
        vals = [v for t, v in self.samples if t0 <= t <= t1]
        return (min(vals), max(vals)) if vals else (None, None)

    def close(self):
        self.stop.set()
        if self.thread:
            self.thread.join(timeout=25)


def driver_info():
    """(driver version string, GPU names, source) via nvidia-smi, else NVML through ctypes."""
    rows = [r for r in nvidia_smi("gpu=index,name,driver_version,memory.total,memory.used") or [] if len(r) >= 5]
    if rows:
        return rows[0][2], ["%s (%s MiB)" % (r[1], r[3]) for r in rows], "nvidia-smi"
    try:
        nv = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return None, [], "nvidia-smi not found and libnvidia-ml.so.1 not loadable"
    if nv.nvmlInit_v2() != 0:
        return None, [], "NVML init failed"
    try:
        buf = ctypes.create_string_buffer(96)
        drv = buf.value.decode() if nv.nvmlSystemGetDriverVersion(buf, 96) == 0 else None
        count = ctypes.c_uint()
        nv.nvmlDeviceGetCount_v2(ctypes.byref(count))
        names = []
        for i in range(count.value):
            h = ctypes.c_void_p()
            if nv.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h)) == 0 and nv.nvmlDeviceGetName(h, buf, 96) == 0:
                names.append(buf.value.decode("utf-8", "replace"))
        return drv, names, "NVML"
    finally:
        nv.nvmlShutdown()


def driver_checkpoint_api():
    """(ok, detail): libcuda.so.1 exports cuCheckpointProcessLock and the driver API is CUDA ≥ 12.8."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return False, "libcuda.so.1 not loadable (%s)" % e
    if not hasattr(lib, "cuCheckpointProcessLock"):
        return False, "libcuda.so.1 has no cuCheckpointProcessLock (driver older than r570)"
    v = ctypes.c_int()
    if lib.cuDriverGetVersion(ctypes.byref(v)) != 0:
        return False, "cuDriverGetVersion failed"
    major, minor = v.value // 1000, (v.value % 1000) // 10
    ok = v.value >= 12080
    return ok, "libcuda.so.1 exports cuCheckpointProcess*; driver API CUDA %d.%d%s" % (major, minor, "" if ok else " (needs 12.8+)")


TORCH_PROBE = r"""
import json, os, sys
r = {"python": sys.version.split()[0]}
try:
    import torch
    r["torch"] = torch.__version__
    r["cuda_build"] = torch.version.cuda
    r["cuda"] = bool(torch.cuda.is_available())
    if r["cuda"]:
        r["device"] = torch.cuda.get_device_name(0)
        free, total = torch.cuda.mem_get_info(0)
        r["free_mib"], r["total_mib"] = free >> 20, total >> 20
        r["graphs"] = hasattr(torch.cuda, "CUDAGraph")
except Exception as e:
    r["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(r))
"""


def probe_torch(python):
    rc, out = run_cmd([python, "-c", TORCH_PROBE], timeout=120)
    try:
        return json.loads(out.splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": "%s exited %d: %s" % (python, rc, tail(out, 300))}


def pick_python(want_torch):
    """The first python on the usual names; with want_torch, the first whose torch sees CUDA."""
    paths = []
    for c in [os.environ.get("PYTHON"), "python3", "python", "python3.12", "python3.11", "python3.10", sys.executable]:
        p = c and (shutil.which(c) or (c if os.path.isfile(c) else None))
        if p and os.path.realpath(p) not in [os.path.realpath(x) for x in paths]:
            paths.append(p)
    if not paths:
        return None, None
    if not want_torch:
        return paths[0], None
    fallback = None
    for p in paths:
        info = probe_torch(p)
        if info.get("torch") and info.get("cuda"):
            return p, info
        if fallback is None or (info.get("torch") and not fallback[1].get("torch")):
            fallback = (p, info)
    return fallback


# ---------------------------------------------------------------- CRIU from the carried Debian packages


def deb_members(path):
    """The members of an ar archive (a .deb) as {name: bytes}."""
    out = {}
    with open(path, "rb") as f:
        if f.read(8) != b"!<arch>\n":
            raise Failed("%s is not a Debian package (no ar header)" % path)
        while True:
            hdr = f.read(60)
            if len(hdr) < 60:
                break
            name = hdr[:16].decode().strip().rstrip("/")
            size = int(hdr[48:58].decode().strip())
            out[name] = f.read(size)
            if size % 2:
                f.read(1)
    return out


def unpack_deb(path, dest):
    if shutil.which("dpkg-deb"):
        rc, out = run_cmd(["dpkg-deb", "-x", path, dest], timeout=60)
        if rc != 0:
            raise Failed("dpkg-deb -x %s: %s" % (os.path.basename(path), out))
        return
    members = deb_members(path)
    data = [n for n in members if n.startswith("data.tar")]
    if not data:
        raise Failed("%s has no data.tar member" % path)
    mode = {"data.tar.xz": "r:xz", "data.tar.gz": "r:gz", "data.tar.bz2": "r:bz2", "data.tar": "r:"}.get(data[0])
    if mode is None:
        raise Failed("%s: %s needs dpkg-deb (Python's tarfile cannot read it)" % (os.path.basename(path), data[0]))
    # Debian's packages were signature-checked by apt when prepare.sh downloaded them; their symlinks
    # may be absolute, which Python 3.12+'s default-to-be extraction filters refuse.
    kw = {"filter": "fully_trusted"} if hasattr(tarfile, "data_filter") else {}
    with tarfile.open(fileobj=io.BytesIO(members[data[0]]), mode=mode) as t:
        for m in t.getmembers():
            if m.name.startswith("/") or ".." in m.name.split("/"):
                continue
            t.extract(m, dest, **kw)


def list_debs():
    try:
        return sorted(os.path.join(DEBS, f) for f in os.listdir(DEBS) if f.endswith(".deb"))
    except OSError:
        return []


def build_sysroot(work):
    """Unpacks every carried .deb into WORK/criu-sysroot/root; returns the criu wrapper path."""
    w = os.path.join(work, "criu-sysroot")
    root = os.path.join(w, "root")
    if os.path.exists(w):
        shutil.rmtree(w)
    os.makedirs(root)
    debs = list_debs()
    if not [d for d in debs if os.path.basename(d).startswith("criu_4.")]:
        raise Failed("no criu_4.*.deb in %s: run `bash test/gpu/prepare.sh` on a machine with network first" % DEBS)
    for d in debs:
        unpack_deb(d, root)
    lib = os.path.join(root, "usr", "lib", "x86_64-linux-gnu")
    loader = os.path.join(lib, "ld-linux-x86-64.so.2")
    binary = os.path.join(root, "usr", "sbin", "criu")
    for p in (loader, binary):
        if not os.path.exists(p):
            raise Failed("the packages did not provide %s" % p)
    wrapper = os.path.join(w, "criu")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nexec %s --library-path %s %s "$@"\n' % (loader, lib, binary))
    os.chmod(wrapper, 0o755)
    # An empty plugin directory: no plugin (a system cuda_plugin.so, say) may lock CUDA a second time;
    # the agent does CUDA itself.
    plugins = os.path.join(w, "plugins")
    os.makedirs(plugins)
    rc, out = run_cmd([loader, "--library-path", lib, "--list", binary], timeout=30)
    missing = [l.strip() for l in out.splitlines() if "not found" in l]
    if rc != 0 or missing:
        raise Failed("criu's libraries do not resolve: %s" % ("; ".join(missing) or tail(out, 300)))
    return wrapper, plugins


def criu_check(wrapper):
    rc, ver = run_cmd([wrapper, "--version"], timeout=30)
    if rc != 0:
        return False, "criu --version failed: %s" % tail(ver, 300)
    version = ver.splitlines()[0].replace("Version:", "").strip() if ver else "?"
    rc, out = run_cmd([wrapper, "check"], timeout=60)
    lines = [l for l in out.splitlines() if l.strip() and "RLIMIT_NOFILE" not in l]
    msg = lines[-1] if lines else ""
    if rc != 0:
        return False, "criu %s: `criu check` failed: %s" % (version, msg[:300])
    return True, "criu %s: %s" % (version, msg[:200])


# ---------------------------------------------------------------- prerequisites


class Prereqs(object):
    def __init__(self, args):
        self.args = args
        self.lines = []
        self.missing = []
        self.facts = {}

    def item(self, name, state, detail):
        self.lines.append((name, state, detail))
        if state == "MISSING":
            self.missing.append("%s (%s)" % (name, detail))

    def run(self):
        a = self.args
        cpu = a.cpu
        self.item("root", "OK" if os.geteuid() == 0 else "MISSING",
                  "euid 0" if os.geteuid() == 0 else "euid %d: CRIU and the CUDA checkpoint API need root" % os.geteuid())
        self.item("platform", "OK" if platform.machine() == "x86_64" else "MISSING",
                  "%s, kernel %s" % (platform.machine(), platform.release()))
        # GPU side
        if cpu:
            self.item("NVIDIA GPU/driver", "SKIP", "--cpu: no GPU used")
        else:
            drv, names, src = driver_info()
            if drv is None:
                self.item("NVIDIA GPU/driver", "MISSING", src)
            else:
                try:
                    major = int(drv.split(".")[0])
                except ValueError:
                    major = 0
                self.facts["driver"], self.facts["gpus"] = drv, names
                if not names:
                    self.item("NVIDIA GPU/driver", "MISSING", "driver %s but no GPU listed (%s)" % (drv, src))
                elif major < MIN_DRIVER:
                    self.item("NVIDIA GPU/driver", "MISSING", "driver %s < %d (%s)" % (drv, MIN_DRIVER, src))
                elif major < DYNAMO_MIN_DRIVER:
                    self.item("NVIDIA GPU/driver", "WARN", "driver %s: the checkpoint API works from %d, but Dynamo Snapshot asks for >= %d; %s (%s)"
                              % (drv, MIN_DRIVER, DYNAMO_MIN_DRIVER, "; ".join(names), src))
                else:
                    self.item("NVIDIA GPU/driver", "OK", "driver %s; %s (%s)" % (drv, "; ".join(names), src))
            cc = shutil.which("cuda-checkpoint")
            api_ok, api_detail = driver_checkpoint_api()
            self.facts["cudaBackend"] = "cuda-checkpoint" if cc else ("driver-api" if api_ok else None)
            if cc:
                self.item("CUDA checkpoint", "OK", "cuda-checkpoint at %s (the agent prefers it); %s" % (cc, api_detail))
            elif api_ok:
                self.item("CUDA checkpoint", "OK", "no cuda-checkpoint binary; the agent uses the driver API: %s" % api_detail)
            else:
                self.item("CUDA checkpoint", "MISSING", "no cuda-checkpoint binary and no driver checkpoint API: %s" % api_detail)
        # Python for agent and engine
        py, info = pick_python(want_torch=a.engine == "gpu")
        self.facts["python"] = py
        if py is None:
            self.item("python", "MISSING", "no python3 on PATH")
        elif cpu and a.engine == "gpu":
            info = info or {}
            self.facts["torch"] = info
            self.item("PyTorch (CPU)", "OK" if info.get("torch") else "MISSING", "%s: %s" % (py, ("torch %s; the GPU engine runs with --device cpu" % info["torch"]) if info.get("torch") else info.get("error") or "no module torch"))
        elif cpu:
            rc, out = run_cmd([py, "-c", "import sys; print(sys.version.split()[0])"])
            self.item("python", "OK" if rc == 0 else "MISSING", "%s %s (agent + CPU stand-in; no torch needed)" % (py, out))
        else:
            info = info or {}
            self.facts["torch"] = info
            if info.get("torch") and info.get("cuda"):
                self.item("PyTorch with CUDA", "OK", "%s: python %s, torch %s (CUDA %s), %s, %s MiB free of %s MiB%s"
                          % (py, info.get("python"), info["torch"], info.get("cuda_build"), info.get("device"),
                             info.get("free_mib"), info.get("total_mib"), "" if info.get("graphs") else ", NO CUDA graphs"))
                need = a.memory_mb * 2
                if info.get("free_mib") is not None and info["free_mib"] < need:
                    self.item("GPU memory", "MISSING", "%s MiB free < %d MiB needed for --memory-mb %d" % (info["free_mib"], need, a.memory_mb))
            elif info.get("torch"):
                self.item("PyTorch with CUDA", "MISSING", "%s: torch %s sees no CUDA device%s" % (py, info["torch"], (": " + info["error"]) if info.get("error") else ""))
            else:
                self.item("PyTorch with CUDA", "MISSING", "%s: %s (PYTHON=/path/to/python picks another interpreter)" % (py, info.get("error") or "no module torch"))
        # Project files
        for label, path in (("agent", AGENT), ("engine", STANDIN if a.engine == "standin" else GPU_ENGINE), ("stand-in lifecycle", STANDIN)):
            self.item(label, "OK" if os.path.isfile(path) else "MISSING", os.path.relpath(path, ROOT))
        # CRIU
        debs = list_debs()
        criu_debs = [os.path.basename(d) for d in debs if os.path.basename(d).startswith("criu_")]
        if not criu_debs:
            self.item("CRIU packages", "MISSING", "no criu_*.deb in %s: run `bash test/gpu/prepare.sh` where Debian's mirror is reachable" % os.path.relpath(DEBS, ROOT))
        else:
            self.item("CRIU packages", "OK", "%s + %d libraries in %s (%s)" % (criu_debs[0], len(debs) - 1, os.path.relpath(DEBS, ROOT),
                                                                           "dpkg-deb" if shutil.which("dpkg-deb") else "unpacked with Python"))
            if a.dry_run and os.geteuid() == 0:
                try:
                    wrapper, _ = build_sysroot(a.work)
                    ok, detail = criu_check(wrapper)
                    self.item("criu check", "OK" if ok else "MISSING", detail)
                except Failed as e:
                    self.item("CRIU sysroot", "MISSING", str(e))
        # Room for images and for GPU memory passing through host RAM
        need_disk = (a.memory_mb * 3 // 2 + 2048) << 20 if not cpu else 1 << 30
        fb = free_bytes(a.work)
        self.item("free disk", "OK" if fb >= need_disk else "MISSING",
                  "%s free at %s (needs %s for the images)" % (human_bytes(fb), a.work, human_bytes(need_disk)))
        ma = mem_available()
        need_ram = (a.memory_mb * 2 + 4096) << 20 if not cpu else 512 << 20
        if ma is not None:
            self.item("host memory", "OK" if ma >= need_ram else "MISSING",
                      "%s available (needs %s: checkpointed GPU memory is held in host RAM)" % (human_bytes(ma), human_bytes(need_ram)))
        for tool in ("timeout",):
            if not shutil.which(tool):
                self.item(tool, "MISSING", "coreutils %s not found" % tool)
        node = shutil.which("node")
        if node:
            rc, v = run_cmd([node, "--version"], timeout=10)
            cli = os.path.isfile(os.path.join(ROOT, "dist", "cli.js"))
            self.item("node", "INFO", "%s %s%s; not used: the agent is driven directly with python (test/gpu/smoke.py)"
                      % (node, v, " and dist/cli.js present" if cli else ", no dist/cli.js"))
        else:
            self.item("node", "INFO", "absent; the agent is driven directly with python (test/gpu/smoke.py)")
        return self

    def render(self):
        out = ["prerequisites (%s):" % (("--cpu: %s, CRIU only" % ("CPU stand-in" if self.args.engine == "standin" else "GPU engine on CPU torch"))
                                         if self.args.cpu else "GPU proof")]
        for name, state, detail in self.lines:
            out.append("  %-8s %-20s %s" % (state, name, detail))
        for m in self.missing:
            out.append("missing: %s" % m)
        return "\n".join(out)


# ---------------------------------------------------------------- the agent


class Agent(object):
    def __init__(self, python, run_dir):
        self.python, self.run_dir = python, run_dir

    def call(self, sub, cfg, timeout, on_event=None):
        """Runs one subcommand; returns its events. stdin stays open until done (its EOF cancels)."""
        argv = [self.python, AGENT, sub, json.dumps(cfg)]
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        events, lines = [], []
        done = threading.Event()

        def reader():
            for raw in p.stdout:
                line = raw.decode("utf-8", "replace").strip()
                if not line:
                    continue
                try:
                    ev = json.loads(line)
                except ValueError:
                    lines.append(line)
                    continue
                ev["_at"] = time.monotonic()
                events.append(ev)
                if on_event:
                    on_event(ev)
                if ev.get("type") == "done":
                    done.set()
            done.set()

        t = threading.Thread(target=reader)
        t.daemon = True
        t.start()
        finished = done.wait(timeout)
        try:
            p.stdin.close()  # EOF: the agent stops whatever it runs attached
        except OSError:
            pass
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        err = p.stderr.read().decode("utf-8", "replace")
        if not finished:
            raise Failed("agent %s gave no answer within %ds%s" % (sub, timeout, (": " + tail(err, 300)) if err.strip() else ""))
        dones = [e for e in events if e.get("type") == "done"]
        if not dones:
            raise Failed("agent %s ended without a done event (exit %s): %s" % (sub, p.returncode, tail(err or "\n".join(lines), 500)))
        return events


def first(events, etype):
    for e in events:
        if e.get("type") == etype:
            return e
    return None


def errors_of(events):
    return "; ".join(e.get("message", "") for e in events if e.get("type") == "error") or (first(events, "done") or {}).get("error") or "?"


# ---------------------------------------------------------------- the run


class Proof(object):
    def __init__(self, args, pre):
        self.a = args
        self.pre = pre
        self.table = Table()
        self.python = pre.facts.get("python") or sys.executable
        self.work = args.work
        self.run_dir = os.path.join(self.work, "run")
        self.agent = Agent(self.python, self.run_dir)
        self.deadline = T0 + args.budget
        self.sampler = GpuSampler()
        self.criu = None
        self.plugins = None
        self.started_pids = set()
        self.gpu = {}
        self.reference = None
        self.summary = {}

    # -- plumbing

    def left(self, cap):
        rest = self.deadline - time.monotonic()
        if rest <= 1:
            raise Failed("the time budget of %ds is spent" % self.a.budget)
        return max(1.0, min(cap, rest))

    def engine_log(self):
        return read_text(os.path.join(self.run_dir, "logs", "engine.log"))

    def wait_for(self, what, cond, cap, on_tick=None):
        limit = self.left(cap)
        end = time.monotonic() + limit
        while True:
            v = cond()
            if v:
                return v
            if on_tick:
                on_tick()
            if time.monotonic() > end:
                raise Failed("%s: not within %.0f s" % (what, limit))
            time.sleep(0.05)

    def step(self, name, fn):
        t = time.monotonic()
        try:
            detail = fn()
        except Failed as e:
            self.table.add(name, time.monotonic() - t, str(e), "FAIL")
            raise
        except Exception as e:  # noqa: BLE001 - a bug in the harness is a failed step, not a traceback
            self.table.add(name, time.monotonic() - t, "%s: %s" % (type(e).__name__, e), "FAIL")
            raise Failed(str(e))
        if isinstance(detail, tuple):
            detail, result = detail
        else:
            result = "PASS"
        self.table.add(name, time.monotonic() - t, detail or "", result)

    def source_exit(self):
        return read_json(os.path.join(self.run_dir, "procs", "source-0.exit.json"))

    def engine_died(self):
        ex = self.source_exit()
        if ex:
            raise Failed("the engine ended (code %s, signal %s) — engine.log: %s" % (ex.get("code"), ex.get("signal"), tail(self.engine_log(), 1200)))

    def ranks(self):
        return self.a.dp

    def gpu_mem(self, key):
        v = gpu_used_mib()
        self.gpu[key] = v
        return v

    # -- steps

    def run(self):
        self.sampler.start()
        self.gpu_mem("baseline")
        self.step("CRIU sysroot + criu check", self.s_sysroot)
        self.step("agent hello", self.s_hello)
        self.step("start source (agent start)", self.s_start)
        self.step("warm-up", self.s_warmup)
        self.step("ready-for-snapshot", self.s_ready)
        self.s_capture()
        self.step("source exits 0", self.s_source_exit)
        self.step("kill + PIDs gone", self.s_kill)
        self.s_restore()
        self.step("resume after restore", self.s_resume)
        for i in range(1, SMOKE_REQUESTS + 1):
            self.step("smoke request %d/%d" % (i, SMOKE_REQUESTS), lambda i=i: self.s_smoke(i))
        self.step("GPU memory after restore", self.s_gpu_after)

    def s_sysroot(self):
        self.criu, self.plugins = build_sysroot(self.work)
        ok, detail = criu_check(self.criu)
        if not ok:
            raise Failed(detail)
        self.summary["criu"] = detail.split(":")[0]
        return "%d packages from %s; %s" % (len(list_debs()), os.path.relpath(DEBS, ROOT), detail)

    def s_hello(self):
        ev = self.agent.call("hello", {"criuPath": self.criu, "criuCheck": False}, self.left(90))
        h = first(ev, "hello")
        if not h:
            raise Failed("no hello event: %s" % errors_of(ev))
        self.hello = h
        gpus = ", ".join("%s %s MiB" % (g.get("name"), int(g.get("memoryTotalMiB") or 0)) for g in h.get("gpus") or []) or "no GPU"
        cc = h.get("cudaCheckpoint") or {}
        backend = "cuda-checkpoint" if cc.get("present") else ("driver API" if h.get("cudaDriverCheckpointApi") else "none")
        self.summary["cudaBackend"] = backend
        detail = "agent %s, python %s, root=%s, driver %s, %s, CUDA checkpoint: %s, %s" % (
            h.get("agentVersion"), h.get("python"), h.get("isRoot"), h.get("driverVersion") or "-", gpus, backend,
            "criu " + ((h.get("criu") or {}).get("version") or "?").replace("Version:", "").strip())
        if not self.a.cpu and backend == "none":
            raise Failed(detail)
        return detail

    def engine_argv(self, port=0):
        a = self.a
        if a.engine == "standin":
            return [self.python, STANDIN, "--dp", str(a.dp), "--memory-mb", "64", "--no-color", "--port", str(port),
                    "--reference-prompt", a.prompt, "--reference-max-tokens", str(a.max_tokens)] + list(a.engine_arg)
        small = ["--device", "cpu", "--hidden", "256", "--vocab", "1024", "--max-seq", "256", "--memory-mb", "64"] if a.cpu else []
        return [self.python, GPU_ENGINE, "--dp", str(a.dp), "--memory-mb", str(a.memory_mb), "--no-color", "--port", str(port),
                "--reference-prompt", a.prompt, "--reference-max-tokens", str(a.max_tokens)] + small + list(a.engine_arg)

    def s_start(self):
        cfg = {"runDir": self.run_dir, "runId": "gpu-proof", "command": self.engine_argv(), "cwd": ROOT,
               "env": {"NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}}
        ev = self.agent.call("start", cfg, self.left(60))
        s = first(ev, "started")
        if not s:
            raise Failed("agent start: %s" % errors_of(ev))
        self.source = s
        self.started_pids.add(s["pid"])
        return "pid %d, pgid %d, control dir %s" % (s["pid"], s["pgid"], s["controlDir"])

    def s_warmup(self):
        # Logged once by the main process for every DP rank, as upstream does (the engines' default);
        # with --engine-arg=--warmup-log=per-rank, once per rank.
        pat = re.compile(r"snapshot warmup complete")
        per_rank = any("per-rank" in x for x in self.a.engine_arg)

        def done():
            self.engine_died()
            return len(pat.findall(self.engine_log())) >= (self.ranks() if per_rank else 1)

        self.wait_for("warm-up on %d rank(s)" % self.ranks(), done, self.a.warmup_timeout)
        log_ = self.engine_log()
        bits = []
        m = re.search(r"Model loaded: (.*)", log_)
        if m:
            bits.append(m.group(1))
        m = re.search(r"Captured CUDA graph of the decode step in (\d+) ms", log_)
        if m:
            bits.append("CUDA graph captured in %s ms" % m.group(1))
        elif not self.a.cpu and "--no-cuda-graph" not in self.a.engine_arg:
            raise Failed("no CUDA graph capture in the warm-up log")
        m = re.search(r"Weights checksum (\w+)", log_)
        if m:
            self.load_checksum = m.group(1)
        return "; ".join(bits) or "%d rank(s) warmed up" % self.ranks()

    def s_ready(self):
        ctl = self.source["controlDir"]

        def ready():
            self.engine_died()
            return os.path.exists(os.path.join(ctl, "ready-for-snapshot")) and "Ready for snapshot. Polling for sentinel in" in self.engine_log()

        self.wait_for("ready-for-snapshot", ready, 120)
        m = re.search(r"Reference answer before capture: (\{.*\})", self.engine_log())
        if m:
            ref = json.loads(m.group(1))
            self.reference = {"text": ref["text"], "token_ids": ref["token_ids"], "source": "engine before capture"}
        if not self.reference:
            raise Failed("no pre-capture reference answer")
        used = self.gpu_mem("ready")
        m = re.search(r"CUDA device files open: (.*?); NVML: (.*)", self.engine_log())
        extra = ("; device files: %s; NVML: %s" % (m.group(1), m.group(2))) if m else ""
        return "reference (%s): %d tokens %r%s%s" % (
            self.reference["source"], len(self.reference.get("token_ids") or self.reference["text"].split()),
            self.reference["text"][:48], "; GPU memory %d MiB" % used if used is not None else "", extra)

    def s_capture(self):
        t0 = time.monotonic()
        cfg = {"runDir": self.run_dir, "mode": "criu", "criuPath": self.criu, "readyTimeoutS": 30,
               "timeoutS": min(300, int(self.left(300))), "criuOptions": {"pluginDir": self.plugins}}
        phases = {}

        def on_event(e):
            if e.get("type") == "phase":
                phases.setdefault(e["phase"], []).append(e)

        try:
            ev = self.agent.call("capture", cfg, self.left(330), on_event)
        except Failed as e:
            self.table.add("capture (agent, criu mode)", time.monotonic() - t0, str(e), "FAIL")
            raise
        res = first(ev, "capture_result") or {}
        self.capture_window = (t0, time.monotonic())
        self.phase_rows(ev, ("wait_ready", "cuda_lock", "cuda_checkpoint", "criu_dump", "write_snapshot_complete", "cuda_release"),
                        {"criu_dump": lambda: "--leave-running, image %s" % human_bytes(res.get("imageBytes")),
                         "write_snapshot_complete": lambda: "release: snapshot-complete written"})
        self.summary["imageBytes"] = res.get("imageBytes")
        self.summary["captureTimingsMs"] = res.get("timingsMs")
        lo, hi = self.sampler.window(*self.capture_window)
        self.gpu["during_capture_min"] = lo
        if not res.get("ok"):
            self.table.add("capture result", time.monotonic() - t0, res.get("error") or errors_of(ev), "FAIL")
            raise Failed("capture failed")
        if not self.a.cpu and "cuda_checkpoint" not in phases:
            self.table.add("capture result", time.monotonic() - t0, "no CUDA process was checkpointed", "FAIL")
            raise Failed("no CUDA checkpoint")

    def phase_rows(self, events, order, details):
        by = {}
        for e in events:
            if e.get("type") == "phase":
                by.setdefault(e["phase"], []).append(e)
        for name in order:
            evs = by.get(name)
            if not evs:
                continue
            skipped = [e for e in evs if e["state"] == "skipped"]
            if skipped:
                self.table.add(name, None, skipped[0].get("detail") or "skipped", "SKIP")
                continue
            ends = [e for e in evs if e["state"] in ("end", "failed")]
            failed = [e for e in ends if e["state"] == "failed"]
            ms = sum(e.get("durationMs") or 0 for e in ends)
            pids = sorted(set(e.get("pid") for e in ends if e.get("pid")))
            detail = details[name]() if name in details else ""
            if pids:
                detail = ("pid %s" % ",".join(map(str, pids))) + ("; " + detail if detail else "")
            if failed:
                detail = failed[0].get("detail") or detail
            self.table.add(name, ms / 1000.0, detail, "FAIL" if failed or not ends else "PASS")

    def s_source_exit(self):
        ex = self.wait_for("the source's exit", self.source_exit, 90)
        if ex.get("code") != 0 or ex.get("signal"):
            raise Failed("source ended with code %s signal %s (failure mode #1 if SIGSEGV)" % (ex.get("code"), ex.get("signal")))
        if "snapshot captured successfully" not in self.engine_log():
            raise Failed("exit 0 but no 'snapshot captured successfully' line")
        used = self.gpu_mem("after_source_exit")
        lo = self.gpu.get("during_capture_min")
        detail = "exit code 0 (os._exit after snapshot-complete)"
        if used is not None:
            detail += "; GPU memory while checkpointed (min) %s, after exit %d MiB" % ("%d MiB" % lo if lo is not None else "n/a", used)
        return detail

    def tree_pids(self):
        pids = {self.source["pid"]}
        m = re.search(r"data-parallel rank\(s\) started: pids ([\d,]+)", self.engine_log())
        if m:
            pids.update(int(x) for x in m.group(1).split(","))
        return pids

    def s_kill(self):
        pids = self.tree_pids()
        ev = self.agent.call("stop", {"runDir": self.run_dir, "graceMs": 5000}, self.left(30))
        if not (first(ev, "done") or {}).get("ok"):
            raise Failed("agent stop: %s" % errors_of(ev))
        self.wait_for("PIDs %s gone" % sorted(pids), lambda: not any(os.path.exists("/proc/%d" % p) for p in pids), 30)
        return "agent stop; PIDs %s gone" % ",".join(map(str, sorted(pids)))

    def s_restore(self):
        t0 = time.monotonic()
        cfg = {"runDir": self.run_dir, "mode": "criu", "criuPath": self.criu, "timeoutS": min(300, int(self.left(300))),
               "exitTimeoutS": 30, "criuOptions": {"pluginDir": self.plugins}, "restoreContext": {"DYN_NAMESPACE": "dsw-gpu-proof"}}
        try:
            ev = self.agent.call("restore", cfg, self.left(330))
        except Failed as e:
            self.table.add("restore (agent, criu mode)", time.monotonic() - t0, str(e), "FAIL")
            raise
        self.restore_started = t0
        res = first(ev, "restore_result") or {}
        self.phase_rows(ev, ("wait_source_gone", "write_restore_context", "criu_restore", "cuda_restore", "cuda_unlock",
                             "write_restore_complete"),
                        {"criu_restore": lambda: "restored pid %s" % res.get("pid"),
                         "write_restore_complete": lambda: "restore-complete written"})
        tm = res.get("timingsMs") or {}
        self.summary["restoreTimingsMs"] = tm
        if res.get("pid"):
            self.started_pids.add(res["pid"])
        if not res.get("ok"):
            self.table.add("restore result", time.monotonic() - t0, res.get("error") or errors_of(ev), "FAIL")
            raise Failed("restore failed")
        if res.get("pid") != self.source["pid"]:
            self.table.add("restore result", None, "restored pid %s is not the source pid %d" % (res.get("pid"), self.source["pid"]), "FAIL")
            raise Failed("pid changed")

    def s_resume(self):
        ep_path = os.path.join(self.run_dir, "endpoint.json")

        def up():
            procs = os.path.join(self.run_dir, "procs")
            exits = [read_json(os.path.join(procs, f)) for f in os.listdir(procs) if f.startswith("restored-") and f.endswith(".exit.json")]
            ex = next((x for x in exits if x), None)
            if ex:
                raise Failed("the restored process ended (code %s, signal %s): %s" % (ex.get("code"), ex.get("signal"), tail(self.engine_log(), 1000)))
            return read_json(ep_path)

        ep = self.wait_for("endpoint after restore", up, 120)
        self.url = ep["url"]
        log_ = self.engine_log()
        for line in ("Restore sentinel detected", "Applied snapshot restore context runtime env"):
            if line not in log_:
                raise Failed("missing log line %r" % line)
        self.summary["restoreToServingS"] = round(time.monotonic() - self.restore_started, 2)
        m = re.findall(r"Waking up engine; weights checksum (\w+)", log_)
        detail = "serving %s" % self.url
        if self.a.engine == "gpu":
            loaded = sorted(set(re.findall(r"Weights checksum (\w+)", log_)))
            if len(m) < self.ranks():
                raise Failed("%d 'Waking up engine; weights checksum' line(s) after restore, %d rank(s)" % (len(m), self.ranks()))
            if sorted(set(m)) != loaded:
                raise Failed("weights checksum after restore %s differs from %s at load" % (sorted(set(m)), loaded))
            detail += "; weights checksum %s equals the one at load on %d rank(s)" % (m[-1], len(m))
        return detail

    def complete(self, url):
        body = json.dumps({"prompt": self.a.prompt, "max_tokens": self.a.max_tokens, "temperature": 0}).encode()
        req = urllib.request.Request(url.rstrip("/") + "/v1/completions", data=body, headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=self.left(60)) as r:
            j = json.loads(r.read().decode("utf-8"))
        ch = (j.get("choices") or [{}])[0]
        usage = j.get("usage") or {}
        return {"text": ch.get("text") or "", "token_ids": ch.get("token_ids"),
                "cached": (usage.get("prompt_tokens_details") or {}).get("cached_tokens"),
                "completion_tokens": usage.get("completion_tokens")}

    def s_smoke(self, i):
        t = time.monotonic()
        try:
            got = self.complete(self.url)
        except Exception as e:  # noqa: BLE001
            raise Failed("request failed: %s" % e)
        ms = (time.monotonic() - t) * 1000
        if i == 1:
            self.summary["restoreToFirstAnswerS"] = round(time.monotonic() - self.restore_started, 2)
        ref = self.reference
        same = got["text"] == ref["text"] and (got.get("token_ids") is None or ref.get("token_ids") is None or got["token_ids"] == ref["token_ids"])
        detail = "%.0f ms, cached_tokens %s, %s tokens: %s" % (ms, got.get("cached"), got.get("completion_tokens"),
                                                              "equal to the pre-capture answer" if same else "DIFFERENT: %r vs %r" % (got["text"][:60], ref["text"][:60]))
        self.summary.setdefault("smoke", []).append({"ms": round(ms, 1), "same": same, "cached": got.get("cached")})
        if not got["text"].strip():
            raise Failed("empty completion")
        if not same:
            raise Failed(detail)
        return detail

    def s_gpu_after(self):
        used = self.gpu_mem("after_restore")
        g = self.gpu
        if used is None:
            return "n/a (no nvidia-smi)", "SKIP"
        detail = "before start %s, ready %s, while checkpointed (min) %s, after source exit %s, after restore %s" % tuple(
            "%d MiB" % v if v is not None else "n/a" for v in (g.get("baseline"), g.get("ready"), g.get("during_capture_min"),
                                                              g.get("after_source_exit"), used))
        if g.get("ready") is not None and g.get("baseline") is not None and not self.a.cpu:
            held = g["ready"] - g["baseline"]
            back = used - g["baseline"]
            if held > 256 and back < held * 0.5:
                raise Failed(detail + ": the restored engine holds far less GPU memory than before capture")
        return detail

    # -- cleanup

    def cleanup(self):
        """Stops everything this run started: agent stop, then a sweep by the run directory."""
        t = time.monotonic()
        notes = []
        if os.path.exists(os.path.join(self.run_dir, "run.json")) and os.path.exists(AGENT):
            try:
                self.agent.call("stop", {"runDir": self.run_dir, "graceMs": 3000}, 20)
            except Failed as e:
                notes.append(str(e))
        left = sweep(self.run_dir, self.started_pids)
        self.sampler.close()
        img = os.path.join(self.run_dir, "images", "checkpoint")
        for name in ("dump.log", "restore.log"):
            if os.path.exists(os.path.join(img, name)):
                shutil.copyfile(os.path.join(img, name), os.path.join(self.run_dir, "criu-" + name))
        if not self.a.keep:
            shutil.rmtree(os.path.join(self.run_dir, "images"), ignore_errors=True)
            shutil.rmtree(os.path.join(self.work, "criu-sysroot"), ignore_errors=True)
        # A zombie holds no memory or GPU; it waits for a parent outside this run (init) to reap it.
        still = [p for p in left if os.path.exists("/proc/%d" % p) and proc_state(p) not in (None, "Z")]
        detail = "killed leftover pids %s" % ",".join(map(str, left)) if left else "no process left over"
        if still:
            self.table.add("cleanup", time.monotonic() - t, "still running: %s" % still, "FAIL")
        else:
            self.table.add("cleanup", time.monotonic() - t, detail + ("; " + "; ".join(notes) if notes else ""), "PASS")


def pid_belongs(pid, run_dir, own):
    if pid in own:
        return True
    marker = run_dir.encode()
    for name in ("environ", "cmdline"):
        try:
            with open("/proc/%d/%s" % (pid, name), "rb") as f:
                if marker in f.read():
                    return True
        except OSError:
            pass
    return False


def sweep(run_dir, own):
    """SIGKILLs every process whose environment or argv names this run's directory (unique per run)."""
    me = os.getpid()
    victims = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != me and pid_belongs(int(name), run_dir, own):
            victims.append(int(name))
    for p in victims:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    end = time.monotonic() + 10
    while time.monotonic() < end and any(os.path.exists("/proc/%d" % p) and proc_state(p) != "Z" for p in victims):
        time.sleep(0.05)
    return victims


def proc_state(pid):
    s = read_text("/proc/%d/stat" % pid)
    try:
        return s[s.rindex(")") + 2]
    except (ValueError, IndexError):
        return None


# ---------------------------------------------------------------- main


def header(a, pre, proof):
    f = pre.facts
    engine = "CPU stand-in" if a.engine == "standin" else "GPU engine on CPU torch"
    bits = ["DSW real-GPU proof" if not a.cpu else "DSW snapshot proof (--cpu: %s, CRIU only, CUDA steps skipped)" % engine,
            platform.node(), "kernel %s" % platform.release()]
    if f.get("gpus"):
        bits.append("%s, driver %s" % (f["gpus"][0], f.get("driver")))
    t = f.get("torch") or {}
    if t.get("torch"):
        bits.append("torch %s" % t["torch"])
    if proof and proof.summary.get("criu"):
        bits.append(proof.summary["criu"])
    if proof and proof.summary.get("cudaBackend"):
        bits.append("CUDA checkpoint: %s" % proof.summary["cudaBackend"])
    bits.append("agent driven directly with python")
    return " | ".join(bits)


def summary_line(a, proof):
    s, g = proof.summary, proof.gpu
    ct, rt = s.get("captureTimingsMs") or {}, s.get("restoreTimingsMs") or {}
    parts = []
    if s.get("imageBytes") is not None:
        parts.append("checkpoint %s (CUDA lock %.2f s + checkpoint %.2f s + criu dump %.2f s)" % (
            human_bytes(s["imageBytes"]), ct.get("cuda_lock", 0) / 1000, ct.get("cuda_checkpoint", 0) / 1000, ct.get("criu_dump", 0) / 1000))
    if rt:
        parts.append("restore %.2f s (criu restore %.2f s + CUDA restore %.2f s + unlock %.2f s)" % (
            (rt.get("criu_restore", 0) + rt.get("cuda_restore", 0) + rt.get("cuda_unlock", 0)) / 1000,
            rt.get("criu_restore", 0) / 1000, rt.get("cuda_restore", 0) / 1000, rt.get("cuda_unlock", 0) / 1000))
    if s.get("restoreToFirstAnswerS") is not None:
        parts.append("first answer %.2f s after restore began" % s["restoreToFirstAnswerS"])
    if g.get("baseline") is not None:
        parts.append("GPU memory before %s / after %s" % tuple("%d MiB" % v if v is not None else "n/a" for v in (g.get("ready"), g.get("after_restore"))))
    sm = s.get("smoke") or []
    if sm:
        parts.append("%d/%d answers equal the pre-capture answer" % (sum(1 for x in sm if x["same"]), SMOKE_REQUESTS))
    return "; ".join(parts)


def write_results(a, text, result):
    dirs = [a.work] + ([os.environ["OUT"]] if os.environ.get("OUT") and os.path.isdir(os.environ["OUT"]) else [])
    for d in dirs:
        try:
            with open(os.path.join(d, "table.txt"), "w") as f:
                f.write(text + "\n")
            with open(os.path.join(d, "result.json"), "w") as f:
                json.dump(result, f, indent=1)
        except OSError:
            pass
    out = os.environ.get("OUT")
    if out and os.path.isdir(out):
        run_dir = os.path.join(a.work, "run")
        for src, name in ((os.path.join(run_dir, "logs", "engine.log"), "engine.log"),
                          (os.path.join(run_dir, "criu-dump.log"), "criu-dump.log"),
                          (os.path.join(run_dir, "criu-restore.log"), "criu-restore.log")):
            data = read_text(src)
            if data:
                with open(os.path.join(out, name), "w") as f:
                    f.write(data[-400000:])


def parse(argv):
    ap = argparse.ArgumentParser(description="Real-GPU proof of the criu capture mode (see test/gpu/README.md).")
    ap.add_argument("--dry-run", action="store_true", help="check prerequisites only; exit 1 when anything is missing")
    ap.add_argument("--cpu", action="store_true", help="the CPU stand-in engine, CRIU only, CUDA steps skipped")
    ap.add_argument("--work", default=None, help="work directory (run dir, images, sysroot); default /var/tmp/dsw-gpu-proof-<pid>")
    ap.add_argument("--keep", action="store_true", help="keep images and sysroot")
    ap.add_argument("--budget", type=float, default=float(os.environ.get("DSW_GPU_BUDGET_S", 440)),
                    help="seconds for the whole run (default 440: run.sh's 460 s limit with room for cleanup, within 8 minutes)")
    ap.add_argument("--sweep", action="store_true", help="only stop what a run in --work left behind (run.sh calls it after a hard timeout)")
    ap.add_argument("--memory-mb", type=int, default=int(os.environ.get("DSW_GPU_MEMORY_MB", 4096)), help="GPU engine weights + KV cache")
    ap.add_argument("--dp", type=int, default=None, help="data-parallel ranks (default: 1 on the GPU, 2 with --cpu)")
    ap.add_argument("--warmup-timeout", type=float, default=240)
    ap.add_argument("--prompt", default="The capital of France is")
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--engine", choices=("standin", "gpu"), default=None,
                    help="engine: gpu (test/gpu/gpu_engine.py; the default) or standin (media/engine/standin_engine.py; the default with --cpu). "
                         "--cpu --engine gpu runs the GPU engine on CPU torch (a test of its lifecycle under CRIU)")
    ap.add_argument("--engine-arg", action="append", default=[], help="extra engine argument (gpu_engine.py or, with --cpu, the stand-in), e.g. --engine-arg=--no-cuda-graph")
    a = ap.parse_args(argv)
    if a.engine is None:
        a.engine = "standin" if a.cpu else "gpu"
    if not a.cpu and a.engine != "gpu":
        ap.error("the GPU proof runs the GPU engine; use --cpu for the stand-in")
    if a.dp is None:
        a.dp = 2 if a.cpu else 1
    if a.work is None:
        base = "/var/tmp" if os.path.isdir("/var/tmp") else "/tmp"
        a.work = os.path.join(base, "dsw-gpu-proof-%d" % os.getpid())
    a.work = os.path.abspath(a.work)
    return a


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    os.makedirs(a.work, exist_ok=True)
    created_work = True

    def on_signal(signum, _frame):
        raise Failed("interrupted by %s" % signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    if a.sweep:
        run_dir = os.path.join(a.work, "run")
        if os.path.exists(os.path.join(run_dir, "run.json")) and os.path.exists(AGENT):
            try:
                Agent(sys.executable, run_dir).call("stop", {"runDir": run_dir, "graceMs": 2000}, 15)
            except Failed as e:
                print("agent stop: %s" % e)
        left = sweep(run_dir, set())
        print("sweep of %s: %s" % (run_dir, ("killed %s" % left) if left else "nothing left"))
        return 0

    pre = Prereqs(a).run()
    print(pre.render())
    sys.stdout.flush()
    if a.dry_run:
        shutil.rmtree(os.path.join(a.work, "criu-sysroot"), ignore_errors=True)
        if created_work:
            shutil.rmtree(a.work, ignore_errors=True)
        print("dry run: %s" % ("everything needed is present" if not pre.missing else "%d missing" % len(pre.missing)))
        return 1 if pre.missing else 0
    if pre.missing:
        print("not starting: %d prerequisite(s) missing (see above)" % len(pre.missing))
        return 1
    proof = Proof(a, pre)
    proof.table.add("prerequisites", elapsed(), "%d checks OK" % len([l for l in pre.lines if l[1] == "OK"]), "PASS")
    error = None
    try:
        proof.run()
    except Failed as e:
        error = str(e)
    finally:
        try:
            proof.cleanup()
        except Exception as e:  # noqa: BLE001
            proof.table.add("cleanup", None, "%s: %s" % (type(e).__name__, e), "FAIL")
    ok = proof.table.ok() and error is None
    text = proof.table.render(header(a, pre, proof))
    text += "\n\nsummary: %s" % summary_line(a, proof)
    text += "\nRESULT: %s (%d steps, %d failed) in %.1f s; work dir %s" % (
        "PASS" if ok else "FAIL", len(proof.table.rows), len([r for r in proof.table.rows if r["result"] == "FAIL"]), elapsed(), a.work)
    if error and ok is False:
        text += "\nfirst failure: %s" % error
    print("\n" + text)
    write_results(a, text, {"ok": ok, "rows": proof.table.rows, "summary": proof.summary, "gpuMiB": proof.gpu, "error": error,
                            "prerequisites": pre.lines, "seconds": round(elapsed(), 1)})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
