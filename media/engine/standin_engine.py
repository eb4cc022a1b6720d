"""Stand-in engine: a CPU-only program that honours the Dynamo snapshot contract.

Used by the tests and the built-in `local-demo` worker profile, so the whole workflow (warm up,
ready-for-snapshot, capture, exit, restore, resume, serve) runs without a GPU and without any Python
package. It prints what upstream prints (docs/compatibility.md names each source): the lifecycle
strings of the pinned ai-dynamo release (1.6.1 common/snapshot/lifecycle.py and restore_context.py)
through Dynamo's log shape (`<RFC3339 UTC>  INFO <target>: <message>`), the warm-up once from the
main process for every DP rank (ai-dynamo/dynamo vllm/snapshot.py, sglang/snapshot.py), and per-rank
lines in each backend's prefix (vLLM `ESC[1;36m(EngineCore_DP0 pid=N)ESC[0;0m `, SGLang `[ts DP0] `,
TRT-LLM `[ts] [TRT-LLM] [RANK 0] [I] `). The control directory is polled every 0.1 s with
snapshot-complete checked before restore-complete; after restore it serves OpenAI-style
/v1/completions on 127.0.0.1. media/engine/real_lifecycle_engine.py runs the same engine inside the
real ai-dynamo lifecycle, and a test checks both give the same markers, ranks and verdicts.

--exit-mode systemexit reproduces failure mode #1: leaving through SystemExit runs a simulated
engine teardown (an atexit hook) that dies by SIGSEGV. The default leaves with os._exit(0).
"""
import argparse
import atexit
import gc
import hashlib
import json
import os
import resource
import signal
import sys
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

POLL_INTERVAL_SEC = 0.1
VOCAB = ("Paris", "the", "capital", "is", "a", "city", "of", "light", "and", "river", "Seine", "museum",
         "bridge", "night", "old", "new", "quiet", "street", "north", "south", "morning", "bread")
# What restore_context.write_snapshot_restore_context captures (ai-dynamo 1.6.1 constants.py).
RESTORE_ENV_NAMES = (
    "CONTAINER_NAME", "DYN_COMPONENT", "DYN_DISCOVERY_BACKEND", "DYN_EVENT_PLANE", "DYN_EVENT_PLANE_HOST",
    "DYN_GMS_USE_V1", "DYN_HEALTH_CHECK_ENABLED", "DYN_KUBE_DISCOVERY_MODE", "DYN_NAMESPACE",
    "DYN_NAMESPACE_WORKER_SUFFIX", "DYN_PARENT_DGD_K8S_NAME", "DYN_PARENT_DGD_K8S_NAMESPACE", "DYN_REQUEST_PLANE",
    "DYN_SYSTEM_HEALTH_PATH", "DYN_SYSTEM_HOST", "DYN_SYSTEM_LIVE_PATH", "DYN_SYSTEM_PORT",
    "DYN_SYSTEM_STARTING_HEALTH_STATUS", "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "DYN_TCP_LISTEN_BACKLOG",
    "DYN_TCP_RESPONSE_STREAM_HOST", "DYN_TCP_RESPONSE_STREAM_PORT", "DYN_TCP_RPC_HOST", "DYN_TCP_RPC_PORT",
    "DYN_VLLM_GMS_SHADOW_MODE", "ENGINE_ID", "ETCD_ENDPOINTS", "FAILOVER_LOCK_PATH", "MODEL_EXPRESS_URL",
    "NATS_SERVER", "POD_NAME", "POD_NAMESPACE", "POD_UID", "PROMETHEUS_ENDPOINT",
)
BACKEND_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TRT-LLM"}


def write_line(text):
    # One write per line: ranks share the log file (O_APPEND), so lines never interleave mid-line.
    data = (text + "\n").encode("utf-8", "replace")
    while data:
        n = os.write(1, data)
        data = data[n:]


def stamp():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Fmt(object):
    """The main process's lines in Dynamo's log shape, and the per-rank lines of the three backends."""

    LEVELS = {"INFO": ("INFO", "\x1b[32m"), "WARN": ("WARN", "\x1b[33m"), "WARNING": ("WARN", "\x1b[33m"), "ERROR": ("ERROR", "\x1b[31m")}

    def __init__(self, kind, color):
        self.kind, self.color = kind, color

    def main(self, msg, level="INFO", target="main.worker"):
        # Dynamo's Rust logger (lib/bindings/python dynamo/runtime/logging.py → _core.log_message):
        # `<RFC3339 UTC> <level:>5> <module.function>: <message>`, in colour even into a pipe.
        lvl, colour = self.LEVELS.get(level, (level, ""))
        if self.color:
            write_line("\x1b[2m%s\x1b[0m %s%5s\x1b[0m \x1b[2m%s\x1b[0m\x1b[2m:\x1b[0m %s" % (stamp(), colour, lvl, target, msg))
        else:
            write_line("%s %5s %s: %s" % (stamp(), lvl, target, msg))

    def rank(self, dp, msg, proc="EngineCore", level="INFO"):
        if self.kind == "sglang":
            # SGLang prints a part only when its size is > 1: DP=2, TP=1 → `[ts DP1] `.
            write_line("[%s DP%d] %s" % (datetime.now().strftime("%Y-%m-%d %H:%M:%S"), dp, msg))
        elif self.kind == "trtllm":
            write_line("[%s] [TRT-LLM] [RANK %d] [%s] %s" % (datetime.now().strftime("%m/%d/%Y-%H:%M:%S"), dp, level[0], msg))
        else:
            prefix = "(%s_DP%d pid=%d)" % (proc, dp, os.getpid())
            if self.color:
                prefix = "\x1b[1;36m%s\x1b[0;0m" % prefix
            write_line("%s %s %s [core.py:%d] %s" % (prefix, level, datetime.now().strftime("%m-%d %H:%M:%S"), 100 + dp, msg))


def tokens_for(prompt, n, salt):
    out, h = [], hashlib.sha256((salt + "\0" + prompt).encode("utf-8")).digest()
    while len(out) < n:
        for b in h:
            out.append(VOCAB[b % len(VOCAB)])
            if len(out) == n:
                break
        h = hashlib.sha256(h).digest()
    return out


# ---------------------------------------------------------------- rank child


def rank_main(dp, args, fmt, cmd_r, resp_w):
    """One data-parallel rank: loads 'weights', warms up, pauses, generates on request."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    fmt.rank(dp, "Loading model %s (rank %d of %d)" % (args.model, dp, args.dp))
    weights = bytearray(args.memory_mb * 1024 * 1024)
    for i in range(0, len(weights), 4096):
        weights[i] = (i // 4096 + dp) & 0xFF
    time.sleep(args.load_seconds)
    fmt.rank(dp, "Model loaded: %d MiB of weights" % args.memory_mb)
    seen = set()
    serve_rank_pipe(cmd_r, resp_w, lambda req: handle_rank_request(dp, args, fmt, req, seen, weights))


def serve_rank_pipe(cmd_r, resp_w, handle):
    """The rank side of the pipe protocol: JSON requests in, one JSON answer each out; exits with the main process."""
    buf = b""
    while True:
        chunk = os.read(cmd_r, 65536)
        if not chunk:
            os._exit(0)  # the main process is gone
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            resp = handle(json.loads(line.decode("utf-8")))
            os.write(resp_w, (json.dumps(resp) + "\n").encode("utf-8"))


def handle_rank_request(dp, args, fmt, req, seen, weights):
    op = req["op"]
    if op == "warmup":
        w = BACKEND_NAMES.get(args.log_format, "vLLM")
        per_rank = args.warmup_log == "per-rank"
        if per_rank:
            fmt.rank(dp, "%s snapshot warmup starting" % w)
        time.sleep(args.warmup_seconds)
        toks = tokens_for("[1, 2, 3]", 2, "warmup-%d" % dp)
        if per_rank:
            fmt.rank(dp, "%s snapshot warmup complete (%d tokens)" % (w, len(toks)))
        elif args.log_format == "sglang":
            # What an SGLang scheduler logs for the warm-up request it was given (per-rank activity).
            fmt.rank(dp, "Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0")
        return {"ok": True}
    if op == "pause":
        fmt.rank(dp, "Sleeping engine (level 1); KV cache freed")
        return {"ok": True}
    if op == "resume":
        fmt.rank(dp, "Waking up engine; weights checksum %d" % (sum(weights[::1 << 20]) & 0xFFFF))
        return {"ok": True}
    if op == "generate":
        prompt = req["prompt"]
        ptoks = max(1, len(prompt.split()))
        cached = ptoks if prompt in seen else 0
        if req.get("cache", True):
            seen.add(prompt)
        toks = tokens_for(prompt, req["max_tokens"], args.model)
        fmt.rank(dp, "Finished request %s: prompt_tokens=%d cached_tokens=%d completion_tokens=%d" % (req["id"], ptoks, cached, len(toks)))
        return {"ok": True, "text": " " + " ".join(toks), "token_ids": [VOCAB.index(t) for t in toks], "prompt_tokens": ptoks,
                "cached": cached, "completion_tokens": len(toks)}
    return {"ok": False, "error": "unknown op %s" % op}


class RankClient(object):
    def __init__(self, dp, pid, cmd_w, resp_r):
        self.dp, self.pid, self.cmd_w, self.resp_r = dp, pid, cmd_w, resp_r
        self.lock = threading.Lock()
        self.buf = b""

    def call(self, **req):
        with self.lock:
            os.write(self.cmd_w, (json.dumps(req) + "\n").encode("utf-8"))
            while b"\n" not in self.buf:
                chunk = os.read(self.resp_r, 65536)
                if not chunk:
                    raise RuntimeError("rank DP%d died" % self.dp)
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            return json.loads(line.decode("utf-8"))


def spawn_ranks(args, fmt):
    ranks = []
    for dp in range(args.dp):
        cmd_r, cmd_w = os.pipe()
        resp_r, resp_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            for r in ranks:
                os.close(r.cmd_w)
                os.close(r.resp_r)
            os.close(cmd_w)
            os.close(resp_r)
            atexit._clear()
            try:
                rank_main(dp, args, fmt, cmd_r, resp_w)
            finally:
                os._exit(0)
        os.close(cmd_r)
        os.close(resp_w)
        ranks.append(RankClient(dp, pid, cmd_w, resp_r))
    return ranks


# ---------------------------------------------------------------- snapshot lifecycle


def sentinel_path(control, name):
    return os.path.join(control, name)


# What configure_snapshot_capture_env forces (ai-dynamo 1.6.1 lifecycle.py): value, and the reason its
# warning gives when it overrides a user value.
CAPTURE_ENV = (
    ("NCCL_IB_DISABLE", "1", "for snapshot mode because CRIU and cuda-checkpoint cannot restore InfiniBand state"),
    ("NCCL_RAS_ENABLE", "0", "for snapshot mode because NCCL RAS background state is not part of the snapshot contract"),
    ("TORCH_NCCL_ENABLE_MONITORING", "0", "for snapshot mode because ProcessGroupNCCL monitoring can terminate restored processes"),
    ("HF_HUB_OFFLINE", "1", "in snapshot mode to avoid external Hugging Face sockets in snapshotted processes"),
)


def configure_capture_env(fmt):
    for name, value, why in CAPTURE_ENV:
        old = os.environ.get(name)
        if old and old != value:
            fmt.main("Overriding %s=%r with '%s' %s" % (name, old, value, why), "WARN", "lifecycle.configure_snapshot_capture_env")
        os.environ[name] = value
        if name == "TORCH_NCCL_ENABLE_MONITORING":
            os.environ.setdefault("TORCH_NCCL_DUMP_ON_TIMEOUT", "0")


def wait_for_sentinel(control):
    """snapshot-complete is checked before restore-complete, every 0.1 s, with no timeout (as Dynamo does)."""
    snap, rest = sentinel_path(control, "snapshot-complete"), sentinel_path(control, "restore-complete")
    while True:
        if os.path.exists(snap):
            return "snapshot"
        if os.path.exists(rest):
            return "restore"
        time.sleep(POLL_INTERVAL_SEC)


def apply_restore_context(control, fmt):
    """restore_context.apply_snapshot_restore_env: the file must exist; null unsets; other names are ignored."""
    ctx_path = sentinel_path(control, "restore-context.json")
    if not os.path.isfile(ctx_path):
        raise RuntimeError("snapshot restore context file not found: %s" % ctx_path)
    with open(ctx_path) as f:
        env = (json.load(f) or {}).get("env")
    if not isinstance(env, dict):
        raise RuntimeError("snapshot restore context requires an object env field")
    for k, v in env.items():
        if k not in RESTORE_ENV_NAMES:
            fmt.main("Ignoring unsupported snapshot restore env %s" % k, "WARN", "restore_context._apply_restore_env")
        elif v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = str(v)
    fmt.main("Applied snapshot restore context runtime env", target="restore_context._apply_restore_env")
    fmt.main("Refreshed snapshot restore runtime config", target="restore_context.refresh_snapshot_restore_config")


def write_restore_context(control, fmt):
    """restore_context.write_snapshot_restore_context: every allow-listed name, sorted, null when unset, atomically."""
    path = sentinel_path(control, "restore-context.json")
    tmp = sentinel_path(control, ".restore-context.json.tmp")
    env = {n: os.environ.get(n) for n in sorted(RESTORE_ENV_NAMES)}
    with open(tmp, "w") as f:
        f.write(json.dumps({"env": env}, sort_keys=True, separators=(",", ":")) + "\n")
    os.replace(tmp, path)
    fmt.main("Captured snapshot restore context at %s" % path, target="restore_context.write_snapshot_restore_context")


def cleanup_sentinels(control):
    # dynamo#12704: keep restore-complete for independent readers; remove the other two.
    for name in ("ready-for-snapshot", "snapshot-complete"):
        try:
            os.unlink(sentinel_path(control, name))
        except OSError:
            pass


def simulated_teardown():
    """What a real engine's teardown does after capture: touches freed CUDA state and crashes."""
    write_line("%s  INFO dynamo_standin: Shutting down engine cores and destroying the CUDA context" % stamp())
    signal.signal(signal.SIGSEGV, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGSEGV)


def leave_after_capture(args, fmt, ranks):
    if args.exit_mode == "systemexit":
        atexit.register(simulated_teardown)
        fmt.main("%s snapshot captured; raising SystemExit(0)" % BACKEND_NAMES.get(args.log_format, "vLLM"), target="snapshot.prepare_snapshot_engine")
        raise SystemExit(0)
    # What each backend's snapshot.py logs before os._exit(0) (SGLang logs nothing: it raises SystemExit(0)).
    if args.log_format == "trtllm":
        fmt.main("Initial TRT-LLM snapshot captured successfully; exiting without destroying the engine", target="snapshot.snapshot_before_endpoint")
    elif args.log_format == "vllm":
        fmt.main("vLLM snapshot captured successfully", target="snapshot.prepare_snapshot_engine")
    os._exit(0)


def call_ok(rank, what, **req):
    r = rank.call(**req)
    if not r.get("ok"):
        raise RuntimeError("%s of rank DP%d failed: %s" % (what, rank.dp, r.get("error")))
    return r


def gather(ranks, what, **req):
    """One request to every rank at once, like asyncio.gather over the DP ranks."""
    errors = []

    def one(r):
        try:
            call_ok(r, what, **req)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(str(e))

    threads = [threading.Thread(target=one, args=(r,)) for r in ranks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError("; ".join(errors))


def warm_up(args, fmt, ranks):
    """The warm-up of ai-dynamo/dynamo vllm/snapshot.py and sglang/snapshot.py: logged once by the main
    process around one generation per local DP rank (--warmup-log per-rank: each rank logs its own)."""
    live = [r for r in ranks if r.dp not in args.skip_warmup_rank]
    w = BACKEND_NAMES.get(args.log_format, "vLLM")
    main_log = args.warmup_log == "main"
    if main_log:
        fmt.main("%s snapshot warmup starting" % w, target="snapshot._warmup_engine" if w != "SGLang" else "snapshot.warmup_engine")
    gather(live, "Warm-up", op="warmup")
    if main_log:
        fmt.main("%s snapshot warmup complete" % w, target="snapshot._warmup_engine" if w != "SGLang" else "snapshot.warmup_engine")


class PauseController(object):
    """The pause controller a backend hands to EngineSnapshotController: every DP rank sleeps and wakes."""

    def __init__(self, ranks):
        self.ranks, self.is_paused = ranks, False

    def pause(self, *_args):
        gather(self.ranks, "Pause", op="pause")
        self.is_paused = True

    def resume(self):
        gather(self.ranks, "Resume", op="resume")

    def mark_resumed(self):
        self.is_paused = False


def standby(control, fmt):
    """restore_context.maybe_run_restore_standby_mode: capture the restore env, then sleep forever."""
    write_restore_context(control, fmt)
    sys.stdout.flush()
    os.execvp("sleep", ["sleep", "infinity"])


def run_lifecycle(control, fmt, pause):
    """SnapshotConfig.run_lifecycle of ai-dynamo 1.6.1: True when restored (still paused), False after capture."""
    fmt.main("Pausing model", target="lifecycle.run_lifecycle")
    pause.pause(None)
    try:
        # Temp file then rename: a watcher that sees the sentinel also sees its content.
        ready, tmp = sentinel_path(control, "ready-for-snapshot"), sentinel_path(control, ".ready-for-snapshot.tmp")
        with open(tmp, "w") as f:
            f.write("ready")
        os.rename(tmp, ready)
        fmt.main("Ready for snapshot. Polling for sentinel in %s (snapshot-complete or restore-complete)" % control, target="lifecycle.run_lifecycle")
        which = wait_for_sentinel(control)
    finally:
        cleanup_sentinels(control)
    if which == "restore":
        fmt.main("Restore sentinel detected; returning application-paused", target="lifecycle.run_lifecycle")
        os.environ.pop("HF_HUB_OFFLINE", None)
        return True
    fmt.main("Snapshot completion sentinel detected", target="lifecycle.run_lifecycle")
    return False


def snapshot_control_dir():
    return os.environ.get("DYN_SNAPSHOT_CONTROL_DIR") or os.environ.get("SNAPSHOT_CONTROL_DIR")


def standby_requested():
    return any(os.environ.get(n) == "1" for n in ("SNAPSHOT_RESTORE_STANDBY", "DYN_SNAPSHOT_RESTORE_STANDBY", "DYN_SNAPSHOT_RESTORE_PLACEHOLDER"))


# ---------------------------------------------------------------- HTTP


def rank_for(ranks, prompt):
    """Same prompt → same rank, so the prefix cache (cached_tokens) behaves like a real one."""
    return ranks[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % len(ranks)]


def log_reference(args, fmt, ranks):
    """The answer a restored engine must give again, logged before capture (test/gpu/smoke.py reads it;
    test/gpu/gpu_engine.py logs the same line). Not cached: the first request after restore stays uncached."""
    prompt = args.reference_prompt
    rank = rank_for(ranks, prompt)
    r = rank.call(op="generate", id="reference-before-capture", prompt=prompt, max_tokens=args.reference_max_tokens, cache=False)
    fmt.main("Reference answer before capture: %s" % json.dumps(
        {"prompt": prompt, "max_tokens": args.reference_max_tokens, "rank": rank.dp, "token_ids": r["token_ids"], "text": r["text"]}))


def serve(args, fmt, ranks):
    counter = {"n": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def reply(self, code, body):
            data = json.dumps(body).encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def stream(self, rid, model, text, usage, include_usage):
            # Server-sent events, one token per event, like an OpenAI-compatible server; the
            # connection closes at the end so no chunked encoding is needed.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            created = int(time.time())
            toks = text.split(" ")[1:]
            for i, tok in enumerate(toks):
                done = i == len(toks) - 1
                ev = {"id": rid, "object": "text_completion", "created": created, "model": model,
                      "choices": [{"index": 0, "text": " " + tok, "finish_reason": "length" if done else None, "logprobs": None}]}
                self.wfile.write(("data: %s\n\n" % json.dumps(ev)).encode("utf-8"))
                self.wfile.flush()
                time.sleep(0.002)
            if include_usage:
                ev = {"id": rid, "object": "text_completion", "created": created, "model": model, "choices": [], "usage": usage}
                self.wfile.write(("data: %s\n\n" % json.dumps(ev)).encode("utf-8"))
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def do_GET(self):
            if self.path == "/health":
                self.reply(200, {"status": "healthy"})
            elif self.path == "/v1/models":
                self.reply(200, {"object": "list", "data": [{"id": args.model, "object": "model"}]})
            else:
                self.reply(404, {"error": {"message": "not found"}})

        def do_POST(self):
            if self.path != "/v1/completions":
                return self.reply(404, {"error": {"message": "not found"}})
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                prompt = body["prompt"]
                if isinstance(prompt, list) and prompt:
                    prompt = prompt[0]
                max_tokens = int(body.get("max_tokens", 16))
                if not isinstance(prompt, str) or not 0 < max_tokens <= 4096:
                    raise ValueError("prompt must be a string and max_tokens 1..4096")
            # OverflowError: max_tokens 1e999 (JSON Infinity); a bad request is a 400, never a dropped connection.
            except (ValueError, KeyError, TypeError, OverflowError) as e:
                return self.reply(400, {"error": {"message": str(e)}})
            with lock:
                counter["n"] += 1
                n = counter["n"]
            rid = "cmpl-%d" % n
            rank = rank_for(ranks, prompt)
            r = rank.call(op="generate", id=rid, prompt=prompt, max_tokens=max_tokens)
            usage = {"prompt_tokens": r["prompt_tokens"], "completion_tokens": r["completion_tokens"],
                     "total_tokens": r["prompt_tokens"] + r["completion_tokens"],
                     "prompt_tokens_details": {"cached_tokens": r["cached"]}}
            if body.get("stream"):
                return self.stream(rid, body.get("model") or args.model, r["text"], usage,
                                   bool((body.get("stream_options") or {}).get("include_usage")))
            choice = {"index": 0, "text": r["text"], "finish_reason": "length", "logprobs": None}
            if r.get("token_ids") is not None:
                choice["token_ids"] = r["token_ids"]  # what vLLM returns with return_token_ids; the GPU proof compares them
            self.reply(200, {
                "id": rid, "object": "text_completion", "created": int(time.time()), "model": body.get("model") or args.model,
                "choices": [choice],
                "usage": usage,
            })

    port = args.port or int(os.environ.get("DYN_SYSTEM_PORT") or 0)
    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    url = "http://127.0.0.1:%d" % httpd.server_address[1]
    fmt.main("Serving on %s" % url)
    ep = os.environ.get("DSW_ENDPOINT_FILE")
    if ep:
        tmp = ep + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"url": url, "pid": os.getpid()}, f)
        os.rename(tmp, ep)
    httpd.serve_forever(poll_interval=0.2)


# ---------------------------------------------------------------- main


def add_engine_args(ap):
    """Flags shared with test/gpu/gpu_engine.py and media/engine/real_lifecycle_engine.py."""
    ap.add_argument("--dp", type=int, default=2, help="data-parallel ranks (child processes)")
    ap.add_argument("--model", default="standin/tiny-model")
    ap.add_argument("--log-format", choices=("vllm", "sglang", "trtllm"), default="vllm")
    ap.add_argument("--load-seconds", type=float, default=0.2)
    ap.add_argument("--warmup-seconds", type=float, default=0.3)
    ap.add_argument("--warmup-log", choices=("main", "per-rank"), default="main",
                    help="main: the main process logs the warm-up once for every DP rank (upstream); per-rank: each rank logs its own")
    ap.add_argument("--skip-warmup-rank", type=int, action="append", default=[], help="skip warm-up on this DP rank (repeatable)")
    ap.add_argument("--memory-mb", type=int, default=16, help="'weights' allocated per rank")
    ap.add_argument("--exit-mode", choices=("osexit", "systemexit"), default="osexit")
    ap.add_argument("--port", type=int, default=0, help="HTTP port after restore (0: any free port)")
    ap.add_argument("--no-color", action="store_true")
    ap.add_argument("--reference-prompt", default="The capital of France is",
                    help="answered before capture and logged (the workflow's default smoke prompt), like test/gpu/gpu_engine.py")
    ap.add_argument("--reference-max-tokens", type=int, default=16)


def build_engine(args, fmt):
    """Ranks started, warmed up, reference answer logged: what a backend has before its snapshot hook."""
    t0 = time.monotonic()
    ranks = spawn_ranks(args, fmt)
    fmt.main("Engine with %d data-parallel rank(s) started: pids %s" % (args.dp, ",".join(str(r.pid) for r in ranks)))
    warm_up(args, fmt, ranks)
    fmt.main("Engine built and warmed up in %.2fs" % (time.monotonic() - t0))
    log_reference(args, fmt, ranks)
    gc.collect()
    return ranks


def run_engine(args, fmt):
    """The whole stand-in: standby, or snapshot mode (capture or restore), or a plain server."""
    control = snapshot_control_dir()
    if standby_requested() and control:
        standby(control, fmt)
    if control:
        configure_capture_env(fmt)
        fmt.main("Snapshot mode enabled (watcher-driven signals)", target="snapshot.prepare_snapshot_engine")
    try:
        ranks = build_engine(args, fmt)
        if not control:
            return serve(args, fmt, ranks)
        pause = PauseController(ranks)
        if not run_lifecycle(control, fmt, pause):
            leave_after_capture(args, fmt, ranks)
            return None
        apply_restore_context(control, fmt)
        # elect_and_wake without a failover lock: resume, mark resumed (no log line of its own).
        pause.resume()
        pause.mark_resumed()
    except RuntimeError as e:
        fmt.main("Engine failed: %s" % e, "ERROR")
        sys.stdout.flush()
        os._exit(1)
    return serve(args, fmt, ranks)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_engine_args(ap)
    args = ap.parse_args()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the simulated SIGSEGV must not leave core files around
    return run_engine(args, Fmt(args.log_format, color=not args.no_color and not os.environ.get("NO_COLOR")))


if __name__ == "__main__":
    main()
