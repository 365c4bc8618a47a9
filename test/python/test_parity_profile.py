"""parity.py's profile mode, as far as it runs without a GPU: it takes one
corpus module and one compiler, and refuses anything else before importing
torch or compiling."""

import pytest
from tilelang_testing import REPO_ROOT, load_module

parity = load_module("parity", REPO_ROOT / "bench" / "parity" / "parity.py")


@pytest.mark.parametrize("argv, message", [
    (["profile", "--only", "matmul,softmax"], "profile takes one module"),
    (["profile"], "profile takes one module"),
    (["profile", "--only", "matmul", "--compiler", "nvcc"], "invalid choice: 'nvcc'"),
    (["profile", "--only", "no_such_kernel"], "unknown corpus modules: no_such_kernel"),
])
def test_profile_refuses_what_it_cannot_run(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        parity.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
