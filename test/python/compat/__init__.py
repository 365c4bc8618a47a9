"""The compatibility corpus (issue 21): kernels in the forms Triton users
write, each a module of this package bound to either compiler by
`define(jit, tl)`. README.md lists them; corpus.py loads and checks them."""
