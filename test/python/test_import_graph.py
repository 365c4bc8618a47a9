"""The tilelang package's import graph has no circles (scripts/import_graph.py:
every import counts, at the top of a module or inside a function), and the
script finds the circles it is meant to find."""

import textwrap

from tilelang_testing import REPO_ROOT, load_module

import_graph = load_module("import_graph", REPO_ROOT / "scripts" / "import_graph.py")


def _package(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return import_graph.import_graph(tmp_path, "pkg")


def test_the_package_has_no_import_circles():
    graph = import_graph.import_graph()
    assert "tilelang.jit" in graph and "tilelang.frontend.codegen" in graph
    assert import_graph.circles(graph) == []


def test_a_circle_through_a_function_level_import_is_found(tmp_path):
    graph = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from pkg.b import f\n",
        "b.py": "def f():\n    from pkg import a\n    return a\n",
        "c.py": "import pkg.a\n",
    })
    assert graph["pkg.b"] == {"pkg.a"}
    assert import_graph.circles(graph) == [["pkg.a", "pkg.b"]]


def test_relative_imports_and_extensions(tmp_path):
    graph = _package(tmp_path, {
        "__init__.py": "from . import _C\n",
        "sub/__init__.py": "from .x import y\n",
        "sub/x.py": "from .. import top\nfrom ..sub import x\ny = 1\n",
        "top.py": "from pkg.sub.x import y\nimport os\n",
    })
    # _C is a compiled extension: outside the graph, as os is.
    assert graph["pkg"] == set()
    assert graph["pkg.sub"] == {"pkg.sub.x"}
    assert graph["pkg.sub.x"] == {"pkg.top"}
    assert import_graph.circles(graph) == [["pkg.sub.x", "pkg.top"]]
