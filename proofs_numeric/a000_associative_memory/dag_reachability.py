#!/usr/bin/env python3
"""A000-EXP-DAG (paper A000 §3.3, Fig. 7): reachability from a root on a two-tree DAG, one-layer DeltaFormer
against 1-4-layer Transformers, trained in PyTorch. The claim check (section3_dag.cpp) runs this script and
decides; this script only trains, measures and prints the raw per-run numbers as one JSON object on the
last line of stdout.

Task (the paper: "32 nodes ... divided into 2 classes on average, one tree for each class ... only judge the
reachability of other nodes starting from a certain root node ... only encode the parent node information
for each node"), as implemented [interp]:
  * n nodes (default 32), two classes of n/2 nodes; each class is a uniformly random recursive tree (local
    node i >= 1 of a class takes its parent uniformly among the class's local nodes 0..i-1);
  * node ids: a uniformly random permutation of 0..n-1 (so an id says nothing about the tree or depth);
  * sequence order: a topological order (parents before children: the model is causal), the designated
    root (root of class A) first, then the other n-1 nodes of both trees interleaved uniformly at random
    (each tree's nodes keep their local order, which is topological);
  * token t = E_node[id_t] + E_parent[pid_t], two embedding tables; pid_t is the parent's id, or one of two
    extra symbols: QROOT (n) for the designated root and NONE (n+1) for the other root. The two symbols make
    the question explicit: without positional encoding nothing else marks which root is asked about;
  * label of a node: 1 if it is reachable from the designated root (= lies in class A), else 0; exactly n/2
    positive labels per instance. Loss: mean cross-entropy over all n nodes; accuracy: over the n-1 nodes
    other than the designated root (the "other nodes" of the paper), also the fraction of instances whose
    n-1 labels are all right ("exact").
  * every training step draws a fresh batch; evaluation on `--eval` fresh instances (per seed the same
    training stream and evaluation set in every arm: paired by seed).
The generator's labels are checked at start-up against an explicit parent-chain traversal (self_check).

Model (the Listing 2 layer, mirrored from proofs_numeric/support/toy_train.hpp): x = embedding; per layer
  q, w = affine(x) (hq heads of head dim hd), k, v = affine(x) (hkv heads); per q-head h (kv group g(h)):
  a^h_{s,t} = w^h_s . k_t / sqrt(hd) (t < s), A^g = mean_{h in g} w_weight_h * kappa1(a^h) (strictly lower);
  (I + beta tril(A^g, -1)) U^g = alpha V^g (unit lower triangular solve); o^h_s = sum_{t<=s}
  softmax_t(q^h_s . k_t / sqrt(hd)) u^g_t (kappa2 = softmax, as the paper's Fig. 7); x <- x + Wo[o^1..o^hq] + bo.
  logits = W_head x (2 classes, no bias). No norm, no FFN, no positional encoding (as Listing 2); --ffn adds a
  pre-RMSNorm GELU MLP (width 4 dim) after the attention of every layer, in every arm (sensitivity option).
  kappa1: linear a; exp e^a; round: round-half-to-even(a) (torch.round) with the straight-through gradient
  (d round(a)/da := 1), the semantics of ref::ToyK1 / toy_train.cpp. alpha and beta are trainable scalars
  (init 1). The Transformer is the same layer with beta = 0 fixed (U = alpha V, no u-solve; the C++ harness's
  `transformer` flag), stacked L in {1, 2, 3, 4} times with the residual.
Optimiser (Listing 2 / A000-TOY-TRAIN, identical for every arm): AdamW lr 0.01, weight decay 0.01, betas
(0.9, 0.999), eps 1e-6, linear schedule (128 warm-up steps, linear decay to 0 at the last step), fp32,
no gradient clipping. A run whose loss becomes non-finite stops; its accuracy is recorded as chance (0.5,
exact 0) with stop = "non-finite".
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

KAPPA1 = ("linear", "round", "exp")
DEFAULT_ARMS = [("deltaformer", 1, k) for k in KAPPA1] + [("transformer", L, None) for L in (1, 2, 3, 4)]


# ----------------------------------------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------------------------------------
def generate(rng, batch, n):
    """`batch` instances of the two-tree task with n nodes. Returns int64 arrays (batch, n): node id, parent
    symbol (parent id, n = QROOT for the designated root, n + 1 = NONE for the other root), label (0/1), and
    the class of each position (0 = the designated root's tree) for tests."""
    if n < 4 or n % 2:
        raise ValueError(f"nodes must be an even number >= 4 (got {n})")
    if batch < 1:
        raise ValueError(f"batch must be >= 1 (got {batch})")
    m = n // 2
    # recursive trees: local parent of local node i >= 1 is uniform on 0..i-1 (per class)
    par = np.stack([rng.integers(0, np.arange(1, m), size=(batch, m - 1)) for _ in range(2)], axis=1)  # (B, 2, m-1)
    # positions 1..n-1: which class each holds (class A has m-1 non-root nodes left, class B m nodes)
    cls_rest = np.concatenate([np.zeros(m - 1, np.int64), np.ones(m, np.int64)])
    keys = rng.random((batch, n - 1))
    cls = np.concatenate([np.zeros((batch, 1), np.int64), cls_rest[np.argsort(keys, axis=1)]], axis=1)  # (B, n)
    # global position of local node i of class c: the i-th position holding class c
    pos = np.empty((batch, 2, m), np.int64)
    for c in range(2):
        idx = np.nonzero(cls == c)  # row-major: per row in increasing position
        pos[:, c, :] = idx[1].reshape(batch, m)
    ids = np.argsort(rng.random((batch, n)), axis=1)  # node id at each position: a random permutation
    pid = np.empty((batch, n), np.int64)
    b = np.arange(batch)[:, None]
    for c in range(2):
        root_pos = pos[:, c, 0]
        pid[np.arange(batch), root_pos] = n if c == 0 else n + 1
        parent_pos = np.take_along_axis(pos[:, c, :], par[:, c, :], axis=1)  # (B, m-1)
        pid[b, pos[:, c, 1:]] = ids[b, parent_pos]
    label = (cls == 0).astype(np.int64)
    return ids, pid, label, cls


def traverse_labels(ids, pid, n):
    """Independent labels: follow each node's parent chain (by id) to a root; 1 if the root is the
    designated one (parent symbol QROOT). Also checks the order is topological. Pure Python, per instance."""
    out = np.zeros(ids.shape, np.int64)
    for r in range(ids.shape[0]):
        parent_of = {}
        seen = set()
        for t in range(ids.shape[1]):
            i, p = int(ids[r, t]), int(pid[r, t])
            if p < n and p not in seen:
                raise AssertionError(f"instance {r}: node {i} at position {t} precedes its parent {p}")
            parent_of[i] = p
            seen.add(i)
        for t in range(ids.shape[1]):
            x, steps = int(ids[r, t]), 0
            while parent_of[x] < n:
                x = parent_of[x]
                steps += 1
                if steps > n:
                    raise AssertionError(f"instance {r}: cycle through node {x}")
            out[r, t] = 1 if parent_of[x] == n else 0
    return out


def self_check(rng, n, instances):
    ids, pid, label, cls = generate(rng, instances, n)
    mism = int((traverse_labels(ids, pid, n) != label).sum())
    ok_perm = all(sorted(row.tolist()) == list(range(n)) for row in ids)
    balance = float(label.mean())
    first_is_qroot = bool((pid[:, 0] == n).all())
    n_roots = int(((pid == n) | (pid == n + 1)).sum())
    good = mism == 0 and ok_perm and balance == 0.5 and first_is_qroot and n_roots == 2 * instances
    return {"instances": instances, "label_mismatches": mism, "ids_permutation": ok_perm, "positive_fraction": balance,
            "first_token_is_designated_root": first_is_qroot, "passed": bool(good)}


# ----------------------------------------------------------------------------------------------------------
# model components (torch imported lazily so that argument errors do not pay for the import)
# ----------------------------------------------------------------------------------------------------------
def _torch():
    import torch
    return torch


def kappa1_apply(a, kind):
    """kappa1 elementwise: linear, exp, or round (half to even) with the straight-through gradient."""
    torch = _torch()
    if kind == "linear":
        return a
    if kind == "exp":
        return torch.exp(a)
    if kind == "round":
        return a + (torch.round(a) - a).detach()
    raise ValueError(f"kappa1 must be one of {KAPPA1} (got {kind!r})")


def write_matrix(W, K, kind, scale):
    """tril(kappa1(scale W K^T), -1) for (..., T, d) inputs: A[..., s, t] = kappa1(scale w_s . k_t), t < s."""
    torch = _torch()
    T = W.shape[-2]
    a = torch.matmul(W, K.transpose(-1, -2)) * scale
    a = a.masked_fill(~torch.ones(T, T, dtype=torch.bool, device=a.device).tril(-1), 0.0)  # Listing 2: zero-masked
    return torch.tril(kappa1_apply(a, kind), -1)  # masked entries (e^0 = 1 for exp) never reach the solve


def u_solve(A, V, alpha, beta):
    """(I + beta tril(A, -1)) U = alpha V by the unit lower triangular solve. beta: scalar or (..., T) per row."""
    torch = _torch()
    L = torch.tril(A, -1)
    if torch.is_tensor(beta) and beta.dim() > 0:
        L = L * beta.unsqueeze(-1)
    else:
        L = L * beta
    T = A.shape[-1]
    M = L + torch.eye(T, dtype=A.dtype, device=A.device)
    return torch.linalg.solve_triangular(M, alpha * V, upper=False, unitriangular=True)


def read_out(Q, K, U, kappa2, scale):
    """o_s = sum_{t<=s} kappa2(scale q_s . k_t) u_t; kappa2 softmax (over t <= s) or exp (unnormalised)."""
    torch = _torch()
    T = Q.shape[-2]
    sc = torch.matmul(Q, K.transpose(-1, -2)) * scale
    causal = torch.ones(T, T, dtype=torch.bool, device=sc.device).tril()
    if kappa2 == "softmax":
        P = torch.softmax(sc.masked_fill(~causal, float("-inf")), dim=-1)
    elif kappa2 == "exp":
        P = torch.exp(sc).masked_fill(~causal, 0.0)
    else:
        raise ValueError(f"kappa2 must be softmax or exp (got {kappa2!r})")
    return torch.matmul(P, U)


def build_model(n, dim, hq, hkv, layers, kind, transformer, ffn):
    torch = _torch()
    nn = torch.nn

    class DeltaAttention(nn.Module):
        def __init__(self):
            super().__init__()
            if dim % hq or hq % hkv:
                raise ValueError(f"dim ({dim}) must divide by hq ({hq}) and hq by hkv ({hkv})")
            self.hd = dim // hq
            self.q = nn.Linear(dim, hq * self.hd)
            self.w = nn.Linear(dim, hq * self.hd)
            self.k = nn.Linear(dim, hkv * self.hd)
            self.v = nn.Linear(dim, hkv * self.hd)
            self.o = nn.Linear(hq * self.hd, dim)
            self.w_weight = nn.Parameter(torch.randn(hq))
            self.alpha = nn.Parameter(torch.tensor(1.0))
            if transformer:
                self.register_buffer("beta", torch.tensor(0.0))  # no u-solve: U = alpha V
            else:
                self.beta = nn.Parameter(torch.tensor(1.0))

        def heads(self, y, h):
            B, T, _ = y.shape
            return y.view(B, T, h, self.hd).transpose(1, 2)  # B, h, T, hd

        def forward(self, x):
            B, T, _ = x.shape
            G = hq // hkv
            scale = 1.0 / math.sqrt(self.hd)
            Q, K, V = self.heads(self.q(x), hq), self.heads(self.k(x), hkv), self.heads(self.v(x), hkv)
            Kq = K.repeat_interleave(G, dim=1)  # kv group of q-head h: h // G
            if transformer:
                U = self.alpha * V
            else:
                Wp = self.heads(self.w(x), hq)
                A = write_matrix(Wp, Kq, kind, scale) * self.w_weight.view(1, hq, 1, 1)
                A = A.view(B, hkv, G, T, T).mean(2)
                U = u_solve(A, V, self.alpha, self.beta)
            O = read_out(Q, Kq, U.repeat_interleave(G, dim=1), "softmax", scale)
            return x + self.o(O.transpose(1, 2).reshape(B, T, hq * self.hd))

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.g = nn.Parameter(torch.ones(dim))

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.g

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = DeltaAttention()
            if ffn:
                self.norm = RMSNorm()
                self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

        def forward(self, x):
            x = self.attn(x)
            return x + self.mlp(self.norm(x)) if ffn else x

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.node = nn.Embedding(n, dim)
            self.parent = nn.Embedding(n + 2, dim)  # ids 0..n-1, QROOT = n, NONE = n + 1
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.head = nn.Linear(dim, 2, bias=False)

        def forward(self, ids, pid):
            x = self.node(ids) + self.parent(pid)
            for b in self.blocks:
                x = b(x)
            return self.head(x)

    return Net()


# ----------------------------------------------------------------------------------------------------------
# training and evaluation
# ----------------------------------------------------------------------------------------------------------
def linear_schedule(s, warmup, total):
    """transformers' linear schedule: lr factor of update s (0-based)."""
    if s < warmup:
        return s / max(1, warmup)
    return max(0.0, (total - s) / max(1, total - warmup))


def evaluate(model, data, n, chunk=512):
    torch = _torch()
    ids, pid, label = data
    correct = exact = total = 0
    with torch.no_grad():
        for i in range(0, ids.shape[0], chunk):
            lo = model(torch.from_numpy(ids[i:i + chunk]), torch.from_numpy(pid[i:i + chunk]))
            if not torch.isfinite(lo).all():
                return None
            ok = (lo.argmax(-1).numpy() == label[i:i + chunk])[:, 1:]  # nodes other than the designated root
            correct += int(ok.sum())
            exact += int(ok.all(axis=1).sum())
            total += ok.size
    return correct / total, exact / ids.shape[0]


def train_arm(arm, seed_index, args):
    torch = _torch()
    family, layers, kind = arm
    base = args.seed
    torch.manual_seed(int(np.random.SeedSequence([base, seed_index, 3]).generate_state(1)[0]))
    model = build_model(args.nodes, args.dim, args.hq, args.hkv, layers, kind or "linear", family == "transformer", args.ffn)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, betas=(0.9, 0.999), eps=1e-6,
                            weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: linear_schedule(s, args.warmup, args.steps))
    data_rng = np.random.default_rng(np.random.SeedSequence([base, seed_index, 1]))  # same stream in every arm
    lossf = torch.nn.CrossEntropyLoss()
    t0 = time.perf_counter()
    stop, last_loss, first_loss, steps_run = "budget", float("nan"), float("nan"), 0
    for step in range(args.steps):
        ids, pid, label, _ = generate(data_rng, args.batch, args.nodes)
        logits = model(torch.from_numpy(ids), torch.from_numpy(pid))
        loss = lossf(logits.reshape(-1, 2), torch.from_numpy(label).reshape(-1))
        if not torch.isfinite(loss):
            stop = "non-finite"
            break
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        steps_run = step + 1
        last_loss = float(loss)
        if step == 0:
            first_loss = last_loss
    seconds = time.perf_counter() - t0
    eval_rng = np.random.default_rng(np.random.SeedSequence([base, seed_index, 2]))  # same set in every arm
    ids, pid, label, _ = generate(eval_rng, args.eval, args.nodes)
    res = evaluate(model, (ids, pid, label), args.nodes) if stop == "budget" else None
    if res is None:
        stop = "non-finite"
        res = (0.5, 0.0)
    return {"acc": res[0], "exact": res[1], "first_loss": first_loss, "last_loss": last_loss, "stop": stop,
            "steps_run": steps_run, "seconds": seconds}


def arm_name(arm):
    family, layers, kind = arm
    return f"deltaformer-{kind}" if family == "deltaformer" else f"transformer-L{layers}"


def parse_args(argv):
    p = argparse.ArgumentParser(description="A000-EXP-DAG: DAG reachability, DeltaFormer vs Transformer (prints one JSON line)")
    p.add_argument("--quick", action="store_true", help="smoke run: 1 seed, few steps, small evaluation")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (default 5; quick 1)")
    p.add_argument("--steps", type=int, default=None, help="training steps per run (default 1000; quick 5)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--seed", type=int, default=20261122, help="base seed")
    p.add_argument("--nodes", type=int, default=32, help="nodes per instance (even, >= 4; default 32)")
    p.add_argument("--batch", type=int, default=None, help="instances per step (default 32; quick 8)")
    p.add_argument("--eval", type=int, default=None, help="fresh evaluation instances per run (default 2048; quick 32)")
    p.add_argument("--dim", type=int, default=64, help="model width (default 64)")
    p.add_argument("--hq", type=int, default=4, help="query heads (default 4)")
    p.add_argument("--hkv", type=int, default=1, help="key/value heads (default 1)")
    p.add_argument("--lr", type=float, default=0.01, help="AdamW learning rate (default 0.01, Listing 2)")
    p.add_argument("--warmup", type=int, default=None, help="warm-up steps (default 128; quick 2)")
    p.add_argument("--ffn", action="store_true", help="add a pre-RMSNorm GELU MLP to every layer of every arm")
    p.add_argument("--arms", type=str, default=None,
                   help="comma list of arms (deltaformer-linear, deltaformer-round, deltaformer-exp, transformer-L1..L4; default all)")
    p.add_argument("--self-check", type=int, default=None, help="instances of the generator self-check (default 200; quick 20)")
    p.add_argument("--out", type=str, default=None, help="directory for per-run records (nothing is written elsewhere)")
    a = p.parse_args(argv)
    a.seeds = a.seeds if a.seeds is not None else (1 if a.quick else 5)
    a.steps = a.steps if a.steps is not None else (5 if a.quick else 1000)
    a.batch = a.batch if a.batch is not None else (8 if a.quick else 32)
    a.eval = a.eval if a.eval is not None else (32 if a.quick else 2048)
    a.warmup = a.warmup if a.warmup is not None else (2 if a.quick else 128)
    a.self_check = a.self_check if a.self_check is not None else (20 if a.quick else 200)
    for name in ("seeds", "steps", "threads", "batch", "eval", "dim", "hq", "hkv", "self_check"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1 (got {getattr(a, name)})")
    if a.warmup < 0:
        p.error(f"--warmup must be >= 0 (got {a.warmup})")
    if a.nodes < 4 or a.nodes % 2:
        p.error(f"--nodes must be an even number >= 4 (got {a.nodes})")
    if not (a.lr > 0 and math.isfinite(a.lr)):
        p.error(f"--lr must be a positive finite number (got {a.lr})")
    if a.dim % a.hq or a.hq % a.hkv:
        p.error(f"--dim ({a.dim}) must divide by --hq ({a.hq}) and --hq by --hkv ({a.hkv})")
    names = {arm_name(x): x for x in DEFAULT_ARMS}
    if a.arms is None:
        a.arm_list = list(DEFAULT_ARMS)
    else:
        req = [s.strip() for s in a.arms.split(",") if s.strip()]
        bad = [s for s in req if s not in names]
        if bad or not req:
            p.error(f"--arms: unknown arm(s) {bad or '(empty)'}; choose from {sorted(names)}")
        a.arm_list = [names[s] for s in req]
    return a


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    t_start = time.perf_counter()
    torch = _torch()
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    check = self_check(np.random.default_rng(np.random.SeedSequence([args.seed, 99])), args.nodes, args.self_check)
    if not check["passed"]:
        print(f"dag_reachability.py: generator self-check failed: {json.dumps(check)}", file=sys.stderr)
        return 3
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    arms = []
    for arm in args.arm_list:
        family, layers, kind = arm
        runs = [train_arm(arm, s, args) for s in range(args.seeds)]
        rec = {"name": arm_name(arm), "model": family, "layers": layers, "kappa1": kind,
               "acc": [r["acc"] for r in runs], "exact": [r["exact"] for r in runs],
               "first_loss": [r["first_loss"] for r in runs], "last_loss": [r["last_loss"] for r in runs],
               "stop": [r["stop"] for r in runs], "steps_run": [r["steps_run"] for r in runs],
               "seconds": [r["seconds"] for r in runs], "steps": args.steps}
        arms.append(rec)
        print(f"# {rec['name']}: acc {['%.4f' % x for x in rec['acc']]} ({sum(rec['seconds']):.1f} s)", file=sys.stderr)
        if args.out:  # partial record after every arm (a long campaign cut short keeps what it finished)
            with open(os.path.join(args.out, "dag_reachability.partial.json"), "w") as f:
                json.dump({"arms": arms}, f, indent=1)
    result = {"experiment": "A000-EXP-DAG", "quick": args.quick,
              "config": {"nodes": args.nodes, "seeds": args.seeds, "steps": args.steps, "batch": args.batch, "eval": args.eval,
                         "dim": args.dim, "hq": args.hq, "hkv": args.hkv, "lr": args.lr, "weight_decay": 0.01,
                         "warmup": args.warmup, "ffn": args.ffn, "threads": args.threads, "seed": args.seed,
                         "torch": torch.__version__},
              "self_check": check, "arms": arms, "seconds": time.perf_counter() - t_start}
    if args.out:
        with open(os.path.join(args.out, "dag_reachability.json"), "w") as f:
            json.dump(result, f, indent=1)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
