"""Small real training steps for the GPU activity timeline (bench/timeline/record_h100.sh): random
data and random weights, nothing downloaded. Prints the steady steps' mean time (after the first,
which pays for cuDNN/XLA set-up) so runs with and without the timeline can be set side by side.
usage: workloads.py resnet18|flax [STEPS]"""
import sys
import time


def resnet18(steps):
    import torch
    import torchvision
    model = torchvision.models.resnet18().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(32, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (32,), device="cuda")
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)  # RESNET_FORWARD
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    print(f"loss {float(loss):.4f}; steady step {1e3 * sum(times[1:]) / max(1, len(times) - 1):.2f} ms")


def flax(steps):
    import jax
    import optax
    from flax import linen as nn

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Dense(1024)(x))
            x = nn.relu(nn.Dense(1024)(x))
            return nn.Dense(10)(x)

    model = MLP()
    key = jax.random.PRNGKey(0)
    x = jax.random.normal(key, (256, 512))
    y = jax.random.randint(key, (256,), 0, 10)
    params = model.init(key, x)
    tx = optax.adam(1e-3)
    state = tx.init(params)

    @jax.jit
    def step(params, state, x, y):
        def loss_fn(p):
            logits = model.apply(p, x)  # FLAX_FORWARD
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, state = tx.update(grads, state)
        return optax.apply_updates(params, updates), state, loss

    times = []
    for _ in range(steps):
        t = time.perf_counter()
        params, state, loss = step(params, state, x, y)
        loss.block_until_ready()
        times.append(time.perf_counter() - t)
    print(f"loss {float(loss):.4f}; steady step {1e3 * sum(times[1:]) / max(1, len(times) - 1):.2f} ms")


if __name__ == "__main__":
    name = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    {"resnet18": resnet18, "flax": flax}[name](steps)
