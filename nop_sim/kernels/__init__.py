"""Numba kernels: plain arrays and scalars only, no Python objects."""
