"""Stand-in engine: a CPU-only program that honours the Dynamo snapshot contract.

Used by the tests and the built-in `local-demo` worker profile, so the whole workflow (warm up,
ready-for-snapshot, capture, exit, restore, resume, serve) runs without a GPU. It follows
shared/reference/dynamo-snapshot.md: data-parallel ranks are child processes whose lines carry the
backend's per-rank prefix (§7), lifecycle lines are the exact strings of §6, the control directory
is polled every 0.1 s with snapshot-complete checked before restore-complete (§2), and after
restore it serves OpenAI-style /v1/completions on 127.0.0.1.

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
RESTORE_ENV_NAMES = ("DYN_NAMESPACE", "DYN_COMPONENT", "NATS_SERVER", "ETCD_ENDPOINTS", "DYN_SYSTEM_PORT",
                     "POD_NAME", "POD_NAMESPACE", "DYN_DISCOVERY_BACKEND")


def write_line(text):
    # One write per line: ranks share the log file (O_APPEND), so lines never interleave mid-line.
    data = (text + "\n").encode("utf-8", "replace")
    while data:
        n = os.write(1, data)
        data = data[n:]


def stamp():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Fmt(object):
    """Per-rank line formats of the three backends."""

    def __init__(self, kind, color):
        self.kind, self.color = kind, color

    def main(self, msg, level="INFO"):
        write_line("%s  %s dynamo_standin: %s" % (stamp(), level, msg))

    def rank(self, dp, msg, proc="EngineCore"):
        if self.kind == "sglang":
            write_line("[%s DP%d TP0] %s" % (datetime.now().strftime("%Y-%m-%d %H:%M:%S"), dp, msg))
        elif self.kind == "trtllm":
            write_line("[%s] [TRT-LLM] [RANK %d] [I] %s" % (datetime.now().strftime("%m/%d/%Y-%H:%M:%S"), dp, msg))
        else:
            prefix = "(%s_DP%d pid=%d)" % (proc, dp, os.getpid())
            if self.color:
                prefix = "\x1b[36m%s\x1b[0m" % prefix
            write_line("%s %s" % (prefix, msg))


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
        w = {"sglang": "SGLang", "trtllm": "TRT-LLM"}.get(args.log_format, "vLLM")
        fmt.rank(dp, "%s snapshot warmup starting" % w)
        time.sleep(args.warmup_seconds)
        toks = tokens_for("[1, 2, 3]", 2, "warmup-%d" % dp)
        fmt.rank(dp, "%s snapshot warmup complete (%d tokens)" % (w, len(toks)))
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


def configure_capture_env(fmt):
    forced = (("NCCL_CUMEM_ENABLE", "0", "cuda-checkpoint does not support cuMem-backed NCCL allocations"),
              ("NCCL_IB_DISABLE", "1", "CRIU and cuda-checkpoint cannot restore InfiniBand state"),
              ("TORCH_NCCL_ENABLE_MONITORING", "0", "ProcessGroupNCCL monitoring can terminate restored processes"))
    for name, value, why in forced:
        old = os.environ.get(name)
        if old is not None and old != value:
            fmt.main("Overriding %s=%r with '%s' for snapshot mode because %s" % (name, old, value, why), "WARN")
        os.environ[name] = value
    os.environ["HF_HUB_OFFLINE"] = "1"


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
    ctx_path = sentinel_path(control, "restore-context.json")
    try:
        with open(ctx_path) as f:
            env = (json.load(f) or {}).get("env") or {}
    except (OSError, ValueError):
        env = {}
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = str(v)
    fmt.main("Applied snapshot restore context runtime env")
    fmt.main("Refreshed snapshot restore runtime config")


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
    w = {"trtllm": "TRT-LLM"}.get(args.log_format, "vLLM")
    if args.exit_mode == "systemexit":
        atexit.register(simulated_teardown)
        fmt.main("%s snapshot captured; raising SystemExit(0)" % w)
        raise SystemExit(0)
    fmt.main("Initial %s snapshot captured successfully; exiting without destroying the engine" % w)
    os._exit(0)


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dp", type=int, default=2, help="data-parallel ranks (child processes)")
    ap.add_argument("--model", default="standin/tiny-model")
    ap.add_argument("--log-format", choices=("vllm", "sglang", "trtllm"), default="vllm")
    ap.add_argument("--load-seconds", type=float, default=0.2)
    ap.add_argument("--warmup-seconds", type=float, default=0.3)
    ap.add_argument("--skip-warmup-rank", type=int, action="append", default=[], help="skip warm-up on this DP rank (repeatable)")
    ap.add_argument("--memory-mb", type=int, default=16, help="'weights' allocated per rank")
    ap.add_argument("--exit-mode", choices=("osexit", "systemexit"), default="osexit")
    ap.add_argument("--port", type=int, default=0, help="HTTP port after restore (0: any free port)")
    ap.add_argument("--no-color", action="store_true")
    ap.add_argument("--reference-prompt", default="The capital of France is",
                    help="answered before capture and logged (the workflow's default smoke prompt), like test/gpu/gpu_engine.py")
    ap.add_argument("--reference-max-tokens", type=int, default=16)
    args = ap.parse_args()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the simulated SIGSEGV must not leave core files around
    fmt = Fmt(args.log_format, color=not args.no_color and not os.environ.get("NO_COLOR"))

    control = os.environ.get("DYN_SNAPSHOT_CONTROL_DIR") or os.environ.get("SNAPSHOT_CONTROL_DIR")
    standby = any(os.environ.get(n) == "1" for n in ("DYN_SNAPSHOT_RESTORE_STANDBY", "SNAPSHOT_RESTORE_STANDBY", "DYN_SNAPSHOT_RESTORE_PLACEHOLDER"))
    if standby and control:
        path = sentinel_path(control, "restore-context.json")
        with open(path, "w") as f:
            json.dump({"env": {n: os.environ.get(n) for n in RESTORE_ENV_NAMES}}, f)
        fmt.main("Captured snapshot restore context at %s" % path)
        sys.stdout.flush()
        os.execvp("sleep", ["sleep", "infinity"])

    if control:
        configure_capture_env(fmt)
        fmt.main("Snapshot mode enabled (watcher-driven signals)")
    t0 = time.monotonic()
    ranks = spawn_ranks(args, fmt)
    fmt.main("Engine with %d data-parallel rank(s) started: pids %s" % (args.dp, ",".join(str(r.pid) for r in ranks)))
    for r in ranks:
        if r.dp not in args.skip_warmup_rank:
            r.call(op="warmup")
    fmt.main("Engine built and warmed up in %.2fs" % (time.monotonic() - t0))
    log_reference(args, fmt, ranks)
    gc.collect()
    if not control:
        return serve(args, fmt, ranks)

    fmt.main("Pausing model")
    for r in ranks:
        r.call(op="pause")
    # Temp file then rename: a watcher that sees the sentinel also sees its content.
    ready, tmp = sentinel_path(control, "ready-for-snapshot"), sentinel_path(control, ".ready-for-snapshot.tmp")
    with open(tmp, "w") as f:
        f.write("ready")
    os.rename(tmp, ready)
    fmt.main("Ready for snapshot. Polling for sentinel in %s (snapshot-complete or restore-complete)" % control)
    which = wait_for_sentinel(control)
    if which == "snapshot":
        fmt.main("Snapshot completion sentinel detected")
        cleanup_sentinels(control)
        leave_after_capture(args, fmt, ranks)
        return None
    fmt.main("Restore sentinel detected")
    fmt.main("Resuming model after restore")
    for r in ranks:
        r.call(op="resume")
    os.environ.pop("HF_HUB_OFFLINE", None)
    apply_restore_context(control, fmt)
    cleanup_sentinels(control)
    return serve(args, fmt, ranks)


if __name__ == "__main__":
    main()
