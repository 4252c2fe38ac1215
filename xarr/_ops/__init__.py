"""Op definitions, one module per family: shape/dtype rules in Python, kernels in C++."""
