"""Real models nobody on the project wrote, a few training steps each on CUDA with random data and
random weights (nothing is downloaded), for measuring what a user sees of Strata's attribution
(bench/real_models/attribution_shares.py) and its cost.
usage: models.py MODEL [STEPS]
MODEL: resnet50 | vit | bert | gpt2_train | gcn | compiled | compiled_vit | compiled_bert | flax"""
import sys


def torch_step(model, make_batch, loss_fn, steps):
    import torch
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    batch = make_batch()
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model, batch)  # MODEL_FORWARD
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"loss {float(loss):.4f}")


def resnet50(steps):
    import torch
    import torchvision
    model = torchvision.models.resnet50().cuda()
    torch_step(model, lambda: (torch.randn(32, 3, 224, 224, device="cuda"), torch.randint(0, 1000, (32,), device="cuda")),
               lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1]), steps)


def vit(steps):
    import timm
    import torch
    model = timm.create_model("vit_small_patch16_224", pretrained=False).cuda()
    torch_step(model, lambda: (torch.randn(32, 3, 224, 224, device="cuda"), torch.randint(0, 1000, (32,), device="cuda")),
               lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1]), steps)


def bert(steps):
    import torch
    from transformers import BertConfig, BertForSequenceClassification
    model = BertForSequenceClassification(BertConfig(num_hidden_layers=4)).cuda()
    torch_step(model, lambda: (torch.randint(0, 30000, (16, 128), device="cuda"), torch.randint(0, 2, (16,), device="cuda")),
               lambda m, b: m(input_ids=b[0], labels=b[1]).loss, steps)


def gpt2_train(steps):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    model = GPT2LMHeadModel(GPT2Config(n_layer=6)).cuda()
    torch_step(model, lambda: torch.randint(0, 50000, (8, 256), device="cuda"),
               lambda m, b: m(input_ids=b, labels=b).loss, steps)


def gcn(steps):
    import torch
    from torch_geometric.nn import GCNConv

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1, self.c2 = GCNConv(64, 128), GCNConv(128, 16)

        def forward(self, x, edges):
            return self.c2(torch.relu(self.c1(x, edges)), edges)

    n = 20000
    torch_step(Net().cuda(), lambda: (torch.randn(n, 64, device="cuda"), torch.randint(0, n, (2, 200000), device="cuda"),
                                      torch.randint(0, 16, (n,), device="cuda")),
               lambda m, b: torch.nn.functional.cross_entropy(m(b[0], b[1]), b[2]), steps)


def compiled(steps):
    import torch
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True).cuda()
    model = torch.compile(layer)
    torch_step(model, lambda: torch.randn(16, 128, 256, device="cuda"), lambda m, b: m(b).square().mean(), steps)


def compiled_vit(steps):
    import timm
    import torch
    model = torch.compile(timm.create_model("vit_small_patch16_224", pretrained=False).cuda())
    torch_step(model, lambda: (torch.randn(32, 3, 224, 224, device="cuda"), torch.randint(0, 1000, (32,), device="cuda")),
               lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1]), steps)


def compiled_bert(steps):
    import torch
    from transformers import BertConfig, BertForSequenceClassification
    model = torch.compile(BertForSequenceClassification(BertConfig(num_hidden_layers=4)).cuda())
    torch_step(model, lambda: (torch.randint(0, 30000, (16, 128), device="cuda"), torch.randint(0, 2, (16,), device="cuda")),
               lambda m, b: m(input_ids=b[0], labels=b[1]).loss, steps)


def flax(steps):
    import jax
    import jax.numpy as jnp
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

    for _ in range(steps):
        params, state, loss = step(params, state, x, y)
    print(f"loss {float(loss):.4f}")


if __name__ == "__main__":
    name = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    {"resnet50": resnet50, "vit": vit, "bert": bert, "gpt2_train": gpt2_train, "gcn": gcn, "compiled": compiled,
     "compiled_vit": compiled_vit, "compiled_bert": compiled_bert, "flax": flax}[name](steps)
