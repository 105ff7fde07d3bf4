"""GPU workload for JAX attribution: a jitted step (matmul, bias, gelu, reduction) called in a
loop from a Python line. usage: jax_step.py [steps]"""
import sys

import jax
import jax.numpy as jnp


@jax.jit
def step(w, x):
    h = jnp.dot(x, w)  # JAX_DOT_LINE
    h = jax.nn.gelu(h + 1.0)  # JAX_GELU_LINE
    return jnp.sum(h * h)  # JAX_REDUCE_LINE


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    key = jax.random.PRNGKey(0)
    w = jax.random.normal(key, (2048, 2048))
    x = jax.random.normal(key, (512, 2048))
    total = 0.0
    for _ in range(steps):
        total += float(step(w, x))  # JAX_CALL_LINE
    print(f"total {total:.3f}")


if __name__ == "__main__":
    main()
