"""Writes a Python file of about N lines for the snapshot-lint bench (python-analysis.md §5 setup):
whole top-level statements of CPython stdlib modules (`from __future__` dropped) with a 40-line
synthetic snapshot block every ~700 lines (4 exits the rule reports, plus an os._exit it must not).
Usage: python3 generate.py LINES OUT [SEED]"""
import ast
import importlib.util
import os
import sys

MODULES = ["argparse", "dataclasses", "typing", "asyncio.base_events", "asyncio.tasks", "logging", "logging.handlers",
           "json.decoder", "json.encoder", "pathlib", "subprocess", "collections", "functools", "inspect", "enum",
           "tarfile", "zipfile", "email.message", "http.client", "urllib.parse", "shutil", "tempfile", "threading",
           "configparser", "ast", "pprint", "textwrap", "string", "csv", "datetime", "calendar", "difflib",
           "heapq", "optparse", "gettext", "uuid"]

BLOCK = '''

async def _snapshot_lifecycle_{n}(controller, engine, exc=None):
    """Synthetic snapshot block {n}."""
    import os as _os_{n}
    import sys as _s_{n}
    from sys import exit as _leave_{n}
    try:
        await engine.warmup()
    except RuntimeError as error:
        if exc is not None:
            raise SystemExit(3) from error
    if engine.failed:
        _leave_{n}(4)
    if engine.done:
        _os_{n}._exit(0)
    restored = await controller.wait_for_restore()
    if restored:
        await engine.resume()
    else:
        _s_{n}.exit(0)
    values = [v for v in range(10) if v]
    total = sum(values)
    for item in values:
        if item > total:
            break
    else:
        total += 1
    with open(_os_{n}.devnull) as handle:
        handle.read()
    state = {{"restored": restored, "total": total}}
    del state
    if not await controller.wait_for_restore():
        print("snapshot {n} captured")
        raise SystemExit(0)
    return engine


'''


def statements():
    for name in MODULES:
        spec = importlib.util.find_spec(name)
        if not spec or not spec.origin or not spec.origin.endswith(".py"):
            continue
        source = open(spec.origin, encoding="utf-8").read()
        lines = source.splitlines()
        for node in ast.parse(source).body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            yield "\n".join(lines[start - 1:node.end_lineno]) + "\n"


def main():
    target, out = int(sys.argv[1]), sys.argv[2]
    parts, count, since, n = [], 0, 0, 0
    while count < target:
        for stmt in statements():
            parts.append(stmt)
            k = stmt.count("\n")
            count += k
            since += k
            if since >= 700:
                parts.append(BLOCK.format(n=n))
                n += 1
                count += BLOCK.count("\n")
                since = 0
            if count >= target:
                break
    if n == 0:
        parts.append(BLOCK.format(n=0))
        n = 1
    text = "".join(parts)
    ast.parse(text)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{out}: {text.count(chr(10))} lines, {len(text.encode())} bytes, {n} snapshot blocks")


if __name__ == "__main__":
    main()
