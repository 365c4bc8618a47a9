"""The frontend's op emitters, one module per family of the language's
operations; each is a mixin over ``SemanticCore`` (core.py), and
frontend/semantic.py combines them into ``Semantic``."""
