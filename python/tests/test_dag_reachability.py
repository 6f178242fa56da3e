"""Tests of the A000-EXP-DAG experiment script (proofs_numeric/a000_associative_memory/dag_reachability.py):
the two-tree generator against an independent traversal and the recursive-tree law, the DeltaFormer layer's
pieces (kappa1, u-solve, read-out) against explicit float64 loops written from the definitions and against the
project's registered `deltaformer_u` op (recall.validate), negative controls, the --quick JSON schema,
determinism, and bad arguments."""

import importlib.util
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import recall

torch = pytest.importorskip("torch")

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "proofs_numeric", "a000_associative_memory", "dag_reachability.py")
SCRIPT = os.path.abspath(SCRIPT)


@pytest.fixture(scope="module")
def dag():
    spec = importlib.util.spec_from_file_location("dag_reachability", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---- generator ------------------------------------------------------------------------------------------
def reach_from_first(ids, pid, n):
    """Labels by a breadth-first search from the first token over child edges (the reverse of what the
    script's own self-check follows): 1 for every node reachable from the designated root."""
    children = {}
    for i, p in zip(ids.tolist(), pid.tolist()):
        children.setdefault(p, []).append(i)
    assert pid[0] == n, "the first token must be the designated root"
    seen, queue = {int(ids[0])}, [int(ids[0])]
    while queue:
        x = queue.pop()
        for c in children.get(x, []):
            if c not in seen:
                seen.add(c)
                queue.append(c)
    return np.array([1 if i in seen else 0 for i in ids.tolist()])


@pytest.mark.parametrize("n", [4, 8, 32])
def test_labels_match_bfs_from_the_root(dag, n):
    rng = np.random.default_rng(11)
    ids, pid, label, cls = dag.generate(rng, 300, n)
    for r in range(ids.shape[0]):
        np.testing.assert_array_equal(reach_from_first(ids[r], pid[r], n), label[r])
        pos = {int(i): t for t, i in enumerate(ids[r])}
        for t in range(n):  # topological: the parent precedes the child
            if pid[r, t] < n:
                assert pos[int(pid[r, t])] < t
    assert ((pid == n).sum(1) == 1).all() and ((pid == n + 1).sum(1) == 1).all()  # one root of each kind
    assert (np.sort(ids, 1) == np.arange(n)).all()


def test_class_balance_and_random_interleaving(dag):
    n, B = 32, 4000
    ids, pid, label, cls = dag.generate(np.random.default_rng(5), B, n)
    assert (label.sum(1) == n // 2).all()  # exactly half reachable, every instance
    # position 2 holds a node of the designated tree with probability (m-1)/(n-1) = 15/31 (uniform interleaving)
    p, f = 15 / 31, label[:, 1].mean()
    assert abs(f - p) < 4 * math.sqrt(p * (1 - p) / B)
    # the other root is the first node of its tree: right behind the designated root with probability m/(n-1) = 16/31
    other_root_pos = np.argmax(pid == n + 1, axis=1)
    p1, f1 = 16 / 31, (other_root_pos == 1).mean()
    assert other_root_pos.min() >= 1 and abs(f1 - p1) < 4 * math.sqrt(p1 * (1 - p1) / B)


def test_recursive_tree_depths(dag):
    """Uniform random recursive trees: local node i has expected depth H_i = 1 + 1/2 + ... + 1/i; the mean depth
    of the non-root nodes over many trees must match (1/(m-1)) sum_i H_i (4-sigma Monte Carlo band)."""
    n, B = 16, 3000
    m = n // 2
    ids, pid, label, cls = dag.generate(np.random.default_rng(9), B, n)
    depths = []
    for r in range(B):
        parent = dict(zip(ids[r].tolist(), pid[r].tolist()))
        for i in ids[r].tolist():
            d, x = 0, i
            while parent[x] < n:
                x, d = parent[x], d + 1
            if d > 0:
                depths.append(d)
    depths = np.array(depths, float)
    H = np.cumsum(1 / np.arange(1, m))
    expect = H.mean()
    assert abs(depths.mean() - expect) < 4 * depths.std() / math.sqrt(len(depths) / m)  # ~B*2 trees, within-tree correlation
    # a broken law (parent always the previous node: a path) would give mean depth (m)/2 = 4 vs ~2.0
    assert expect < 2.6


def test_generator_rejects_bad_sizes(dag):
    with pytest.raises(ValueError, match="nodes"):
        dag.generate(np.random.default_rng(0), 2, 7)
    with pytest.raises(ValueError, match="batch"):
        dag.generate(np.random.default_rng(0), 0, 8)


def test_self_check_catches_wrong_labels(dag, monkeypatch):
    assert dag.self_check(np.random.default_rng(1), 12, 30)["passed"]
    real = dag.generate

    def flipped(rng, batch, n):
        ids, pid, label, cls = real(rng, batch, n)
        label = label.copy()
        label[0, -1] ^= 1  # one wrong label
        return ids, pid, label, cls

    monkeypatch.setattr(dag, "generate", flipped)
    chk = dag.self_check(np.random.default_rng(1), 12, 30)
    assert not chk["passed"] and chk["label_mismatches"] == 1


# ---- model components ----------------------------------------------------------------------------------
def forward_substitution(A, V, alpha, beta):
    """u_s = alpha v_s - beta_s sum_{t<s} A[s, t] u_t, float64 loops (A000-TOY-SOLVE / DELTAFORMER-GEN)."""
    T = A.shape[0]
    beta = np.broadcast_to(np.asarray(beta, float), (T,))
    U = np.zeros_like(V, dtype=float)
    for s in range(T):
        acc = np.zeros(V.shape[1])
        for t in range(s):
            acc += A[s, t] * U[t]
        U[s] = alpha * V[s] - beta[s] * acc
    return U


def kappa1_loop(a, kind):
    return {"linear": lambda x: x, "exp": math.exp, "round": lambda x: float(np.round(x))}[kind](a)


@pytest.mark.parametrize("kind", ["linear", "round", "exp"])
def test_u_solve_against_forward_substitution(dag, kind):
    g = torch.Generator().manual_seed(3)
    T, d = 23, 5
    W = torch.randn(T, d, generator=g, dtype=torch.float64)
    K = torch.randn(T, d, generator=g, dtype=torch.float64)
    V = torch.randn(T, 4, generator=g, dtype=torch.float64)
    scale = 0.3
    A = dag.write_matrix(W, K, kind, scale)
    # write matrix entries from the definition: kappa1(scale w_s . k_t) for t < s, 0 elsewhere
    Wn, Kn = W.numpy(), K.numpy()
    A_loop = np.zeros((T, T))
    for s in range(T):
        for t in range(s):
            A_loop[s, t] = kappa1_loop(scale * float(Wn[s] @ Kn[t]), kind)
    np.testing.assert_allclose(A.numpy(), A_loop, rtol=1e-13, atol=1e-13)
    alpha, beta = 0.7, 0.9
    U = dag.u_solve(A, V, alpha, beta).numpy()
    ref = forward_substitution(A_loop, V.numpy(), alpha, beta)
    err = np.abs(U - ref).max() / np.abs(ref).max()
    assert err < 1e-12, err
    # negative control: the solve with the sign of beta flipped (the +A / -A confusion) must fail the same check
    bad = dag.u_solve(A, V, alpha, -beta).numpy()
    assert np.abs(bad - ref).max() / np.abs(ref).max() > 1e-3


def test_round_kappa1_half_even_and_straight_through(dag):
    a = torch.tensor([0.5, 1.5, 2.5, -0.5, 0.49, -1.51], dtype=torch.float64, requires_grad=True)
    y = dag.kappa1_apply(a, "round")
    assert y.detach().tolist() == [0.0, 2.0, 2.0, -0.0, 0.0, -2.0]
    c = torch.arange(1.0, 7.0, dtype=torch.float64)
    (y * c).sum().backward()
    assert a.grad.tolist() == c.tolist()  # d round(a) / da := 1
    with pytest.raises(ValueError, match="kappa1"):
        dag.kappa1_apply(a, "relu")


def registered_inputs(B=2, H=2, T=19, dk=6, dv=5, seed=4):
    g = np.random.default_rng(seed)
    q = g.standard_normal((B, H, T, dk)) * 0.5
    k = g.standard_normal((B, H, T, dk)) * 0.5
    v = g.standard_normal((B, H, T, dv))
    beta = g.uniform(0.2, 1.0, (B, H, T))
    return {"q": q, "k": k, "v": v, "scale": np.array([0.4]), "beta": beta}


def script_deltaformer_u(dag, x, beta_sign=1.0):
    q, k, v, beta = (torch.from_numpy(x[n]) for n in ("q", "k", "v", "beta"))
    s = float(x["scale"][0])
    A = dag.write_matrix(k, k, "exp", s)  # the registered op writes with w = k and kappa1 = exp
    U = dag.u_solve(A, v, 1.0, beta_sign * beta)
    O = dag.read_out(q, k, U, "exp", s)
    return {"u": U.numpy(), "o": O.numpy()}


def test_u_solve_against_registered_op(dag):
    x = registered_inputs()
    out = script_deltaformer_u(dag, x)
    rep = recall.validate("deltaformer_u", x, out)
    assert rep.passed, rep.text
    # negative control: a wrong u (beta's sign flipped in the solve) must fail the registered op's check
    bad = script_deltaformer_u(dag, x, beta_sign=-1.0)
    assert not recall.validate("deltaformer_u", x, bad).passed


def test_softmax_read_out_against_loop(dag):
    g = torch.Generator().manual_seed(8)
    T, d = 11, 3
    Q, K, U = (torch.randn(T, d, generator=g, dtype=torch.float64) for _ in range(3))
    O = dag.read_out(Q, K, U, "softmax", 0.5).numpy()
    for s in range(T):
        w = np.array([math.exp(0.5 * float(Q[s] @ K[t])) for t in range(s + 1)])
        np.testing.assert_allclose(O[s], (w / w.sum()) @ U[: s + 1].numpy(), rtol=1e-12)


def test_transformer_arm_has_no_u_solve(dag):
    """beta = 0 fixed (a buffer, not a parameter): the layer's U is alpha V."""
    torch.manual_seed(0)
    net = dag.build_model(8, 16, 4, 1, 2, "linear", True, False)
    names = [n for n, _ in net.named_parameters()]
    assert not any(n.endswith(".beta") for n in names)
    assert all(float(b.attn.beta) == 0.0 for b in net.blocks)
    df = dag.build_model(8, 16, 4, 1, 1, "exp", False, False)
    assert any(n.endswith(".beta") for n, _ in df.named_parameters())


# ---- the script -------------------------------------------------------------------------------------------
def run_script(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=120)


def test_quick_json_schema():
    p = run_script("--quick", "--seed", "7")
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout.strip().splitlines()[-1])
    assert j["experiment"] == "A000-EXP-DAG" and j["quick"] is True
    assert j["self_check"]["passed"] and j["self_check"]["label_mismatches"] == 0
    names = [a["name"] for a in j["arms"]]
    assert names == ["deltaformer-linear", "deltaformer-round", "deltaformer-exp", "transformer-L1", "transformer-L2",
                     "transformer-L3", "transformer-L4"]
    for a in j["arms"]:
        assert a["model"] in ("deltaformer", "transformer")
        assert a["layers"] == (1 if a["model"] == "deltaformer" else int(a["name"][-1]))
        assert (a["kappa1"] is None) == (a["model"] == "transformer")
        for key in ("acc", "exact", "first_loss", "last_loss", "stop", "steps_run", "seconds"):
            assert len(a[key]) == j["config"]["seeds"] == 1, key
        assert all(0 <= x <= 1 for x in a["acc"] + a["exact"])
        assert a["steps"] == j["config"]["steps"]


def test_deterministic_given_arguments(dag, capsys):
    args = ["--arms", "deltaformer-round,transformer-L2", "--steps", "4", "--batch", "4", "--eval", "16", "--seeds", "2",
            "--self-check", "5", "--warmup", "1", "--nodes", "8"]
    outs = []
    for _ in range(2):
        assert dag.main(args) == 0
        j = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        outs.append([(a["acc"], a["last_loss"]) for a in j["arms"]])
    assert outs[0] == outs[1]


@pytest.mark.parametrize("bad", [["--nodes", "31"], ["--nodes", "2"], ["--seeds", "0"], ["--steps", "-1"], ["--threads", "0"],
                                 ["--arms", "transformer-L9"], ["--dim", "30", "--hq", "4"], ["--lr", "nan"], ["--steps", "x"]])
def test_bad_arguments_exit_nonzero(bad):
    p = run_script(*bad)
    assert p.returncode != 0
    assert p.stderr.strip() and p.stdout.strip() == ""
    flag = bad[0].lstrip("-")
    assert flag in p.stderr
