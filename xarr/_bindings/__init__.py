"""Cython bindings of the C++ kernel families, one module each (docs/architecture.md)."""
