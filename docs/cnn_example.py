"""A small CNN's forward and backward pass written with xa.lax (issue 15's worked example):
conv 3x3 -> batch norm -> relu -> max-pool 2x2, twice, then a global average and a dense
layer, with a squared-error loss; every gradient written by hand from the ops' adjoints:

  dense        dW = h^T dlogits,  dh = dlogits W^T
  average      each pixel gets dh / (H W)
  max-pool     select_and_scatter_add(dy, x, ge): the first maximum of each window
  relu         dy where x > 0
  batch norm   lax.batch_norm_grad (the seed's formulas)
  conv input   a convolution of dy with the flipped, in/out-swapped kernel
  conv weights a convolution of x with dy, batch and features swapped by dimension numbers

    python docs/cnn_example.py [--batch 16] [--size 32] [--check]

prints the time of one forward + backward step in xarr and in torch (when installed), both
on 2 threads, and with --check the largest gradient difference between the two.
"""

import argparse
import time

import numpy as np

import xarr as xa

lax = xa.lax
NCHW = ("NCHW", "OIHW", "NCHW")
EPS = 1e-5


def init_params(rng, channels=(3, 32, 64), classes=10):
    p = {}
    for i, (cin, cout) in enumerate(zip(channels[:-1], channels[1:])):
        p[f"w{i}"] = (rng.standard_normal((cout, cin, 3, 3)) / np.sqrt(9 * cin)).astype(
            np.float32)
        p[f"g{i}"] = np.ones(cout, np.float32)
        p[f"b{i}"] = np.zeros(cout, np.float32)
    p["dense"] = (rng.standard_normal((channels[-1], classes)) / np.sqrt(channels[-1])
                  ).astype(np.float32)
    return p


def conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)), dimension_numbers=NCHW)


def conv_grads(x, w, dy, need_dx=True):
    """(dx, dw) of y = conv(x, w) (3x3, stride 1, padding 1); dx None unless need_dx."""
    dx = None
    if need_dx:
        w_t = lax.transpose(lax.rev(w, (2, 3)), (1, 0, 2, 3))     # flipped, in <-> out
        dx = lax.conv_general_dilated(dy, w_t, (1, 1), ((1, 1), (1, 1)),
                                      dimension_numbers=NCHW)
    # dw[o, i, a, b] = sum_{n, h, v} dy[n, o, h, v] x[n, i, h + a - 1, v + b - 1]: x with its
    # channels as the batch and its batch as the features, dy as the kernel (its n the
    # input features), the result's dims (o, i, a, b) labelled "CNHW": already OIHW
    dw = lax.conv_general_dilated(x, dy, (1, 1), ((1, 1), (1, 1)),
                                  dimension_numbers=("CNHW", "IOHW", "CNHW"))
    return dx, dw


def pool(x):
    return lax.reduce_window(x, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def pool_grad(x, dy):
    return lax.select_and_scatter_add(dy, x, lax.ge, (1, 1, 2, 2), (1, 1, 2, 2),
                                      ((0, 0),) * 4)


def forward_backward(params, x, target):
    """The loss 0.5 * sum((logits - target)^2) / batch and the gradient of every param."""
    p = {k: xa.asarray(v) for k, v in params.items()}
    n = x.shape[0]
    acts, h = [], x
    for i in range(2):
        c = conv(h, p[f"w{i}"])
        y, mean, var = lax.batch_norm_training(c, p[f"g{i}"], p[f"b{i}"], EPS, 1)
        r = xa.maximum(y, 0.0)
        acts.append((h, c, mean, var, y))
        h = pool(r)
    feats = xa.mean(h, axis=(2, 3))
    logits = feats @ p["dense"]
    diff = logits - target
    loss = 0.5 * float(xa.sum(diff * diff)) / n
    grads = {}
    dlogits = diff * (1.0 / n)
    grads["dense"] = feats.T @ dlogits
    dfeats = dlogits @ p["dense"].T
    hw = h.shape[2] * h.shape[3]
    dh = lax.broadcast_in_dim(dfeats * (1.0 / hw), h.shape, (0, 1))
    for i in (1, 0):
        inp, c, mean, var, y = acts[i]
        r = xa.maximum(y, 0.0)
        dr = pool_grad(r, dh)
        dy = xa.where(y > 0, dr, 0.0)
        dc, grads[f"g{i}"], grads[f"b{i}"] = lax.batch_norm_grad(c, p[f"g{i}"], mean, var, dy,
                                                                 EPS, 1)
        dh, grads[f"w{i}"] = conv_grads(inp, p[f"w{i}"], dc, need_dx=i > 0)
    return loss, grads


def torch_step(torch, params, x, target):
    p = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
    F = torch.nn.functional
    h = torch.from_numpy(x)
    for i in range(2):
        c = F.conv2d(h, p[f"w{i}"], padding=1)
        y = F.batch_norm(c, None, None, p[f"g{i}"], p[f"b{i}"], training=True, eps=EPS)
        h = F.max_pool2d(F.relu(y), 2, 2)
    logits = h.mean(dim=(2, 3)) @ p["dense"]
    loss = 0.5 * ((logits - torch.from_numpy(target)) ** 2).sum() / x.shape[0]
    loss.backward()
    return float(loss), {k: v.grad.numpy() for k, v in p.items()}


def best(fn, repeat=5):
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    params = init_params(rng)
    x = rng.standard_normal((args.batch, 3, args.size, args.size)).astype(np.float32)
    target = rng.standard_normal((args.batch, 10)).astype(np.float32)
    xa.set_num_threads(2)
    tx = xa.asarray(x)
    t_xa = best(lambda: forward_backward(params, tx, xa.asarray(target)))
    print(f"xarr  forward + backward, batch {args.batch}, {args.size}x{args.size}: "
          f"{t_xa * 1e3:.1f} ms")
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(2)
    t_t = best(lambda: torch_step(torch, params, x, target))
    print(f"torch forward + backward: {t_t * 1e3:.1f} ms  (torch / xarr {t_t / t_xa:.2f}x)")
    if args.check:
        loss, grads = forward_backward(params, tx, xa.asarray(target))
        tloss, tgrads = torch_step(torch, params, x, target)
        print(f"loss xarr {loss:.6f} torch {tloss:.6f}")
        for k in sorted(grads):
            g = np.asarray(grads[k])
            print(f"  d{k}: max |xarr - torch| {np.abs(g - tgrads[k]).max():.2e} "
                  f"(max |grad| {np.abs(tgrads[k]).max():.2e})")


if __name__ == "__main__":
    main()
