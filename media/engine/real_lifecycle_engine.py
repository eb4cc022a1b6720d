"""Real-lifecycle engine: the stand-in's CPU engine inside the real ai-dynamo snapshot lifecycle.

What a snapshot-enabled backend does around its engine, done with the installed `dynamo` package
(pinned in scripts/python/requirements-nodeps.txt) instead of our imitation of it:

  * `restore_context.maybe_run_restore_standby_mode()` first, before anything else is imported, as
    the backends' `__main__.py` do (standby: write restore-context.json, exec `sleep infinity`);
  * `dynamo.runtime.logging.configure_dynamo_logging()`, so every main-process line goes through
    Dynamo's Rust logger (`<RFC3339 UTC>  INFO <target>: <message>`);
  * `SnapshotConfig.from_env()`, `configure_snapshot_capture_env()`, then the engine is built and
    warmed up (one generation per DP rank, logged once by the main process, like ai-dynamo/dynamo
    vllm/snapshot.py and sglang/snapshot.py), then
    `EngineSnapshotController(...).wait_for_restore()` — the real sentinel loop;
  * after capture: the backend's exit (vLLM and TRT-LLM log and `os._exit(0)`; SGLang raises
    `SystemExit(0)`, as the pinned sglang/snapshot.py does);
  * after restore: `refresh_snapshot_restore_config(...)` with `parse_snapshot_restore_runtime_config`
    (the real restore-context reader), then `elect_and_wake(...)` where the lifecycle left the engine
    paused (ai-dynamo 1.6), then serving.

The "model" is the stand-in's: DP ranks as forked CPU processes holding their weights, a deterministic
decoder and a prefix cache (media/engine/standin_engine.py). Same flags as the stand-in.
If the package cannot be imported, the engine says exactly what is missing and exits 3.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MISSING_EXIT = 3


def missing(what, err):
    sys.stderr.write(
        "real-lifecycle engine: %s is not importable with %s (%s: %s). Install the pinned ai-dynamo package "
        "(bash scripts/python/venv.sh creates .venv with it) or run this engine with a Python that has it.\n"
        % (what, sys.executable, type(err).__name__, err))
    sys.stderr.flush()
    return MISSING_EXIT


def main():
    # As dynamo.{vllm,sglang,trtllm}.__main__ do: before any engine import, so a standby never builds one.
    try:
        from dynamo.common.snapshot.restore_context import maybe_run_restore_standby_mode
    except ImportError as e:
        return missing("dynamo.common.snapshot (ai-dynamo)", e)
    maybe_run_restore_standby_mode()

    import argparse
    import asyncio
    import logging
    import resource

    sys.dont_write_bytecode = True  # no __pycache__ beside the shipped sources
    sys.path.insert(0, HERE)
    import standin_engine as engine  # noqa: E402 - the CPU engine this lifecycle wraps

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    engine.add_engine_args(ap)
    args = ap.parse_args()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    logging_note = configure_logging(logging)
    logger = logging.getLogger("dynamo.real_lifecycle_engine")

    class DynamoFmt(engine.Fmt):
        """Main-process lines through Python logging (and so Dynamo's logger); rank lines as the stand-in prints them."""

        def main(self, msg, level="INFO", target=None):
            logger.log({"WARN": logging.WARNING, "WARNING": logging.WARNING, "ERROR": logging.ERROR}.get(level, logging.INFO), msg)

    fmt = DynamoFmt(args.log_format, color=not args.no_color and not os.environ.get("NO_COLOR"))
    if logging_note:
        logger.warning(logging_note)
    return asyncio.run(worker(args, fmt, engine, logger))


def configure_logging(logging):
    """Dynamo's own logging when it imports (it needs pydantic, see scripts/python/requirements.txt)."""
    try:
        from dynamo.runtime.logging import configure_dynamo_logging
    except ImportError as e:
        logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(asctime)s  %(levelname)s %(module)s.%(funcName)s: %(message)s")
        return "dynamo.runtime.logging is not importable (%s: %s): logging through Python's own handler" % (type(e).__name__, e)
    configure_dynamo_logging()
    return None


class PauseController(object):
    """The async pause controller a backend hands to EngineSnapshotController (every DP rank sleeps and wakes)."""

    def __init__(self, engine, ranks):
        self.sync = engine.PauseController(ranks)

    @property
    def is_paused(self):
        return self.sync.is_paused

    async def pause(self, *_args):
        import asyncio
        await asyncio.get_running_loop().run_in_executor(None, self.sync.pause)

    async def resume(self, *_args):
        import asyncio
        await asyncio.get_running_loop().run_in_executor(None, self.sync.resume)

    def mark_resumed(self):
        self.sync.mark_resumed()


async def worker(args, fmt, engine, logger):
    import types
    from dynamo.common.snapshot.lifecycle import EngineSnapshotController, SnapshotConfig, configure_snapshot_capture_env

    snapshot_config = SnapshotConfig.from_env()
    if snapshot_config is not None:
        configure_snapshot_capture_env()
        logger.info("Snapshot mode enabled (watcher-driven signals)")
    ranks = engine.build_engine(args, fmt)
    if snapshot_config is None:
        return engine.serve(args, fmt, ranks)

    pause = PauseController(engine, ranks)
    controller = EngineSnapshotController(engine=ranks, pause_controller=pause, snapshot_config=snapshot_config, pause_args=(None,))
    if not await controller.wait_for_restore():
        if args.log_format == "sglang" and args.exit_mode == "osexit":
            raise SystemExit(0)  # ai-dynamo 1.6.1 sglang/snapshot.py: `raise SystemExit(0)`, no line
        engine.leave_after_capture(args, fmt, ranks)
        return None

    # Restored: reload the restore-time env, then (1.6) wake the engine the lifecycle left paused.
    config = types.SimpleNamespace(namespace=None, discovery_backend=None, request_plane=None, event_plane=None)
    try:
        from dynamo.common.snapshot.restore_context import parse_snapshot_restore_runtime_config, refresh_snapshot_restore_config
    except ImportError as e:
        from dynamo.common.snapshot.restore_context import apply_snapshot_restore_env
        logger.warning("the runtime config parser is not importable (%s: %s): applying the restore env only" % (type(e).__name__, e))
        apply_snapshot_restore_env()
    else:
        # [] rather than our argv: the runtime group then takes everything from the restored env.
        await refresh_snapshot_restore_config(config, lambda: parse_snapshot_restore_runtime_config([]))
    if pause.is_paused:
        from dynamo.common.snapshot.lifecycle import elect_and_wake
        await elect_and_wake(pause, None)
    return engine.serve(args, fmt, ranks)


if __name__ == "__main__":
    sys.exit(main())
