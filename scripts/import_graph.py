"""The import graph of the tilelang Python package, and its circles.

Reads every module under python/tilelang as text (nothing is imported or
run), collects each `import` and `from ... import` wherever it stands (at
the top of the file or inside a function: an import inside a function is
an edge all the same, it only runs later), and prints the strongly
connected components of more than one module: the import circles.

An import names the most specific module it reaches: `from tilelang import
knobs` is an edge to tilelang.knobs, `from tilelang.jit import cdiv` one to
tilelang.jit. The package's __init__ that Python runs first is not counted
as an edge of its own (else every module would sit in a circle with
tilelang/__init__.py, which imports the public API). Modules outside the
package (the compiled extensions tilelang._C and tilelang._C_torch, torch,
the standard library) are left out.

  .venv/bin/python scripts/import_graph.py           # circles; exit 1 if any
  .venv/bin/python scripts/import_graph.py --edges   # every edge, then the circles
"""

from __future__ import annotations

import argparse
import ast
import pathlib
import sys
from typing import Dict, List, Set

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / "python"
# Built from C++ (python/src), not Python: leaves of the graph.
EXTENSIONS = ("_C", "_C_torch")


def module_names(base: pathlib.Path = PACKAGE_DIR, package: str = "tilelang") -> Dict[str, pathlib.Path]:
    """Dotted module name -> file, for every .py file of the package."""
    modules = {}
    for path in sorted((base / package).rglob("*.py")):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _resolve(name: str, modules: Dict[str, pathlib.Path]):
    """The longest prefix of `name` that is a module of the package."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def imports_of(module: str, path: pathlib.Path, modules: Dict[str, pathlib.Path]) -> Set[str]:
    """The package modules that `module` imports, anywhere in its file."""
    is_package = path.name == "__init__.py"
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # Relative to the module's package (a package's own __init__
                # is its package).
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # `from a import b`: a.b where b is a module, else a.
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[1:2] and name.split(".")[1] in EXTENSIONS:
                continue
            target = _resolve(name, modules)
            if target is not None and target != module:
                targets.add(target)
    return targets


def import_graph(base: pathlib.Path = PACKAGE_DIR, package: str = "tilelang") -> Dict[str, Set[str]]:
    """module -> the package modules it imports."""
    modules = module_names(base, package)
    return {module: imports_of(module, path, modules) for module, path in modules.items()}


def circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan's
    algorithm, iterative), each sorted, largest first."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on_stack: Set[str] = set()
    stack: List[str] = []
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found, key=lambda c: (-len(c), c))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", action="store_true", help="print every edge first")
    args = parser.parse_args(argv)
    graph = import_graph()
    if args.edges:
        for module in sorted(graph):
            for target in sorted(graph[module]):
                print(f"{module} -> {target}")
    found = circles(graph)
    for component in found:
        print("circle: " + " <-> ".join(component))
        for module in component:
            inside = sorted(t for t in graph[module] if t in component)
            print(f"  {module} imports {', '.join(inside)}")
    print(f"{len(graph)} modules, {sum(len(t) for t in graph.values())} imports, {len(found)} circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
