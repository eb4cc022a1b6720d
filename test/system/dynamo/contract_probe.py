"""Reads the contract points of the installed ai-dynamo package (the oracle) and prints them as JSON.

Run with the Python that has the package (.venv/bin/python). Nothing here copies upstream code: it
imports the package, inspects signatures and constants, and reads the log-message literals and exit
forms of its snapshot modules with `ast`, so a test can compare them with what we recorded
(test/fixtures/upstream/ai-dynamo-1.6.1.contract.json) and say what changed when the pin moves.
"""
import ast
import importlib
import importlib.metadata
import inspect
import json
import os
import sys

MODULES = {
    "lifecycle": "dynamo.common.snapshot.lifecycle",
    "restore_context": "dynamo.common.snapshot.restore_context",
}
# Backend files read as text (they import vLLM / SGLang / TRT-LLM at module level).
SOURCES = ["common/snapshot/lifecycle.py", "common/snapshot/restore_context.py", "vllm/snapshot.py", "sglang/snapshot.py",
           "trtllm/snapshot.py", "vllm/__main__.py", "sglang/__main__.py", "trtllm/__main__.py"]
LOG_METHODS = {"info", "warning", "error", "debug", "exception"}


def literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):  # f-string: keep the constant parts, {} for the rest
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def read_source(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    messages, exits, calls = [], [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            if name:
                calls.add(name)
            if isinstance(fn, ast.Attribute) and fn.attr in LOG_METHODS and node.args:
                m = literal(node.args[0])
                if m is not None:
                    messages.append(m)
            if isinstance(fn, ast.Attribute) and fn.attr == "_exit" and getattr(fn.value, "id", None) == "os":
                exits.append("os._exit(%s)" % ", ".join(ast.unparse(a) for a in node.args))
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc
            if isinstance(exc, ast.Call) and getattr(exc.func, "id", None) == "SystemExit":
                exits.append("raise SystemExit(%s)" % ", ".join(ast.unparse(a) for a in exc.args))
    return {"messages": sorted(set(messages)), "exits": sorted(set(exits)),
            "callsRestoreStandby": "maybe_run_restore_standby_mode" in calls}


def signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return None


def capture_env():
    """What configure_snapshot_capture_env sets, from an empty environment."""
    from dynamo.common.snapshot.lifecycle import configure_snapshot_capture_env
    saved = dict(os.environ)
    try:
        os.environ.clear()
        configure_snapshot_capture_env()
        return dict(sorted(os.environ.items()))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main():
    lifecycle = importlib.import_module(MODULES["lifecycle"])
    rc = importlib.import_module(MODULES["restore_context"])
    constants = importlib.import_module("dynamo.common.snapshot.constants")
    root = os.path.dirname(os.path.dirname(os.path.dirname(lifecycle.__file__)))
    out = {
        "versions": {d: importlib.metadata.version(d) for d in ("ai-dynamo", "ai-dynamo-runtime")},
        "constants": {k: (sorted(v) if isinstance(v, (set, frozenset)) else v) for k, v in sorted(vars(constants).items()) if k.isupper()},
        "restoreContextNames": sorted(getattr(rc, "_SUPPORTED_RESTORE_ENV_NAMES", [])),
        "pollIntervalSec": getattr(lifecycle, "SENTINEL_POLL_INTERVAL_SEC", None),
        "captureEnv": capture_env(),
        "signatures": {
            "SnapshotConfig.from_env": signature(lifecycle.SnapshotConfig.from_env),
            "SnapshotConfig.run_lifecycle": signature(lifecycle.SnapshotConfig.run_lifecycle),
            "EngineSnapshotController": signature(lifecycle.EngineSnapshotController),
            "EngineSnapshotController.wait_for_restore": signature(lifecycle.EngineSnapshotController.wait_for_restore),
            "configure_snapshot_capture_env": signature(lifecycle.configure_snapshot_capture_env),
            "is_snapshot_enabled": signature(lifecycle.is_snapshot_enabled),
            "elect_and_wake": signature(getattr(lifecycle, "elect_and_wake", None)),
            "maybe_run_restore_standby_mode": signature(rc.maybe_run_restore_standby_mode),
            "write_snapshot_restore_context": signature(rc.write_snapshot_restore_context),
            "apply_snapshot_restore_env": signature(rc.apply_snapshot_restore_env),
            "refresh_snapshot_restore_config": signature(rc.refresh_snapshot_restore_config),
            "parse_snapshot_restore_runtime_config": signature(getattr(rc, "parse_snapshot_restore_runtime_config", None)),
        },
        "sources": {rel: read_source(root, rel) for rel in SOURCES if os.path.exists(os.path.join(root, rel))},
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
