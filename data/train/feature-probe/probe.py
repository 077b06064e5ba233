"""Do hand-made well features explain what a trained net gets wrong?

Reads one generation's samples and targets, a net's values of the same wells
(examples/net_values.rs), and fits a ridge regression of the net's error
(target minus value) on features the net's inputs do not hold directly:
column heights, holes per column, rows with holes, the stack's height, cells,
bumpiness, each also one-hot. Held-out wells (blocks of consecutive samples,
so that a sample and its children stay on one side) give R².

    python3 probe.py GEN_DIR VALUES.bin [--raw]

GEN_DIR holds samples.bin, targets.bin, died.bin, rescale.json (and far.bin
with a far share); its parent's train.json the settings. The fit's target is
rebuilt as the trainer's window batch builds it for a window of one
generation (graded deaths, the life term, far values, the rescale map).
Besides the plain R², "within depths" takes out each master depth's mean
(of the target, the value and every feature) first: the beam only ranks
wells of one depth against each other, and the fit's ranking term pairs
wells of one depth.

With --raw the values are on the targets' own scale (a net that made the
targets, such as the champion, not the net fitted to them) and are mapped by
rescale.json as the survivors' targets are. The champion never saw these
wells, so its error is the part of a training beam's outcome that its value
did not foresee.
"""
import json
import struct
import sys

import numpy as np


def read_f32(path):
    b = open(path, "rb").read()
    assert b[:4] == b"HTTA", path
    n = struct.unpack("<Q", b[8:16])[0]
    return np.frombuffer(b[16:16 + 4 * n], dtype="<f4").astype(np.float64)


def read_rows(path):
    b = open(path, "rb").read()
    assert b[:8] == b"HTSAMPL1", path
    n = struct.unpack("<Q", b[8:16])[0]
    rec = np.frombuffer(b[16:16 + 36 * n], dtype=np.uint8).reshape(n, 36)
    return rec[:, :32].copy().view("<u2").reshape(n, 16)


def read_depths(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[8:16])[0]
    rec = np.frombuffer(b[16:16 + 36 * n], dtype=np.uint8).reshape(n, 36)
    return rec[:, 32:].copy().view("<u4").reshape(n)


def fit_targets(gen, t, died):
    """The fit's targets, as `window_batch` in src/train/learning.rs makes them."""
    cfg = json.load(open(f"{gen}/../train.json"))
    learn, pieces, lost = cfg["learning"], cfg["beam"]["pieces"], cfg["lost_value"]
    share = learn.get("far_share", 0.0)
    far = read_f32(f"{gen}/far.bin") if share > 0 else t
    r = json.load(open(f"{gen}/rescale.json"))
    at = died.astype(np.int64)
    g_from, horizon, weight = learn["graded_from"], learn["life_pieces"], learn["life_weight"]
    if pieces <= g_from:
        graded = np.full(len(t), lost)
    else:
        graded = np.where(at <= g_from, lost, lost * (1 - 0.5 * (at - g_from) / (pieces - g_from + 1)))
    life = np.where((at > pieces) & (at <= horizon), weight * (horizon + 1 - at) / max(horizon - pieces, 1), 0.0)
    alive = r["scale"] * (t + share * (far - t)) + r["shift"] - life
    dead_early = (at > 0) & (at <= pieces)
    out = np.where(dead_early, graded, np.where(t == lost, lost, alive))
    return out, ~dead_early & (t != lost)


def demean(x, groups):
    """x less the mean of its group, column by column."""
    _, inv = np.unique(groups, return_inverse=True)
    x2 = x.reshape(len(x), -1)
    sums = np.zeros((inv.max() + 1, x2.shape[1]))
    np.add.at(sums, inv, x2)
    counts = np.bincount(inv)[:, None]
    return (x2 - (sums / counts)[inv]).reshape(x.shape)


def features(rows):
    n = len(rows)
    cells = ((rows[:, :, None] >> np.arange(10)) & 1).astype(bool)  # n, 16 rows (top first), 10 columns
    filled_above = np.logical_or.accumulate(cells, axis=1)
    top = np.where(cells.any(axis=1), cells.argmax(axis=1), 16)  # n, 10
    heights = 16 - top
    holes = (~cells & filled_above).sum(axis=1)  # n, 10
    hole_rows = (~cells & filled_above).any(axis=2).sum(axis=1)
    stack = heights.max(axis=1)
    count = cells.sum(axis=(1, 2))
    bump = np.abs(np.diff(heights, axis=1)).sum(axis=1)
    left = np.concatenate([np.full((n, 1), 16), heights[:, :-1]], axis=1)
    right = np.concatenate([heights[:, 1:], np.full((n, 1), 16)], axis=1)
    wells = np.clip(np.minimum(left, right) - heights, 0, None)
    dense = [heights, holes, hole_rows[:, None], stack[:, None], count[:, None], bump[:, None],
             wells, wells.max(axis=1)[:, None], holes.sum(axis=1)[:, None]]
    onehot = []
    for c in range(10):
        onehot.append(np.eye(17)[heights[:, c]])
        onehot.append(np.eye(12)[np.clip(holes[:, c], 0, 11)])
    onehot.append(np.eye(17)[hole_rows])
    onehot.append(np.eye(17)[stack])
    onehot.append(np.eye(41)[np.clip(count // 4, 0, 40)])
    return np.concatenate(dense, axis=1).astype(np.float64), np.concatenate(onehot, axis=1)


def ridge_r2(x, y, train, test, lam=1.0):
    mu, sd = x[train].mean(0), x[train].std(0) + 1e-9
    z = (x - mu) / sd
    z = np.concatenate([z, np.ones((len(z), 1))], axis=1)
    a = z[train].T @ z[train] + lam * np.eye(z.shape[1])
    w = np.linalg.solve(a, z[train].T @ y[train])
    err = y[test] - z[test] @ w
    return 1 - (err ** 2).mean() / ((y[test] - y[train].mean()) ** 2).mean()


def main():
    gen, values = sys.argv[1], sys.argv[2]
    rows = read_rows(f"{gen}/samples.bin")
    t = read_f32(f"{gen}/targets.bin")
    died = read_f32(f"{gen}/died.bin")
    v = read_f32(values)
    if "--raw" in sys.argv[3:]:
        r = json.load(open(f"{gen}/rescale.json"))
        v = r["scale"] * v + r["shift"]
    depth = read_depths(f"{gen}/samples.bin")
    t, survived = fit_targets(gen, t, died)
    rng = np.random.default_rng(1)
    block = rng.random(len(t) // 100 + 1) < 0.2
    test = block[np.arange(len(t)) // 100]
    dense, onehot = features(rows)
    both = np.concatenate([dense, onehot], axis=1)
    print(f"{len(t)} wells, {survived.mean():.3f} survived; held out {test.mean():.3f}")
    for name, keep, within in [("all", np.ones(len(t), bool), False),
                               ("survivors", survived, False),
                               ("all, within depths", np.ones(len(t), bool), True)]:
        tr, te = keep & ~test, keep & test
        if within:
            t, v = demean(t, depth), demean(v, depth)
            dense, onehot, both = (demean(x, depth) for x in (dense, onehot, both))
        res = t - v
        var_t = t[te].var()
        print(f"\n{name}: target sd {np.sqrt(var_t):.3f}, net error sd {res[te].std():.3f} "
              f"(net R² {1 - ((res[te] - 0) ** 2).mean() / var_t:.3f})")
        for fname, x in [("dense", dense), ("one-hot", onehot), ("both", both)]:
            r_res = ridge_r2(x, res, tr, te)
            r_t = ridge_r2(x, t, tr, te)
            print(f"  {fname:8} ({x.shape[1]:3} columns): explains {r_res:6.3f} of the net's error "
                  f"({r_res * res[te].var() / var_t:6.3f} of the target's variance); alone R² {r_t:.3f}")


main()
