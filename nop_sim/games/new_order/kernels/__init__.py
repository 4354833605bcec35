"""New Order Poker's numba kernels: plain arrays and scalars only, no Python objects."""
