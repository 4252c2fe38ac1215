"""docs/cnn_example.py (issue 15's worked example): its hand-written gradients of a small
CNN (conv, batch norm, relu, max-pool, dense) against central differences of its own
loss, in float64, at a tiny size."""

import importlib.util
import pathlib

import numpy as np

import xarr as xa

_PATH = pathlib.Path(__file__).resolve().parents[1] / "docs" / "cnn_example.py"
_spec = importlib.util.spec_from_file_location("cnn_example", _PATH)
cnn = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cnn)


def test_gradients_match_central_differences():
    rng = np.random.default_rng(0)
    params = {k: v.astype(np.float64) for k, v in
              cnn.init_params(rng, channels=(2, 3, 4), classes=3).items()}
    x = xa.asarray(rng.standard_normal((3, 2, 8, 8)))
    target = xa.asarray(rng.standard_normal((3, 3)))
    loss, grads = cnn.forward_backward(params, x, target)
    h = 1e-6
    for name, value in params.items():
        for idx in [tuple(0 for _ in value.shape), tuple(s - 1 for s in value.shape)]:
            up, down = dict(params), dict(params)
            up[name], down[name] = value.copy(), value.copy()
            up[name][idx] += h
            down[name][idx] -= h
            numeric = (cnn.forward_backward(up, x, target)[0] -
                       cnn.forward_backward(down, x, target)[0]) / (2 * h)
            assert abs(np.asarray(grads[name])[idx] - numeric) < 1e-6 * max(1, abs(numeric)), \
                (name, idx, np.asarray(grads[name])[idx], numeric)
