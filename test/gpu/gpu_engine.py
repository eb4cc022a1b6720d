"""GPU stand-in engine: PyTorch on CUDA, honouring the Dynamo snapshot contract like the CPU stand-in.

The GPU variant of media/engine/standin_engine.py for the real-GPU proof (issue #7). The lifecycle
(sentinels, per-rank log prefixes, the exact lifecycle strings, restore context, HTTP
/v1/completions after restore, os._exit(0) after snapshot-complete) is the CPU stand-in's own code,
imported from media/engine/standin_engine.py, so the same agent and workflow drive both. What
differs is inside each data-parallel rank (a child process, like vLLM's EngineCore):

  * a small decoder-only transformer built in code: random bf16 weights from a fixed seed on the
    GPU (nothing downloaded), sized by --memory-mb (default 4096 MiB), a static KV cache;
  * warm-up runs the decode step eagerly, then captures it as one CUDA graph; every token after
    that (warm-up, the reference answer, and every request after restore) is a graph replay, so a
    restored process proves that its CUDA graph, weights and KV cache survived;
  * greedy decoding over a byte-level tokenizer; a generated token is written " t<id>", so the
    completion text names its token ids and equal texts mean equal tokens;
  * before pausing, rank 0 answers --reference-prompt and logs
    `Reference answer before capture: {json}` (token ids and text): the smoke test compares every
    answer after restore with it;
  * a real prefix cache: a request whose prompt starts like the previous one reuses that KV
    (usage.prompt_tokens_details.cached_tokens); pausing frees it, so the first request after a
    restore reports cached_tokens 0;
  * `Weights checksum <hex>` (an exact integer sum over the bf16 bits) is logged at load and again
    when resuming after restore.

Torch is imported only inside the rank processes: `--help` and `--check` work without it (the
syntax check in the tests runs where no torch exists). `--device cpu` runs the same model on the
CPU (no CUDA graph) for tests on machines without a GPU.

NVML is kept out of the rank: torch's device_count() opens libnvidia-ml and never shuts it down,
which leaves /dev/nvidia* descriptors that CRIU cannot dump (worker-transport.md §3).
"""
import argparse
import gc
import math
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN_DIRS = [os.environ.get("DSW_STANDIN_DIR", ""), os.path.join(HERE, "..", "..", "media", "engine")]


def load_standin():
    sys.dont_write_bytecode = True  # no __pycache__ beside the shipped sources
    for d in STANDIN_DIRS:
        if d and os.path.isfile(os.path.join(d, "standin_engine.py")):
            sys.path.insert(0, os.path.abspath(d))
            import standin_engine  # noqa: E402 - located at run time
            return standin_engine
    raise SystemExit("gpu_engine: media/engine/standin_engine.py not found (looked in %s; set DSW_STANDIN_DIR)"
                     % ", ".join(d for d in STANDIN_DIRS if d))


# ---------------------------------------------------------------- the model (rank side, torch imported lazily)


def open_device_files():
    out = []
    try:
        for fd in os.listdir("/proc/self/fd"):
            try:
                target = os.readlink("/proc/self/fd/%s" % fd)
            except OSError:
                continue
            if target.startswith("/dev/nvidia"):
                out.append(target)
    except OSError:
        pass
    return sorted(set(out))


def nvml_mapped():
    try:
        with open("/proc/self/maps") as f:
            return "libnvidia-ml" in f.read()
    except OSError:
        return False


def release_nvml():
    """If something initialised NVML anyway, shut it down (it is refcounted) so its descriptors close."""
    if not nvml_mapped():
        return "not loaded"
    import ctypes
    try:
        nv = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return "loaded, not reachable"
    n = 0
    while n < 64 and nv.nvmlShutdown() == 0:
        n += 1
    return "shut down (%d init(s))" % n


def keep_nvml_out(torch):
    """torch.cuda.device_count() asks NVML first and leaves it initialised; ask the CUDA runtime instead."""
    cuda = torch.cuda
    for name in ("_device_count_nvml", "_raw_device_count_nvml"):
        if hasattr(cuda, name):
            setattr(cuda, name, lambda *a, **k: -1)
    os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "0"


class TinyLM(object):
    """Decoder-only transformer, one token per step, static shapes (CUDA-graph friendly)."""

    def __init__(self, torch, device, hidden, layers, vocab, max_seq, seed, dtype):
        self.torch, self.device, self.dtype = torch, device, dtype
        self.d, self.L, self.V, self.T = hidden, layers, vocab, max_seq
        self.hd = 64 if hidden < 1024 else 128
        self.H = hidden // self.hd
        g = torch.Generator(device=device)
        g.manual_seed(seed)

        def w(rows, cols, scale=None):
            scale = 1.0 / math.sqrt(rows) if scale is None else scale
            t = torch.empty(rows, cols, device=device, dtype=dtype)
            # Filled in row blocks so the fp32 temporary stays small next to the weight itself.
            step = max(1, (64 << 20) // (cols * 4))
            for r in range(0, rows, step):
                n = min(step, rows - r)
                t[r:r + n].copy_(torch.randn(n, cols, generator=g, device=device, dtype=torch.float32) * scale)
            return t

        with torch.no_grad():
            # Unit-scale token and position embeddings: the answer depends on both, so it varies token by token.
            self.emb = w(vocab, hidden, 1.0)
            self.pemb = w(max_seq, hidden, 1.0)
            self.head = w(hidden, vocab)  # untied: a tied head keeps predicting the input token
            self.wqkv = [w(hidden, 3 * hidden) for _ in range(layers)]
            self.wo = [w(hidden, hidden) for _ in range(layers)]
            self.w1 = [w(hidden, 4 * hidden) for _ in range(layers)]
            self.w2 = [w(4 * hidden, hidden) for _ in range(layers)]
            self.kc = torch.zeros(layers, max_seq, self.H, self.hd, device=device, dtype=dtype)
            self.vc = torch.zeros(layers, max_seq, self.H, self.hd, device=device, dtype=dtype)
            self.positions = torch.arange(max_seq, device=device)
            self.tok = torch.zeros(1, dtype=torch.long, device=device)
            self.pos = torch.zeros(1, dtype=torch.long, device=device)
        self.out = None
        self.graph = None
        self.cached_ids = []

    @staticmethod
    def plan(memory_mb, hidden, vocab, max_seq, layers=None):
        """Layers that fit the memory budget (bf16: 12·d² per layer, V·d embedding, KV cache)."""
        per_layer = 12 * hidden * hidden * 2 + 2 * max_seq * hidden * 2
        fixed = 2 * vocab * hidden * 2 + max_seq * hidden * 2
        if layers:
            return layers
        return max(1, int((memory_mb * (1 << 20) - fixed) // per_layer))

    def weight_bytes(self):
        n = self.emb.numel() + self.pemb.numel() + self.head.numel() + sum(t.numel() for ts in (self.wqkv, self.wo, self.w1, self.w2) for t in ts)
        return n * self.emb.element_size() + self.kc.numel() * 2 * self.kc.element_size()

    def checksum(self):
        """Exact: an integer sum over the raw bf16 bits of a strided slice of every weight."""
        torch = self.torch
        total = 0
        for t in [self.emb, self.pemb, self.head] + self.wqkv + self.wo + self.w1 + self.w2:
            flat = t.reshape(-1)
            total += int(flat[:: max(1, flat.numel() // 4096)].view(torch.int16).to(torch.int64).sum().item())
        return "%08x" % (total & 0xFFFFFFFF)

    def _rms(self, x):
        torch = self.torch
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(self.dtype)

    def step(self, tok, pos):
        torch = self.torch
        x = self.emb.index_select(0, tok) + self.pemb.index_select(0, pos)  # [1, d]
        masked = self.positions > pos  # [T]
        scale = 1.0 / math.sqrt(self.hd)
        for l in range(self.L):
            h = self._rms(x)
            q, k, v = (h @ self.wqkv[l]).view(3, self.H, self.hd).unbind(0)
            self.kc[l].index_copy_(0, pos, k.unsqueeze(0))
            self.vc[l].index_copy_(0, pos, v.unsqueeze(0))
            s = torch.einsum("hd,thd->ht", q.float(), self.kc[l].float()) * scale
            a = torch.softmax(s.masked_fill(masked, float("-inf")), dim=-1).to(self.dtype)
            o = torch.einsum("ht,thd->hd", a, self.vc[l]).reshape(1, self.d)
            x = x + o @ self.wo[l]
            x = x + torch.nn.functional.gelu(self._rms(x) @ self.w1[l]) @ self.w2[l]
        logits = (self._rms(x) @ self.head).float()
        return logits.argmax(dim=-1)

    def capture_graph(self):
        """Eager warm-up on a side stream, then one CUDA graph of the decode step (torch's recipe)."""
        torch = self.torch
        with torch.no_grad():
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    self.out = self.step(self.tok, self.pos)
            torch.cuda.current_stream().wait_stream(s)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                self.out = self.step(self.tok, self.pos)
            torch.cuda.synchronize()
        self.graph = graph

    def _one(self, tok, pos):
        self.tok.fill_(tok)
        self.pos.fill_(pos)
        if self.graph is not None:
            self.graph.replay()
        else:
            with self.torch.no_grad():
                self.out = self.step(self.tok, self.pos)
        return int(self.out.item())

    def generate(self, prompt_ids, max_tokens):
        # The stand-in's HTTP layer expects an answer for every valid request: fit it into the context
        # (keep the prompt's end, shorten the answer) rather than fail.
        prompt_ids = list(prompt_ids[-(self.T - 1):]) or [0]
        max_tokens = max(1, min(int(max_tokens), self.T - len(prompt_ids)))
        cached = 0
        for a, b in zip(self.cached_ids, prompt_ids):
            if a != b:
                break
            cached += 1
        cached = min(cached, len(prompt_ids) - 1)  # at least one token must run to get logits
        nxt = None
        for p in range(cached, len(prompt_ids)):
            nxt = self._one(prompt_ids[p], p)
        out = [nxt]
        while len(out) < max_tokens:
            out.append(self._one(out[-1], len(prompt_ids) + len(out) - 1))
        # The KV cache now holds every position but the last generated token's.
        self.cached_ids = list(prompt_ids) + out[:-1]
        return out, cached

    def reset_prefix_cache(self):
        self.cached_ids = []


def encode(prompt):
    return list(prompt.encode("utf-8"))


def decode(ids):
    return "".join(" t%d" % i for i in ids)


# ---------------------------------------------------------------- rank process


class GpuRank(object):
    def __init__(self, dp, args, fmt):
        self.dp, self.args, self.fmt = dp, args, fmt
        self.torch = None
        self.model = None
        self.load_checksum = None

    def log(self, msg):
        self.fmt.rank(self.dp, msg)

    def mem(self):
        torch = self.torch
        if self.args.device != "cuda":
            return "device cpu"
        return "GPU memory: allocated %d MiB, reserved %d MiB" % (torch.cuda.memory_allocated() >> 20, torch.cuda.memory_reserved() >> 20)

    def sync(self):
        if self.args.device == "cuda":
            self.torch.cuda.synchronize()

    def load(self):
        a = self.args
        t0 = time.monotonic()
        self.log("Loading model %s (rank %d of %d)" % (a.model, self.dp, a.dp))
        import torch  # noqa: E402 - only in the rank, after fork
        self.torch = torch
        if a.device == "cuda":
            keep_nvml_out(torch)
            if not torch.cuda.is_available():
                raise RuntimeError("torch %s sees no CUDA device" % torch.__version__)
            n = torch.cuda.device_count()
            torch.cuda.set_device(self.dp % n)
            dev = torch.device("cuda", self.dp % n)
            self.log("CUDA device %d of %d: %s (torch %s, CUDA %s)" % (self.dp % n, n, torch.cuda.get_device_name(dev), torch.__version__, torch.version.cuda))
        else:
            dev = torch.device("cpu")
        layers = TinyLM.plan(a.memory_mb, a.hidden, a.vocab, a.max_seq, a.layers)
        self.model = TinyLM(torch, dev, a.hidden, layers, a.vocab, a.max_seq, a.seed, torch.bfloat16)
        self.sync()
        self.load_checksum = self.model.checksum()
        rest = a.load_seconds - (time.monotonic() - t0)
        if rest > 0:
            time.sleep(rest)
        self.log("Model loaded: %d MiB of weights (%d layers, hidden %d, vocab %d, seed %d) in %.2fs"
                 % (self.model.weight_bytes() >> 20, layers, a.hidden, a.vocab, a.seed, time.monotonic() - t0))
        self.log("Weights checksum %s" % self.load_checksum)
        self.log(self.mem())

    def handle(self, req):
        op = req["op"]
        a = self.args
        if op == "warmup":
            w = {"sglang": "SGLang", "trtllm": "TRT-LLM"}.get(a.log_format, "vLLM")
            # Upstream logs the warm-up once from the main process (the stand-in's warm_up does);
            # the rank says what it ran, and logs markers of its own only with --warmup-log per-rank.
            per_rank = a.warmup_log == "per-rank"
            self.log("%s snapshot warmup starting" % w if per_rank else "Warm-up generation starting (eager decode step)")
            t0 = time.monotonic()
            self.model._one(1, 0)  # eager: cuBLAS handles, kernels loaded
            if a.device == "cuda" and not a.no_cuda_graph:
                t1 = time.monotonic()
                self.model.capture_graph()
                self.log("Captured CUDA graph of the decode step in %.0f ms" % ((time.monotonic() - t1) * 1000))
            toks, _ = self.model.generate([1, 2, 3], 2)
            self.model.reset_prefix_cache()
            self.sync()
            rest = a.warmup_seconds - (time.monotonic() - t0)
            if rest > 0:
                time.sleep(rest)
            self.log("%s snapshot warmup complete (%d tokens)" % (w, len(toks)) if per_rank else "Warm-up generation done (%d tokens)" % len(toks))
            self.log(self.mem())
            return {"ok": True}
        if op == "pause":
            self.sync()
            self.model.reset_prefix_cache()
            gc.collect()
            if a.device == "cuda":
                self.torch.cuda.empty_cache()
            self.log("Sleeping engine (level 1); KV cache freed")
            nvml = release_nvml() if a.device == "cuda" else "not used"
            self.log("%s; CUDA device files open: %s; NVML: %s"
                     % (self.mem(), ", ".join(open_device_files()) or "none", nvml))
            return {"ok": True}
        if op == "resume":
            self.sync()
            cs = self.model.checksum()
            self.log("Waking up engine; weights checksum %s (%s load)" % (cs, "matches" if cs == self.load_checksum else "DIFFERS FROM %s at" % self.load_checksum))
            self.log(self.mem())
            return {"ok": True, "checksum": cs, "loadChecksum": self.load_checksum}
        if op == "generate":
            ids = encode(req["prompt"])
            t0 = time.monotonic()
            out, cached = self.model.generate(ids, int(req["max_tokens"]))
            ms = (time.monotonic() - t0) * 1000
            self.log("Finished request %s: prompt_tokens=%d cached_tokens=%d completion_tokens=%d in %.1f ms"
                     % (req["id"], len(ids), cached, len(out), ms))
            return {"ok": True, "text": decode(out), "token_ids": out, "prompt_tokens": len(ids), "cached": cached,
                    "completion_tokens": len(out)}
        return {"ok": False, "error": "unknown op %s" % op}


def gpu_rank_main(dp, args, fmt, cmd_r, resp_w):
    """Same pipe protocol as the CPU stand-in's rank_main (JSON lines in, JSON lines out)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    rank = GpuRank(dp, args, fmt)
    load_error = None
    try:
        rank.load()
    except Exception as e:  # noqa: BLE001 - reported to the main process on its first request
        load_error = "%s: %s" % (type(e).__name__, e)
        fmt.rank(dp, "Model load failed: %s" % load_error)

    def handle(req):
        if load_error:
            return {"ok": False, "error": load_error}
        try:
            return rank.handle(req)
        except Exception as e:  # noqa: BLE001
            error = "%s: %s" % (type(e).__name__, e)
            fmt.rank(dp, "Request %s failed: %s" % (req.get("op"), error))
            return {"ok": False, "error": error}

    load_standin().serve_rank_pipe(cmd_r, resp_w, handle)


# ---------------------------------------------------------------- main process (no torch here)


def check(args):
    """What this machine offers the engine; exit 0 when --device can run."""
    ok = True
    print("python: %s (%s)" % (sys.version.split()[0], sys.executable))
    try:
        load_standin()
        print("stand-in lifecycle: media/engine/standin_engine.py found")
    except SystemExit as e:
        print("stand-in lifecycle: MISSING: %s" % e)
        ok = False
    try:
        import torch  # noqa: E402
    except Exception as e:  # noqa: BLE001
        print("torch: MISSING (%s: %s)" % (type(e).__name__, e))
        return 1
    print("torch: %s (CUDA build %s)" % (torch.__version__, torch.version.cuda))
    if args.device == "cuda":
        keep_nvml_out(torch)
        if torch.cuda.is_available():
            n = torch.cuda.device_count()
            names = [torch.cuda.get_device_name(i) for i in range(n)]
            free, total = torch.cuda.mem_get_info(0)
            print("cuda: %d device(s): %s; device 0: %d MiB free of %d MiB" % (n, ", ".join(names), free >> 20, total >> 20))
            if hasattr(torch.cuda, "CUDAGraph"):
                print("cuda graphs: available")
            if free >> 20 < args.memory_mb * 2:
                print("cuda: NOT ENOUGH FREE MEMORY for --memory-mb %d (needs about %d MiB)" % (args.memory_mb, args.memory_mb * 2))
                ok = False
        else:
            print("cuda: NOT AVAILABLE to torch %s" % torch.__version__)
            ok = False
    return 0 if ok else 1


def parse_args(argv):
    ap = argparse.ArgumentParser(description="GPU stand-in engine (PyTorch on CUDA) honouring the Dynamo snapshot contract.")
    # The CPU stand-in's flags, same names and meaning (its defaults differ where a GPU run needs it).
    load_standin().add_engine_args(ap)
    ap.set_defaults(dp=1, model="standin/gpu-tiny-lm", load_seconds=0.0, warmup_seconds=0.0, memory_mb=4096)
    # GPU-specific.
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=0, help="layer count (0: as many as --memory-mb allows)")
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--max-seq", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--no-cuda-graph", action="store_true")
    ap.add_argument("--check", action="store_true", help="report torch/CUDA/memory and exit (0: usable)")
    args = ap.parse_args(argv)
    if args.vocab < 256:
        ap.error("--vocab must be at least 256 (byte-level tokenizer)")
    if args.hidden % 64:
        ap.error("--hidden must be a multiple of 64")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.check:
        return check(args)
    base = load_standin()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # The stand-in's whole lifecycle (standby, capture env, warm-up once from the main process, the
    # sentinel loop, capture exit, restore context, resume, serve); only the ranks are GPU ranks.
    base.rank_main = gpu_rank_main  # spawn_ranks forks and runs rank_main: the GPU rank instead of the CPU one
    return base.run_engine(args, base.Fmt(args.log_format, color=not args.no_color and not os.environ.get("NO_COLOR")))


if __name__ == "__main__":
    sys.exit(main())
