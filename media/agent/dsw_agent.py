"""Dynamo Snapshot Workbench worker-side agent.

Stdlib-only Python 3.8+, so it runs on any GPU box or container without installing anything. The
extension sends this file over stdin (see src/transport/agentLoader.ts) and reads JSON-lines events
from stdout; the event shapes are typed once in src/core/protocol/agentEvents.ts. stdin stays open
after the script: its EOF means "the extension is gone", and every attached job is then killed.

Subcommands (argv: SUBCOMMAND CONFIG_JSON):
  hello     versions, GPUs, driver, cuda-checkpoint / criu presence, privileges
  start     fresh run dir + control dir, engine started detached under a supervisor
  status    is a run still there (reattach after a window reload)
  follow    logs by byte offset, control-dir sentinels, process exits, endpoint; until stdin EOF
  capture   protocol | criu | command, with per-step timings
  restore   criu restore + CUDA restore/unlock, or the protocol restore path on a live worker
  stop      TERM then KILL, by process group
  supervise (internal) parent of one engine or restored tree; records how it ended
  reap-context (internal) removes restore-context.json once the restored process has read it
"""
import ctypes
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

AGENT_VERSION = "0.1.0"
PROTOCOL = 1
SENTINELS = ("ready-for-snapshot", "snapshot-complete", "restore-complete", "restore-failed", "restore-context.json")
MAX_CHUNK = 1024 * 1024  # JSON-escaped worst case (6x) stays under the 8 MiB event limit
# Framed log chunks (agentEvents.ts LOG_FRAME_FORMAT): a `log_frame` header line, then the raw bytes.
# No escaping, so a frame can be larger (the extension rejects headers announcing > 8 MiB).
LOG_FRAME_FORMAT = 1
FRAME_CHUNK = 4 * 1024 * 1024
_out_lock = threading.Lock()
_stdin_closed = threading.Event()
_attached = []  # Popen objects killed (as groups) when the extension goes away
# Held while the source is CUDA-locked: stdin EOF or a broken stdout must not end the agent before
# every locked process is back to running (the main thread finishes the release, then exits).
_exit_lock = threading.Lock()
_must_finish = threading.Event()


class AgentError(Exception):
    def __init__(self, message, code=None):
        Exception.__init__(self, message)
        self.code = code


# ---------------------------------------------------------------- output


def now_ms():
    return int(time.time() * 1000)


def emit(etype, **fields):
    ev = {"v": PROTOCOL, "t": now_ms(), "type": etype}
    ev.update(fields)
    data = (json.dumps(ev, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace")
    with _out_lock:
        try:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        except (BrokenPipeError, OSError):
            # The extension is gone: nobody to report to, so stop what we run attached.
            if _must_finish.is_set():
                return  # still releasing CUDA: keep going without output
            shutdown_attached()
            os._exit(0)


def emit_frame(fn, start, data):
    """One log chunk as a frame: header line, then len(data) raw bytes (complete lines, as read)."""
    header = json.dumps({"v": PROTOCOL, "t": now_ms(), "type": "log_frame", "file": fn, "start": start,
                         "end": start + len(data), "bytes": len(data)}, ensure_ascii=False, separators=(",", ":"))
    with _out_lock:
        try:
            out = sys.stdout.buffer
            out.write((header + "\n").encode("utf-8", "replace"))
            out.write(data)
            out.flush()
        except (BrokenPipeError, OSError):
            if _must_finish.is_set():
                return
            shutdown_attached()
            os._exit(0)


def phase(name, state, **kw):
    emit("phase", phase=name, state=state, **kw)


class Step(object):
    """Times one step and emits phase start/end/failed events."""

    def __init__(self, timings, name, pid=None):
        self.timings, self.name, self.pid = timings, name, pid

    def __enter__(self):
        self.t0 = time.monotonic()
        kw = {"pid": self.pid} if self.pid is not None else {}
        phase(self.name, "start", **kw)
        return self

    def __exit__(self, et, ev, tb):
        ms = round((time.monotonic() - self.t0) * 1000, 1)
        self.timings[self.name] = self.timings.get(self.name, 0) + ms
        kw = {"pid": self.pid} if self.pid is not None else {}
        if et is None:
            phase(self.name, "end", durationMs=ms, **kw)
        else:
            phase(self.name, "failed", durationMs=ms, detail=str(ev)[:2000], **kw)
        return False


# ---------------------------------------------------------------- stdin watch


def shutdown_attached():
    for p in list(_attached):
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.monotonic() + 5
    for p in list(_attached):
        while p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass


def watch_stdin(on_eof_exit):
    def run():
        try:
            while True:
                b = os.read(0, 65536)
                if not b:
                    break
        except OSError:
            pass
        _stdin_closed.set()
        if on_eof_exit:
            shutdown_attached()
            with _exit_lock:
                if not _must_finish.is_set():
                    os._exit(0)
            # else: the main thread sees _stdin_closed, releases what it locked, reports and exits.

    t = threading.Thread(target=run, name="stdin-watch")
    t.daemon = True
    t.start()


# ---------------------------------------------------------------- files and processes


def write_atomic(path, data):
    """Temp file in the same dir, then rename (what Dynamo's agent does for sentinels)."""
    d, name = os.path.split(path)
    tmp = os.path.join(d, "." + name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


def read_json(path, default=None):
    try:
        with open(path, "rb") as f:
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return default


def proc_start_time(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read().decode("ascii", "replace")
        fields = stat[stat.rindex(")") + 2:].split()
        return fields[0], int(fields[19])  # state, starttime
    except (OSError, ValueError, IndexError):
        return None, None


def alive(rec):
    """The recorded process is still running (not a zombie, not a reused pid)."""
    if not rec or not rec.get("pid"):
        return False
    state, start = proc_start_time(rec["pid"])
    if state is None or state == "Z":
        return False
    return rec.get("startTime") in (None, start)


def proc_stats():
    """(pid, fields after the command name) for every process; fields[1] is the ppid, fields[2] the pgid."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read().decode("ascii", "replace")
            yield int(name), stat[stat.rindex(")") + 2:].split()
        except (OSError, ValueError):
            pass


def group_members(pgid):
    out = []
    for pid, fields in proc_stats():
        try:
            if int(fields[2]) == pgid:
                out.append(pid)
        except (ValueError, IndexError):
            pass
    return sorted(out)


def tree(root):
    """root and its descendants (what CRIU dumps)."""
    children = {}
    for pid, fields in proc_stats():
        try:
            children.setdefault(int(fields[1]), []).append(pid)
        except (ValueError, IndexError):
            pass
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return sorted(out)


def dir_bytes(path):
    total = 0
    for dp, _dn, fns in os.walk(path):
        for fn in fns:
            try:
                total += os.lstat(os.path.join(dp, fn)).st_size
            except OSError:
                pass
    return total


def tail_text(path, n=4000):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def signal_name(num):
    try:
        return signal.Signals(num).name
    except ValueError:
        return "SIG%d" % num


# ---------------------------------------------------------------- run layout


def runs_base(cfg):
    base = cfg.get("runsBase")
    if base:
        return base
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "dynamo-snapshot-workbench", "runs")


def run_dir_of(cfg):
    if cfg.get("runDir"):
        return cfg["runDir"]
    rid = cfg.get("runId", "")
    if not rid or not all(c.isalnum() or c in "_.-" for c in rid) or rid.startswith("."):
        raise AgentError("runId must be letters, digits, '_', '.' or '-': %r" % rid, "bad-config")
    return os.path.join(runs_base(cfg), rid)


class Run(object):
    def __init__(self, run_dir):
        self.dir = run_dir
        self.meta = read_json(os.path.join(run_dir, "run.json"))
        if self.meta is None:
            raise AgentError("no run at %s (run.json missing)" % run_dir, "no-run")
        self.control = self.meta["controlDir"]
        self.logs = os.path.join(run_dir, "logs")
        self.procs = os.path.join(run_dir, "procs")

    def records(self):
        """Process records in start order: [(name, rec)]."""
        out = []
        try:
            names = os.listdir(self.procs)
        except OSError:
            return out
        for fn in names:
            if fn.endswith(".json") and not fn.endswith(".exit.json") and not fn.startswith("."):
                rec = read_json(os.path.join(self.procs, fn))
                if rec:
                    out.append((fn[:-5], rec))
        out.sort(key=lambda x: x[1].get("seq", 0))
        return out

    def current(self):
        recs = [r for r in self.records() if r[1].get("pid")]
        return recs[-1] if recs else (None, None)

    def exit_of(self, name):
        return read_json(os.path.join(self.procs, name + ".exit.json"))

    def next_name(self, role):
        n = len(self.records())
        return "%s-%d" % (role, n), n

    def sentinel(self, name):
        return os.path.join(self.control, name)


def launch_supervisor(run, spec):
    """Starts `supervise` in its own session so it outlives this agent and the connection."""
    me = os.path.join(run.dir, "dsw_agent.py")
    out = open(os.path.join(run.dir, "supervisor-%s.log" % spec["name"]), "ab")
    try:
        subprocess.Popen(
            [sys.executable, me, "supervise", json.dumps(spec)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, close_fds=True, cwd=run.dir,
        )
    finally:
        out.close()
    path = os.path.join(run.procs, spec["name"] + ".json")
    deadline = time.monotonic() + float(spec.get("launchTimeoutS", 30))
    while time.monotonic() < deadline:
        rec = read_json(path)
        if rec is not None:
            if rec.get("error"):
                raise AgentError(rec["error"], rec.get("code"))
            return rec
        time.sleep(0.01)
    raise AgentError("the supervisor did not report within %ss: %s" % (spec.get("launchTimeoutS", 30),
                     tail_text(os.path.join(run.dir, "supervisor-%s.log" % spec["name"]))), "launch-timeout")


def engine_env(run):
    env = dict(os.environ)
    env.update(run.meta.get("env") or {})
    env["DYN_SNAPSHOT_CONTROL_DIR"] = run.control
    env["SNAPSHOT_CONTROL_DIR"] = run.control
    env["DSW_ENDPOINT_FILE"] = os.path.join(run.dir, "endpoint.json")
    env["DSW_RUN_DIR"] = run.dir
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


# ---------------------------------------------------------------- CUDA checkpoint


DRIVER_CHECKPOINT_MIN = 12080  # cuDriverGetVersion of CUDA 12.8 (driver r570): cuCheckpointProcess* usable


def driver_checkpoint_lib():
    """libcuda when it has cuCheckpointProcess* and reports CUDA >= 12.8, else None (the symbols alone are not enough)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    if not hasattr(lib, "cuCheckpointProcessLock") or not hasattr(lib, "cuDriverGetVersion"):
        return None
    v = ctypes.c_int(0)
    if lib.cuDriverGetVersion(ctypes.byref(v)) != 0 or v.value < DRIVER_CHECKPOINT_MIN:
        return None
    return lib


class Cuda(object):
    """cuda-checkpoint CLI when present, else the driver's cuCheckpointProcess* API through ctypes."""

    STATES = ("running", "locked", "checkpointed", "failed")

    def __init__(self, cli_path=None):
        if cli_path and not (os.path.isfile(cli_path) or shutil.which(cli_path)):
            raise AgentError("cuda-checkpoint not found at %s (criu.cudaCheckpointPath)" % cli_path, "cuda-missing")
        self.cli = cli_path or shutil.which("cuda-checkpoint")
        self.lib = None
        if self.cli is None:
            lib = driver_checkpoint_lib()
            if lib is not None and lib.cuInit(0) == 0:
                self.lib = lib

    @property
    def backend(self):
        return "cuda-checkpoint" if self.cli else ("driver-api" if self.lib else None)

    def _cli(self, *args):
        try:
            r = subprocess.run([self.cli] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        except (OSError, subprocess.SubprocessError) as e:
            raise AgentError("cuda-checkpoint %s: %s" % (" ".join(args), e), "cuda")
        out = r.stdout.decode("utf-8", "replace").strip()
        if r.returncode != 0:
            raise AgentError("cuda-checkpoint %s: exit %d: %s" % (" ".join(args), r.returncode, out[-500:]), "cuda")
        return out

    def _drv(self, fn, pid, arg, what):
        rc = getattr(self.lib, fn)(pid, arg)
        if rc:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(rc, ctypes.byref(name))
            raise AgentError("%s(pid %d): %s (%d)" % (what, pid, (name.value or b"?").decode(), rc), "cuda")

    def is_cuda(self, pid):
        if self.cli:
            try:
                self._cli("--get-restore-tid", "--pid", str(pid))
                return True
            except AgentError:
                return False
        tid = ctypes.c_int()
        return self.lib.cuCheckpointProcessGetRestoreThreadId(pid, ctypes.byref(tid)) == 0

    def state(self, pid):
        if self.cli:
            return self._cli("--get-state", "--pid", str(pid)).strip().lower()
        s = ctypes.c_int()
        self._drv("cuCheckpointProcessGetState", pid, ctypes.byref(s), "get_state")
        return self.STATES[s.value] if 0 <= s.value < 4 else "unknown"

    def action(self, action, pid, timeout_ms=None):
        if self.cli:
            args = ["--action", action, "--pid", str(pid)]
            if timeout_ms and action == "lock":
                args += ["--timeout", str(int(timeout_ms))]
            self._cli(*args)
            return

        class LockArgs(ctypes.Structure):
            _fields_ = [("timeoutMs", ctypes.c_uint), ("reserved0", ctypes.c_uint), ("reserved1", ctypes.c_uint64 * 7)]

        class Args64(ctypes.Structure):
            _fields_ = [("reserved", ctypes.c_uint64 * 8)]

        if action == "lock":
            self._drv("cuCheckpointProcessLock", pid, ctypes.byref(LockArgs(int(timeout_ms or 0))), "lock")
        else:
            fn = {"checkpoint": "cuCheckpointProcessCheckpoint", "restore": "cuCheckpointProcessRestore",
                  "unlock": "cuCheckpointProcessUnlock"}[action]
            self._drv(fn, pid, ctypes.byref(Args64()), action)

    def unlock_tolerant(self, pid):
        """Unlock; an error counts as success when the process already runs (agent/internal/cuda
        RestoreAndUnlockProcessTree: "unlock returned error but process is already running")."""
        try:
            self.action("unlock", pid)
        except AgentError:
            try:
                st = self.state(pid)
            except AgentError:
                st = "unknown"
            if st != "running":
                raise

    def release(self, pid):
        """Bring a process back to running after a failed capture: restore if checkpointed, then unlock."""
        try:
            st = self.state(pid)
        except AgentError:
            st = "unknown"
        if st == "checkpointed":
            self.action("restore", pid)
        if st in ("checkpointed", "locked", "unknown"):
            self.unlock_tolerant(pid)


# ---------------------------------------------------------------- hello


def tool_version(argv):
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20)
        text = r.stdout.decode("utf-8", "replace").strip()
        return r.returncode, text
    except (OSError, subprocess.SubprocessError) as e:
        return -1, str(e)


def nvml_gpus():
    try:
        nv = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return None, None
    if nv.nvmlInit_v2() != 0:
        return None, None
    try:
        buf = ctypes.create_string_buffer(96)
        driver = buf.value.decode() if nv.nvmlSystemGetDriverVersion(buf, 96) == 0 else None
        count = ctypes.c_uint()
        nv.nvmlDeviceGetCount_v2(ctypes.byref(count))
        gpus = []

        class Mem(ctypes.Structure):
            _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]

        for i in range(count.value):
            h = ctypes.c_void_p()
            if nv.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h)) != 0:
                continue
            g = {"index": i, "name": "?"}
            if nv.nvmlDeviceGetName(h, buf, 96) == 0:
                g["name"] = buf.value.decode("utf-8", "replace")
            if nv.nvmlDeviceGetUUID(h, buf, 96) == 0:
                g["uuid"] = buf.value.decode("utf-8", "replace")
            m = Mem()
            if nv.nvmlDeviceGetMemoryInfo(h, ctypes.byref(m)) == 0:
                g["memoryTotalMiB"] = m.total // (1 << 20)
                g["memoryUsedMiB"] = m.used // (1 << 20)
            gpus.append(g)
        return driver, gpus
    finally:
        nv.nvmlShutdown()


def smi_gpus():
    if not shutil.which("nvidia-smi"):
        return None, []
    rc, out = tool_version(["nvidia-smi", "--query-gpu=index,name,uuid,memory.total,memory.used,driver_version",
                            "--format=csv,noheader,nounits"])
    gpus, driver = [], None
    if rc != 0:
        return None, []
    for line in out.splitlines():
        p = [x.strip() for x in line.split(",")]
        if len(p) >= 6 and p[0].isdigit():
            g = {"index": int(p[0]), "name": p[1], "uuid": p[2]}
            try:
                g["memoryTotalMiB"], g["memoryUsedMiB"] = float(p[3]), float(p[4])
            except ValueError:
                pass
            gpus.append(g)
            driver = p[5]
    return driver, gpus


def cmd_hello(cfg):
    driver, gpus = nvml_gpus()
    if gpus is None:
        driver, gpus = smi_gpus()
    cc_path = cfg.get("cudaCheckpointPath") or shutil.which("cuda-checkpoint")
    cc = {"present": False}
    if cc_path and (os.path.isfile(cc_path) or shutil.which(cc_path)):
        rc, out = tool_version([cc_path, "--help"])
        cc = {"present": rc != -1, "path": cc_path}
        ver = [l for l in out.splitlines() if "version" in l.lower()]
        if ver:
            cc["version"] = ver[0].strip()[:200]
    criu_path = cfg.get("criuPath") or "criu"
    resolved = shutil.which(criu_path) or (criu_path if os.path.isfile(criu_path) else None)
    criu = {"present": False}
    if resolved:
        rc, out = tool_version([resolved, "--version"])
        criu = {"present": rc == 0, "path": resolved}
        if rc == 0:
            criu["version"] = out.splitlines()[0].strip()[:200] if out else ""
            if cfg.get("criuCheck", True):
                rc2, out2 = tool_version([resolved, "check"])
                lines = [l for l in out2.splitlines() if l.strip()]
                criu["check"] = {"ok": rc2 == 0, "message": (lines[-1] if lines else "")[:500]}
    api = driver_checkpoint_lib() is not None
    emit("hello", agentVersion=AGENT_VERSION, python=platform.python_version(), platform=platform.platform(),
         hostname=socket.gethostname(), uid=os.getuid(), isRoot=os.geteuid() == 0,
         gpus=gpus or [], cudaCheckpoint=cc, criu=criu, cudaDriverCheckpointApi=api,
         **({"driverVersion": driver} if driver else {}))
    return True


# ---------------------------------------------------------------- start / status / stop


def own_source():
    src = globals().get("__dsw_source__")
    if src is None:
        with open(os.path.abspath(__file__), "rb") as f:
            src = f.read()
    return src


def prepare_control_dir(path):
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".dsw-write-probe")
        with open(probe, "wb") as f:
            f.write(b"x")
        os.unlink(probe)
    except OSError as e:
        raise AgentError("control directory %s is not writable: %s" % (path, e.strerror or e), "control-dir-unwritable")
    for name in SENTINELS + ("cuda-checkpoint-job",):
        for p in (os.path.join(path, name), os.path.join(path, "." + name + ".tmp")):
            if os.path.lexists(p):
                os.unlink(p)
                if name in SENTINELS and not p.endswith(".tmp"):
                    emit("sentinel", name=name, action="removed")
                    emit("warning", message="removed stale %s from %s" % (name, path), code="stale-sentinel")


def started_event(run, rec):
    logs = sorted(fn for fn in os.listdir(run.logs) if not fn.startswith("."))
    emit("started", runDir=run.dir, controlDir=run.control, pid=rec["pid"], pgid=rec["pgid"], logFiles=logs)


def cmd_start(cfg):
    run_dir = run_dir_of(cfg)
    command = cfg.get("command") or []
    if not command or not all(isinstance(a, str) for a in command):
        raise AgentError("command must be a non-empty list of strings", "bad-config")
    if os.path.exists(os.path.join(run_dir, "run.json")):
        old = Run(run_dir)
        if any(alive(r) for _n, r in old.records()):
            raise AgentError("run %s is already running in %s" % (cfg.get("runId"), run_dir), "run-exists")
        shutil.rmtree(run_dir)
    control = cfg.get("controlDir") or os.path.join(run_dir, "control")
    # run.json holds the profile's env (tokens, maybe): the run dir is private to the worker user.
    os.makedirs(run_dir, exist_ok=True)
    os.chmod(run_dir, 0o700)
    for d in ("logs", "procs", "images"):
        os.makedirs(os.path.join(run_dir, d), exist_ok=True)
    prepare_control_dir(control)
    with open(os.path.join(run_dir, "dsw_agent.py"), "wb") as f:
        f.write(own_source())
    meta = {"runId": cfg.get("runId"), "command": command, "env": cfg.get("env") or {}, "cwd": cfg.get("cwd"),
            "controlDir": control, "createdAt": now_ms()}
    write_atomic(os.path.join(run_dir, "run.json"), json.dumps(meta, indent=1))
    run = Run(run_dir)
    rec = launch_process(run, "source", command)
    started_event(run, rec)
    return True


def launch_process(run, role, command):
    name, seq = run.next_name(role)
    spec = {"mode": "spawn", "runDir": run.dir, "name": name, "role": role, "seq": seq, "argv": command,
            "cwd": run.meta.get("cwd"), "log": os.path.join(run.logs, "%s.log" % ("engine" if seq == 0 else name))}
    return launch_supervisor(run, spec)


def cmd_status(cfg):
    run = Run(run_dir_of(cfg))
    name, rec = run.current()
    if rec and alive(rec):
        started_event(run, rec)
        return True
    raise AgentError("run %s is not running (last process %s ended: %s)" % (run.dir, name, json.dumps(run.exit_of(name) if name else None)), "not-running")


def cmd_stop(cfg):
    run = Run(run_dir_of(cfg))
    grace = float(cfg.get("graceMs", 5000)) / 1000.0
    groups = sorted(set(r["pgid"] for _n, r in run.records() if alive(r)))
    timings = {}
    with Step(timings, "stop_term"):
        for g in groups:
            try:
                os.killpg(g, signal.SIGTERM)
            except OSError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(group_members(g) for g in groups):
            time.sleep(0.05)
    left = [g for g in groups if group_members(g)]
    if left:
        with Step(timings, "stop_kill"):
            for g in left:
                try:
                    os.killpg(g, signal.SIGKILL)
                except OSError:
                    pass
    return True


# ---------------------------------------------------------------- supervise (detached)


def set_subreaper():
    """Orphans of our tree (a CRIU-restored root once criu exits) become our children, so we see how they end."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def cmd_supervise(spec):
    run = Run(spec["runDir"])
    set_subreaper()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    rec_path = os.path.join(run.procs, spec["name"] + ".json")
    base = {"role": spec["role"], "seq": spec["seq"], "log": os.path.basename(spec["log"]), "supervisor": os.getpid()}
    logfd = os.open(spec["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    if spec["mode"] == "spawn":
        try:
            p = subprocess.Popen(spec["argv"], stdin=subprocess.DEVNULL, stdout=logfd, stderr=logfd,
                                 cwd=spec.get("cwd") or None, env=engine_env(run), start_new_session=True, close_fds=True)
        except OSError as e:
            base["error"] = "cannot start %s: %s" % (spec["argv"][0], e)
            base["code"] = "spawn-failed"
            write_atomic(rec_path, json.dumps(base))
            return
        pid = p.pid
        rec = dict(base, pid=pid, pgid=pid, startTime=proc_start_time(pid)[1], startedAt=now_ms())
    else:
        img = spec["imageDir"]
        pidfile = os.path.join(run.dir, ".restored.pid")
        if os.path.exists(pidfile):
            os.unlink(pidfile)
        argv = [spec["criu"], "restore", "-D", img, "-d", "--pidfile", pidfile, "-v4", "-o", "restore.log"] + spec.get("extraArgs", [])
        t0 = time.monotonic()
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=logfd, stderr=logfd, env=engine_env(run))
        ms = round((time.monotonic() - t0) * 1000, 1)
        try:
            with open(pidfile) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            pid = None
        if r.returncode != 0 or not pid:
            base["error"] = "criu restore failed (exit %d): %s" % (r.returncode, tail_text(os.path.join(img, "restore.log"), 1500))
            base["code"] = "criu-restore"
            write_atomic(rec_path, json.dumps(base))
            return
        try:
            pgid = os.getpgid(pid)
        except OSError:
            pgid = pid
        rec = dict(base, pid=pid, pgid=pgid, startTime=proc_start_time(pid)[1], startedAt=now_ms(), criuRestoreMs=ms)
        p = None
    os.close(logfd)
    write_atomic(rec_path, json.dumps(rec))
    code, sig = None, None
    while True:
        try:
            wpid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if wpid == pid:
            if os.WIFSIGNALED(status):
                sig = signal_name(os.WTERMSIG(status))
            else:
                code = os.WEXITSTATUS(status)
            # Keep reaping the rest of the tree (DP ranks reparented to us) until nothing is left.
    if code is None and sig is None:
        code = None
        sig = "unknown"
    write_atomic(os.path.join(run.procs, spec["name"] + ".exit.json"),
                 json.dumps({"pid": pid, "role": spec["role"], "code": code, "signal": sig, "endedAt": now_ms()}))


# ---------------------------------------------------------------- follow


def cmd_follow(cfg):
    run = Run(run_dir_of(cfg))
    offsets = dict(cfg.get("offsets") or {})
    poll = max(0.002, float(cfg.get("pollMs", 10)) / 1000.0)
    framed = cfg.get("logFrames") == LOG_FRAME_FORMAT
    read_max = FRAME_CHUNK if framed else MAX_CHUNK
    fds = {}
    seen_sent = {}
    seen_exit = set()
    endpoint = None
    last_list = 0.0
    files = []
    stalled = {}
    while not _stdin_closed.is_set():
        busy = False
        for name in SENTINELS:
            present = os.path.exists(os.path.join(run.control, name))
            if seen_sent.get(name, False) != present:
                if present or name in seen_sent:
                    emit("sentinel", name=name, action="created" if present else "removed")
                seen_sent[name] = present
        t = time.monotonic()
        if t - last_list > 0.2:
            last_list = t
            try:
                files = sorted(fn for fn in os.listdir(run.logs) if not fn.startswith("."))
            except OSError as e:
                emit("error", message="log directory %s is gone: %s" % (run.logs, e), code="run-gone")
                return False
            for fn in files:
                if fn not in fds:
                    try:
                        fds[fn] = os.open(os.path.join(run.logs, fn), os.O_RDONLY)
                    except OSError:
                        continue
                    offsets.setdefault(fn, 0)
            ep = read_json(os.path.join(run.dir, "endpoint.json"))
            if ep and isinstance(ep.get("url"), str) and ep["url"] != endpoint:
                endpoint = ep["url"]
                emit("endpoint", url=endpoint)
        for fn, fd in fds.items():
            off = offsets.get(fn, 0)
            try:
                size = os.fstat(fd).st_size
            except OSError:
                continue
            if size < off:
                emit("warning", message="%s shrank from %d to %d bytes; reading from the start" % (fn, off, size), code="log-truncated")
                off = offsets[fn] = 0
            if size == off:
                continue
            data = os.pread(fd, min(size - off, read_max), off)
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                # No newline yet: wait, unless the line is huge or the writer stopped a while ago.
                key = (fn, size)
                if len(data) < MAX_CHUNK and stalled.get(fn) != key:
                    stalled[fn] = key
                    continue
                if len(data) < MAX_CHUNK and not all_exited(run):
                    continue
                cut = len(data)
            if framed:
                emit_frame(fn, off, memoryview(data)[:cut])
            else:
                emit("log", file=fn, start=off, end=off + cut, data=data[:cut].decode("utf-8", "replace"))
            offsets[fn] = off + cut
            busy = busy or (size - off - cut) > 0
        # Every pass (not every 200 ms: the workflow waits on the source's exit to judge it), and after
        # the logs, so the last lines a process wrote arrive before its exit.
        report_exits(run, seen_exit)
        if not busy:
            _stdin_closed.wait(poll)
    return True


def report_exits(run, seen):
    try:
        new = sorted(fn for fn in os.listdir(run.procs) if fn.endswith(".exit.json") and fn not in seen)
    except OSError:
        return
    for fn in new:
        ex = read_json(os.path.join(run.procs, fn))
        if ex:
            seen.add(fn)
            emit("process_exit", pid=ex.get("pid") or 0, role=ex.get("role", "source")
                 if ex.get("role") in ("source", "restored") else "other", code=ex.get("code"), signal=ex.get("signal"))


def all_exited(run):
    return not any(alive(r) for _n, r in run.records())


# ---------------------------------------------------------------- capture


def wait_ready(run, rec, timeout_s):
    path = run.sentinel("ready-for-snapshot")
    deadline = time.monotonic() + timeout_s
    while not os.path.exists(path):
        if not alive(rec):
            raise AgentError("the source (pid %d) ended before it wrote ready-for-snapshot" % rec["pid"], "source-exited")
        if time.monotonic() > deadline:
            raise AgentError("the source never became ready: no %s after %gs" % (path, timeout_s), "ready-timeout")
        if _stdin_closed.is_set():
            raise AgentError("cancelled", "cancelled")
        time.sleep(0.01)


def run_attached(argv, env, timeout_s, log_path):
    """A job that dies with us: own process group, killed on stdin EOF or timeout."""
    with open(log_path, "ab") as log:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    _attached.append(p)
    try:
        rc = p.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise AgentError("%s did not finish within %gs" % (argv[0], timeout_s), "timeout")
    finally:
        _attached.remove(p)
    if _stdin_closed.is_set():
        raise AgentError("cancelled: the extension closed the connection while %s ran" % os.path.basename(argv[0]), "cancelled")
    return rc


def hold_exit():
    """From now on stdin EOF does not end the agent at once (see _must_finish); refused if it already did."""
    with _exit_lock:
        if _stdin_closed.is_set():
            raise AgentError("cancelled", "cancelled")
        _must_finish.set()


def check_cancelled():
    if _stdin_closed.is_set():
        raise AgentError("cancelled: the extension closed the connection", "cancelled")


# The two protocol generations of the snapshot agent (docs/compatibility.md):
#   release: ai-dynamo/snapshot up to b7e707c (2026-08) — CRIU dumps with --leave-running, the agent
#            writes snapshot-complete ("done\n") and the source exits by itself; restore-complete "done\n".
#   kill:    ai-dynamo/snapshot after #101 — the dump terminates the source (LeaveRunning false) and no
#            snapshot-complete is written; restore-complete is "pid=<N>\n" (api/podcontract
#            FormatRestoreComplete) and a failed restore leaves a restore-failed sentinel before the
#            destination is killed.
GENERATIONS = ("release", "kill")

# CRIU options as the upstream agent sets them (ai-dynamo/snapshot charts/snapshot/values.yaml and
# agent/internal/criu/{dump,restore,util}.go), in CLI form: name -> (default, dump flags, restore flags).
# A value of False/None drops the option; docs/transport.md says why each one is there.
CRIU_OPTIONS = {
    "shellJob": (True, ["--shell-job"], ["--shell-job"]),
    "tcpEstablished": (True, ["--tcp-established"], ["--tcp-established"]),
    "fileLocks": (True, ["--file-locks"], ["--file-locks"]),
    "extUnixSk": (True, ["--ext-unix-sk"], ["--ext-unix-sk"]),
    "linkRemap": (True, ["--link-remap"], ["--link-remap"]),
    "extMasters": (True, ["--enable-external-masters"], []),
    "ghostLimit": (536870912, ["--ghost-limit", "{}"], []),
    "manageCgroupsMode": ("soft", ["--manage-cgroups={}"], ["--manage-cgroups={}"]),
    "allowUprobes": (True, ["--allow-uprobes"], ["--allow-uprobes"]),
    "skipInFlight": (True, ["--skip-in-flight"], ["--skip-in-flight"]),
    "rstSibling": (True, [], ["--restore-sibling"]),
    "evasiveDevices": (True, [], ["--evasive-devices"]),
    "forceIrmap": (True, [], ["--force-irmap"]),
    "networkLock": ("skip", [], ["--network-lock", "{}"]),
}


def criu_option_args(cfg, which):
    """The upstream agent's CRIU options for `which` ("dump" or "restore"), with the profile's overrides."""
    overrides = cfg.get("criuOptions") or {}
    unknown = sorted(set(overrides) - set(CRIU_OPTIONS) - {"pluginDir"})
    if unknown:
        raise AgentError("unknown CRIU option(s) %s (known: %s)" % (", ".join(unknown), ", ".join(sorted(CRIU_OPTIONS))), "bad-config")
    out = []
    for name, (default, dump_flags, restore_flags) in CRIU_OPTIONS.items():
        value = overrides.get(name, default)
        flags = dump_flags if which == "dump" else restore_flags
        if value is None or value is False or not flags:
            continue
        out += [f.format(value) for f in flags]
    return out


def plugin_dir(run, cfg):
    """-L for CRIU: a dedicated empty plugin directory, so no system plugin (CRIU's cuda_plugin.so) locks
    CUDA a second time — the agent does CUDA itself, as the upstream agent does (values.yaml libDir)."""
    d = (cfg.get("criuOptions") or {}).get("pluginDir")
    if d:
        return d
    d = os.path.join(run.dir, "criu-plugins")
    os.makedirs(d, mode=0o700, exist_ok=True)
    if os.listdir(d):
        raise AgentError("the dedicated CRIU plugin directory %s is not empty" % d, "bad-config")
    return d


def generation_of(cfg):
    g = cfg.get("generation") or "release"
    if g not in GENERATIONS:
        raise AgentError("unknown protocol generation %r (expected one of %s)" % (g, ", ".join(GENERATIONS)), "bad-config")
    return g


def kill_tree(rec):
    """SIGKILL the source's whole tree (what a dump without --leave-running does to it)."""
    pids = tree(rec["pid"])
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    return pids


def cmd_capture(cfg):
    run = Run(run_dir_of(cfg))
    mode = cfg.get("mode", "protocol")
    name, rec = run.current()
    timings = {}
    result = {"mode": mode, "timingsMs": timings}
    try:
        generation = generation_of(cfg)
        result["generation"] = generation
        if not rec:
            raise AgentError("no source process in %s" % run.dir, "no-source")
        with Step(timings, "wait_ready", rec["pid"]):
            wait_ready(run, rec, float(cfg.get("readyTimeoutS", 900)))
        if mode == "criu":
            capture_criu(run, rec, cfg, timings, result, generation)
        elif mode == "command":
            capture_command(run, rec, cfg, timings)
        elif mode != "protocol":
            raise AgentError("unknown capture mode %r" % mode, "bad-config")
        if generation == "release":
            with Step(timings, "write_snapshot_complete"):
                write_atomic(run.sentinel("snapshot-complete"), "done\n")
        elif mode != "criu":
            # The dump terminates the source (Snapshot #101); without a dump, the agent does it.
            with Step(timings, "kill_source", rec["pid"]):
                kill_tree(rec)
        result["sourceKilled"] = generation == "kill"
        emit("capture_result", ok=True, **result)
        return True
    except AgentError as e:
        emit("capture_result", ok=False, error=str(e), **result)
        return False


def capture_command(run, rec, cfg, timings):
    argv = cfg.get("captureCommand") or []
    if not argv:
        raise AgentError("captureCommand is empty", "bad-config")
    env = dict(os.environ, DSW_PID=str(rec["pid"]), DSW_PGID=str(rec["pgid"]), DSW_CONTROL_DIR=run.control,
               DSW_RUN_DIR=run.dir, DSW_IMAGE_DIR=os.path.join(run.dir, "images"))
    with Step(timings, "capture_command", rec["pid"]):
        rc = run_attached(argv, env, float(cfg.get("timeoutS", 600)), os.path.join(run.logs, "capture-command.log"))
        if rc != 0:
            raise AgentError("capture command %s exited with %d (output in capture-command.log)" % (argv[0], rc), "capture-command")


def capture_criu(run, rec, cfg, timings, result, generation):
    criu = cfg.get("criuPath") or "criu"
    img = os.path.join(run.dir, "images", "checkpoint")
    if os.path.exists(img):
        shutil.rmtree(img)
    os.makedirs(img)
    result["imageDir"] = img
    options = criu_option_args(cfg, "dump") + ["-L", plugin_dir(run, cfg)]
    pids = tree(rec["pid"])
    cuda = Cuda(cfg.get("cudaCheckpointPath"))
    cuda_pids = []
    if cuda.backend:
        cuda_pids = [p for p in pids if cuda.is_cuda(p)]
    if not cuda_pids:
        phase("cuda_lock", "skipped", detail="no CUDA processes" if cuda.backend else "no cuda-checkpoint and no driver checkpoint API")
    locked = []
    timeout_s = float(cfg.get("timeoutS", 600))
    if cuda_pids:
        hold_exit()
    try:
        # Dynamo's agent locks every process before checkpointing any (collectives stay consistent).
        for p in cuda_pids:
            check_cancelled()
            with Step(timings, "cuda_lock", p):
                locked.append(p)  # before the call: a lock that times out half-way must be released too
                cuda.action("lock", p, timeout_ms=timeout_s * 1000)
        for p in cuda_pids:
            check_cancelled()
            with Step(timings, "cuda_checkpoint", p):
                cuda.action("checkpoint", p)
        check_cancelled()
        # --leave-running only in the release generation: after #101 the dump itself ends the source.
        keep = ["--leave-running"] if generation == "release" else []
        argv = [criu, "dump", "-t", str(rec["pid"]), "-D", img] + keep + ["-v4", "-o", "dump.log"] + options + list(cfg.get("extraArgs") or [])
        out = os.path.join(run.dir, "criu-dump.log")  # criu's stdout/stderr (its -v4 log is dump.log in the image dir)
        with Step(timings, "criu_dump", rec["pid"]):
            # Attached (own group, in _attached): a cancelled capture kills it instead of leaving it
            # running against a CUDA-locked source.
            try:
                rc = run_attached(argv, None, timeout_s, out)
            except OSError as e:
                raise AgentError("cannot run %s: %s" % (criu, e), "criu-missing")
            if rc != 0:
                raise AgentError("criu dump failed (exit %d): %s %s" % (rc, tail_text(out, 500),
                                 tail_text(os.path.join(img, "dump.log"), 1500)), "criu-dump")
        result["imageBytes"] = dir_bytes(img)
    except AgentError:
        if generation == "kill":
            # The upstream agent SIGKILLs a source a failed dump may have left unsafe (CheckpointNeedsSourceKill).
            for p in locked:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
            if locked:
                kill_tree(rec)
            raise
        # Never leave the source frozen: bring every CUDA process we touched back to running.
        for p in locked:
            with Step(timings, "cuda_release", p):
                try:
                    cuda.release(p)
                except AgentError as e:
                    emit("error", message="could not unlock pid %d after the failed capture: %s" % (p, e), code="cuda-release")
        raise


# ---------------------------------------------------------------- restore

# Names a Dynamo worker takes from restore-context.json (ai-dynamo 1.6.1 common/snapshot/constants.py:
# KUBERNETES_REQUIRED_ENV_NAMES + KUBERNETES_OPTIONAL_ENV_NAMES + RESTORE_RUNTIME_ENV_NAMES; restore_context.py
# ignores any other). Kept equal to src/core/settings/restoreContext.ts and to the installed package by
# test/system/dynamo/contract.test.ts.
RESTORE_CONTEXT_NAMES = (
    "CONTAINER_NAME", "DYN_COMPONENT", "DYN_DISCOVERY_BACKEND", "DYN_EVENT_PLANE", "DYN_EVENT_PLANE_HOST",
    "DYN_GMS_USE_V1", "DYN_HEALTH_CHECK_ENABLED", "DYN_KUBE_DISCOVERY_MODE", "DYN_NAMESPACE",
    "DYN_NAMESPACE_WORKER_SUFFIX", "DYN_PARENT_DGD_K8S_NAME", "DYN_PARENT_DGD_K8S_NAMESPACE", "DYN_REQUEST_PLANE",
    "DYN_SYSTEM_HEALTH_PATH", "DYN_SYSTEM_HOST", "DYN_SYSTEM_LIVE_PATH", "DYN_SYSTEM_PORT",
    "DYN_SYSTEM_STARTING_HEALTH_STATUS", "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "DYN_TCP_LISTEN_BACKLOG",
    "DYN_TCP_RESPONSE_STREAM_HOST", "DYN_TCP_RESPONSE_STREAM_PORT", "DYN_TCP_RPC_HOST", "DYN_TCP_RPC_PORT",
    "DYN_VLLM_GMS_SHADOW_MODE", "ENGINE_ID", "ETCD_ENDPOINTS", "FAILOVER_LOCK_PATH", "MODEL_EXPRESS_URL",
    "NATS_SERVER", "POD_NAME", "POD_NAMESPACE", "POD_UID", "PROMETHEUS_ENDPOINT",
)


def restore_context_payload(run, cfg):
    """What a restore standby process would capture (restore_context.write_snapshot_restore_context): every
    allow-listed name, sorted, its restore-time value (the profile's restoreContextEnv, else its env) or null
    (= unset it in the restored process). Names outside the list are refused: Dynamo would ignore them."""
    given = cfg.get("restoreContext") or {}
    bad = sorted(k for k in given if k not in RESTORE_CONTEXT_NAMES)
    if bad:
        raise AgentError("restoreContextEnv names %s are not restored by Dynamo (allowed: %s)" % (", ".join(bad), ", ".join(RESTORE_CONTEXT_NAMES)), "bad-config")
    env = run.meta.get("env") or {}
    ctx = {"env": {n: (given[n] if n in given else env.get(n)) for n in sorted(RESTORE_CONTEXT_NAMES)}}
    for n, v in ctx["env"].items():
        if v is not None and not isinstance(v, str):
            raise AgentError("restoreContextEnv %s must be a string or null" % n, "bad-config")
    return (json.dumps(ctx, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def write_private_atomic(path, data):
    """Like write_atomic, but the file is 0600 from its first byte: the restore env may hold secrets."""
    d, name = os.path.split(path)
    tmp = os.path.join(d, "." + name + ".tmp")
    if os.path.lexists(tmp):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)
        while data:
            data = data[os.write(fd, data):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(tmp, path)


def restore_complete_content(generation, pid):
    return "pid=%d\n" % pid if generation == "kill" else "done\n"


def cmd_restore(cfg):
    run = Run(run_dir_of(cfg))
    mode = cfg.get("mode", "protocol")
    timings = {}
    result = {"mode": mode, "timingsMs": timings}
    generation = "release"
    try:
        generation = generation_of(cfg)
        result["generation"] = generation
        ctx = restore_context_payload(run, cfg)
        if mode == "criu":
            pid = restore_criu(run, cfg, timings, ctx)
        else:
            pid = restore_protocol(run, cfg, timings, ctx)
        # Watch the context before the restored process can see restore-complete and read it.
        watch = context_watch(run)
        with Step(timings, "write_restore_complete"):
            write_atomic(run.sentinel("restore-complete"), restore_complete_content(generation, pid))
        start_context_reaper(run, pid, float(cfg.get("timeoutS", 600)), watch)
        emit("restore_result", ok=True, pid=pid, **result)
        return True
    except AgentError as e:
        if generation == "kill":
            restore_failed(run, e)
        else:
            remove_context(run)
        emit("restore_result", ok=False, error=str(e), **result)
        return False


def restore_failed(run, err):
    """The #101 generation: restore-failed is written before the destination is killed, so a later
    incarnation knows this restore was spent (api/podcontract RestoreFailedFile)."""
    try:
        write_atomic(run.sentinel("restore-failed"), "%s\n" % str(err)[:500])
    except OSError as e:
        emit("warning", message="could not write restore-failed: %s" % e, code="restore-failed")
    name, rec = run.current()
    if rec and rec.get("role") == "restored" and alive(rec):
        kill_tree(rec)
    remove_context(run)


def remove_context(run):
    try:
        os.unlink(run.sentinel("restore-context.json"))
    except OSError:
        pass


def clear_for_restore(run):
    # A stale restore-complete would release the restored process too early, and a leftover
    # snapshot-complete would make it exit again (it polls snapshot-complete first).
    for name in ("restore-complete", "restore-failed", "snapshot-complete", "ready-for-snapshot", "restore-context.json"):
        p = run.sentinel(name)
        if os.path.lexists(p):
            os.unlink(p)


def write_context(run, timings, ctx):
    # Before the restore, as the restore standby process does (restore_context.py): the restored
    # process reads it as soon as it sees restore-complete.
    with Step(timings, "write_restore_context"):
        write_private_atomic(run.sentinel("restore-context.json"), ctx)


def restore_protocol(run, cfg, timings, ctx):
    name, rec = run.current()
    if rec and alive(rec):
        with Step(timings, "wait_ready", rec["pid"]):
            wait_ready(run, rec, float(cfg.get("readyTimeoutS", 900)))
        for n in ("restore-complete", "restore-failed", "snapshot-complete"):
            if os.path.lexists(run.sentinel(n)):
                os.unlink(run.sentinel(n))
        write_context(run, timings, ctx)
        return rec["pid"]
    # No live worker to release: start a fresh one and exercise its restore path instead.
    clear_for_restore(run)
    with Step(timings, "start_restore_target"):
        rec = launch_process(run, "restored", run.meta["command"])
        phase("start_restore_target", "end", detail="source is gone: started a fresh instance (pid %d) to exercise the restore path" % rec["pid"], pid=rec["pid"])
    with Step(timings, "wait_ready", rec["pid"]):
        wait_ready(run, rec, float(cfg.get("readyTimeoutS", 900)))
    write_context(run, timings, ctx)
    return rec["pid"]


def restore_criu(run, cfg, timings, ctx):
    img = os.path.join(run.dir, "images", "checkpoint")
    if not os.path.exists(os.path.join(img, "inventory.img")):
        raise AgentError("no checkpoint image in %s: capture in criu mode first" % img, "no-image")
    sources = [(n, r) for n, r in run.records() if r.get("role") == "source"]
    if not sources:
        raise AgentError("no source process is recorded in %s: start and capture a source first" % run.dir, "no-source")
    src_name, src = sources[-1]
    with Step(timings, "wait_source_gone", src["pid"]):
        # CRIU needs the original PIDs free; a restore right after kill fails with "File exists".
        deadline = time.monotonic() + float(cfg.get("exitTimeoutS", 60))
        while any(os.path.exists("/proc/%d" % p) for p in [src["pid"]] + group_members(src["pgid"])):
            if time.monotonic() > deadline:
                raise AgentError("the source (pid %d) is still running; stop it before restoring" % src["pid"], "source-running")
            time.sleep(0.02)
    clear_for_restore(run)
    write_context(run, timings, ctx)
    options = criu_option_args(cfg, "restore") + ["-L", plugin_dir(run, cfg)]
    name, seq = run.next_name("restored")
    spec = {"mode": "criu-restore", "runDir": run.dir, "name": name, "role": "restored", "seq": seq,
            "criu": cfg.get("criuPath") or "criu", "imageDir": img, "extraArgs": options + list(cfg.get("restoreExtraArgs") or []),
            "log": os.path.join(run.logs, "%s.criu.log" % name), "launchTimeoutS": float(cfg.get("timeoutS", 600))}
    with Step(timings, "criu_restore"):
        rec = launch_supervisor(run, spec)
    cuda = Cuda(cfg.get("cudaCheckpointPath"))
    if cuda.backend:
        pids = [p for p in tree(rec["pid"]) if cuda.is_cuda(p)]
        # Restore all, then unlock all (agent/internal/cuda RestoreAndUnlockProcessTree).
        for p in pids:
            with Step(timings, "cuda_restore", p):
                cuda.action("restore", p)
        for p in pids:
            with Step(timings, "cuda_unlock", p):
                cuda.unlock_tolerant(p)
    else:
        phase("cuda_restore", "skipped", detail="no cuda-checkpoint and no driver checkpoint API")
    return rec["pid"]


# ---------------------------------------------------------------- restore context reaper (detached)


IN_OPEN, IN_CLOSE_NOWRITE = 0x20, 0x10


def context_watch(run):
    """An inotify fd watching restore-context.json for its reader's open and close; -1 without inotify."""
    path = run.sentinel("restore-context.json")
    if not os.path.exists(path):
        return -1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(os.O_NONBLOCK)
    except (OSError, AttributeError):
        return -1
    if fd < 0:
        return -1
    if libc.inotify_add_watch(fd, path.encode(), IN_OPEN | IN_CLOSE_NOWRITE) < 0:
        os.close(fd)
        return -1
    return fd


def start_context_reaper(run, pid, timeout_s, watch):
    """restore-context.json is removed once the restored process has read it (or has ended, or after
    the restore timeout): the restore env can hold secrets and must not stay on disk (issue 13 item 7)."""
    if not os.path.exists(run.sentinel("restore-context.json")):
        return
    spec = json.dumps({"runDir": run.dir, "pid": pid, "timeoutS": timeout_s, "watchFd": watch})
    try:
        subprocess.Popen([sys.executable, os.path.join(run.dir, "dsw_agent.py"), "reap-context", spec],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True, pass_fds=(watch,) if watch >= 0 else (), cwd=run.dir)
    finally:
        if watch >= 0:
            os.close(watch)


def read_closed_after_open(fd, opened):
    """Drains inotify events; (opened, done): done once a close follows an open of the watched file."""
    try:
        data = os.read(fd, 4096)
    except OSError:  # BlockingIOError: nothing new
        return opened, False
    i, done = 0, False
    while i + 16 <= len(data):
        mask = int.from_bytes(data[i + 4:i + 8], sys.byteorder)
        length = int.from_bytes(data[i + 12:i + 16], sys.byteorder)
        opened = opened or bool(mask & IN_OPEN)
        done = done or (opened and bool(mask & IN_CLOSE_NOWRITE))
        i += 16 + length
    return opened, done


def cmd_reap_context(spec):
    run = Run(spec["runDir"])
    path = run.sentinel("restore-context.json")
    pid = int(spec.get("pid") or 0)
    fd = int(spec.get("watchFd", -1))
    deadline = time.monotonic() + float(spec.get("timeoutS", 600))
    opened = False
    while time.monotonic() < deadline and os.path.exists(path):
        if pid and not os.path.exists("/proc/%d" % pid):
            break  # the restored process is gone: nobody will read it
        if fd >= 0:
            opened, done = read_closed_after_open(fd, opened)
            if done:
                break
        time.sleep(0.02)
    try:
        os.unlink(path)
    except OSError:
        pass


# ---------------------------------------------------------------- main

COMMANDS = {"hello": cmd_hello, "start": cmd_start, "status": cmd_status, "follow": cmd_follow,
            "capture": cmd_capture, "restore": cmd_restore, "stop": cmd_stop}


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: dsw_agent.py SUBCOMMAND [CONFIG_JSON]\n")
        return 2
    sub = argv[1]
    try:
        cfg = json.loads(argv[2]) if len(argv) > 2 else {}
        if not isinstance(cfg, dict):
            raise ValueError("config must be a JSON object")
    except ValueError as e:
        emit("error", message="bad config: %s" % e, code="bad-config")
        emit("done", ok=False, error="bad config")
        return 2
    if sub == "supervise":
        cmd_supervise(cfg)
        return 0
    if sub == "reap-context":
        cmd_reap_context(cfg)
        return 0
    if sub not in COMMANDS:
        emit("error", message="unknown subcommand %r" % sub, code="bad-subcommand")
        emit("done", ok=False, error="unknown subcommand")
        return 2
    # Attached work must not outlive the extension: stdin EOF kills it (short commands exit anyway).
    watch_stdin(on_eof_exit=sub in ("capture", "restore"))
    try:
        ok = COMMANDS[sub](cfg)
        emit("done", ok=bool(ok))
        return 0 if ok else 1
    except AgentError as e:
        emit("error", message=str(e), code=e.code)
        emit("done", ok=False, error=str(e))
        return 1
    except Exception as e:  # noqa: BLE001 - report anything, never die silently
        emit("error", message="%s: %s" % (type(e).__name__, e), code="internal")
        emit("done", ok=False, error="%s: %s" % (type(e).__name__, e))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
