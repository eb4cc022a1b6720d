/**
 * SNAP003: a restore pod runs the same entrypoint with `DYN_SNAPSHOT_RESTORE_STANDBY=1`, and the
 * entrypoint must notice before any vendor import (dynamo-snapshot.md §4): importing vLLM, SGLang,
 * TensorRT-LLM or torch first costs seconds and may touch CUDA in a container that must stay idle.
 * Fires in entrypoints (`__main__.py` or a file with an `if __name__ == "__main__"` guard) that read
 * the standby variable, at each module-level heavy import that runs before the check.
 */
import type { Node, Tree } from 'web-tree-sitter';

export const HEAVY_MODULES = ['vllm', 'sglang', 'tensorrt_llm', 'torch', 'transformers'];
const STANDBY_RE = /\b(?:DYN_)?SNAPSHOT_RESTORE_STANDBY\b/g;
const MAIN_GUARD = /__name__\s*==\s*['"]__main__['"]|['"]__main__['"]\s*==\s*__name__/;
const DEFS = new Set(['function_definition', 'class_definition', 'decorated_definition']);

export interface StandbyFinding {
  importNode: Node;
  module: string;
  check: Node;
}

function topLevel(n: Node): Node | null {
  let cur: Node | null = n;
  while (cur?.parent && cur.parent.type !== 'module') cur = cur.parent;
  return cur?.parent ? cur : null;
}

/** Module-level imports that run at import time (not under `if TYPE_CHECKING:`, not in a def). */
function moduleImports(root: Node): Node[] {
  const out: Node[] = [];
  const visit = (block: Node): void => {
    for (const s of block.namedChildren) {
      if (s.type === 'import_statement' || s.type === 'import_from_statement') out.push(s);
      else if (s.type === 'if_statement' && /TYPE_CHECKING/.test(s.childForFieldName('condition')?.text ?? '')) continue;
      else if (!DEFS.has(s.type) && /^(if|try|with|else|elif|except|finally)/.test(s.type)) {
        for (const b of s.descendantsOfType('block')) if (b.parent?.id === s.id || b.parent?.parent?.id === s.id) visit(b);
      }
    }
  };
  visit(root);
  return out;
}

function heavyModule(imp: Node): string | undefined {
  const names =
    imp.type === 'import_statement'
      ? imp.childrenForFieldName('name').map((n) => (n.type === 'aliased_import' ? n.childForFieldName('name') : n)?.text ?? '')
      : [imp.childForFieldName('module_name')?.text ?? ''];
  for (const name of names) {
    const root = name.split('.')[0]!.trim();
    if (HEAVY_MODULES.includes(root)) return root;
  }
  return undefined;
}

export function findLateStandby(tree: Tree, text: string, fileName: string): StandbyFinding[] {
  if (!(fileName === '__main__.py' || MAIN_GUARD.test(text))) return [];
  STANDBY_RE.lastIndex = 0;
  let check: Node | undefined;
  for (let m = STANDBY_RE.exec(text); m && !check; m = STANDBY_RE.exec(text)) {
    const n = tree.rootNode.descendantForIndex(m.index, m.index + m[0].length);
    if (n && (n.type === 'string_content' || n.type === 'string')) check = n;
  }
  if (!check) return [];
  const top = topLevel(check);
  if (!top) return [];
  // A check inside a def runs when called, after every module-level import.
  const checkAt = DEFS.has(top.type) ? Infinity : top.startIndex;
  const out: StandbyFinding[] = [];
  for (const imp of moduleImports(tree.rootNode)) {
    if (imp.startIndex >= checkAt) continue;
    const module = heavyModule(imp);
    if (module) out.push({ importNode: imp, module, check });
  }
  return out;
}
