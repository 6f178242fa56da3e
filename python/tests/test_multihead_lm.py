"""Tests of proofs_numeric/a000_associative_memory/multihead_lm.py (A000-EXP-MULTIHEAD, A000-KERNEL-HYP): the
attention cores against the test-bed's multiprecision references (recall.validate of `linear_attention` and
`softmax_attention`), negative controls that the same checks must reject, the causal mask of the whole model, the
per-head RMSNorm and the unnormalised exp form against float64 loops written from their definitions, the corpus
split, the --quick JSON schema and the command line's errors."""

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

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "proofs_numeric", "a000_associative_memory", "multihead_lm.py")
SHAPE = dict(B=2, H=3, T=29, dk=8, dv=8)


@pytest.fixture(scope="module")
def lm():
    spec = importlib.util.spec_from_file_location("multihead_lm", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch.set_num_threads(1)
    return mod


def as_t(x):
    return torch.from_numpy(np.ascontiguousarray(x))


# ---- attention cores against the registry's references -------------------------------------------------------
@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_linear_core_matches_reference(lm, dtype):
    x = recall.generate("linear_attention", SHAPE, seed=11, dtype=dtype)
    q, k, v = as_t(x["q"]), as_t(x["k"]), as_t(x["v"])
    o = lm.causal_linear_attention(q, k, v)
    s_final = torch.einsum("bhtv,bhtk->bhvk", v, k)  # S_T = sum_t v_t k_t^T (canonical d_v x d_k)
    rep = recall.validate("linear_attention", x, {"o": o.numpy(), "s_final": s_final.numpy()})
    assert rep.passed, rep.text


def test_linear_core_without_mask_is_rejected(lm):
    x = recall.generate("linear_attention", SHAPE, seed=12, dtype="f32")
    q, k, v = as_t(x["q"]), as_t(x["k"]), as_t(x["v"])
    o_nomask = (q @ k.transpose(-1, -2)) @ v  # a broken layer: every token sees the future
    s_final = torch.einsum("bhtv,bhtk->bhvk", v, k)
    assert not recall.validate("linear_attention", x, {"o": o_nomask.numpy(), "s_final": s_final.numpy()}).passed


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_softmax_core_matches_reference(lm, dtype):
    x = recall.generate("softmax_attention", SHAPE, seed=13, dtype=dtype)
    s = float(x["scale"][0])
    assert s == pytest.approx(1 / math.sqrt(SHAPE["dk"]))  # the model's scale 1/sqrt(d_head)
    o = lm.causal_softmax_attention(as_t(x["q"]), as_t(x["k"]), as_t(x["v"]), s)
    rep = recall.validate("softmax_attention", x, {"o": o.numpy()})
    assert rep.passed, rep.text


def test_softmax_core_wrong_variants_are_rejected(lm):
    x = recall.generate("softmax_attention", SHAPE, seed=14, dtype="f32")
    q, k, v = as_t(x["q"]), as_t(x["k"]), as_t(x["v"])
    s = float(x["scale"][0])
    wrong_scale = lm.causal_softmax_attention(q, k, v, 1.0)
    assert not recall.validate("softmax_attention", x, {"o": wrong_scale.numpy()}).passed
    # strictly causal mask (current token excluded; the first row would be all -inf, so give it the first value)
    T = q.shape[-2]
    logits = (q @ k.transpose(-1, -2)) * s
    strict = torch.ones(T, T, dtype=torch.bool).tril(-1)
    strict[0, 0] = True
    o_strict = torch.softmax(logits.masked_fill(~strict, float("-inf")), -1) @ v
    assert not recall.validate("softmax_attention", x, {"o": o_strict.numpy()}).passed


# ---- per-head RMSNorm and the unnormalised exp form, against float64 loops ------------------------------------
def rms_loop(o, gain, eps):
    out = np.zeros_like(o)
    B, H, T, d = o.shape
    for b in range(B):
        for h in range(H):
            for t in range(T):
                r = math.sqrt(sum(float(o[b, h, t, j]) ** 2 for j in range(d)) / d + eps)
                out[b, h, t] = o[b, h, t] / r * gain[h]
    return out


def test_per_head_rms_norm_definition(lm):
    g = np.random.default_rng(5)
    o = g.normal(size=(2, 3, 7, 4))
    gain = g.normal(size=(3, 4))
    got = lm.per_head_rms_norm(as_t(o), as_t(gain), 1e-5).numpy()
    np.testing.assert_allclose(got, rms_loop(o, gain, 1e-5), rtol=1e-12, atol=0)
    # the norm is per head: scaling one head's vector leaves every output unchanged (eps = 0)
    o2 = o.copy()
    o2[:, 1] *= 7.0
    np.testing.assert_allclose(lm.per_head_rms_norm(as_t(o2), as_t(gain), 0.0).numpy(),
                               lm.per_head_rms_norm(as_t(o), as_t(gain), 0.0).numpy(), rtol=1e-12)
    # a whole-vector (not per-head) RMSNorm is a different function: the check can tell
    flat = o.transpose(0, 2, 1, 3).reshape(2, 7, 12)
    whole = flat / np.sqrt((flat ** 2).mean(-1, keepdims=True) + 1e-5)
    whole = whole.reshape(2, 7, 3, 4).transpose(0, 2, 1, 3) * gain[None, :, None, :]
    assert np.abs(whole - rms_loop(o, gain, 1e-5)).max() > 1e-3


def test_exp_rms_core_is_rmsnorm_of_the_unnormalised_sum(lm):
    """exp_rms: RMSNorm(sum_{i<=t} v_i exp(s q_t.k_i)), computed stably via the softmax output and lse."""
    g = np.random.default_rng(6)
    B, H, T, d = 1, 2, 9, 4
    q, k, v = (g.normal(size=(B, H, T, d)) * 2.0 for _ in range(3))
    gain = g.normal(size=(H, d))
    s, eps = 1 / math.sqrt(d), 1e-2  # a large eps makes the eps / Z^2 term matter
    ref = np.zeros((B, H, T, d))
    for h in range(H):
        for t in range(T):
            ref[0, h, t] = sum(v[0, h, i] * math.exp(s * float(q[0, h, t] @ k[0, h, i])) for i in range(t + 1))
    ref = rms_loop(ref, gain, eps)
    mod = lm.build_model_classes()(1, H * d, H, "exp_rms", T).blocks[0].attn.double()
    mod.eps = eps
    with torch.no_grad():
        mod.head_gain.copy_(as_t(gain))
        got = mod.core(as_t(q), as_t(k), as_t(v)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    # the normalised softmax + RMSNorm with the plain eps differs where eps / Z^2 differs from eps
    o = lm.causal_softmax_attention(as_t(q), as_t(k), as_t(v), s)
    plain = lm.per_head_rms_norm(o, as_t(gain), eps).numpy()
    assert np.abs(plain - ref).max() > 1e-6


# ---- the whole model is causal ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["linear", "exp_rms", "softmax"])
def test_future_tokens_do_not_change_past_outputs(lm, kind):
    torch.manual_seed(0)
    model = lm.build_model_classes()(2, 32, 4, kind, 16).double()
    idx = torch.randint(0, 256, (2, 16))
    idx2 = idx.clone()
    idx2[:, 9:] = (idx2[:, 9:] + 17) % 256
    with torch.no_grad():
        a, b = model(idx), model(idx2)
    assert torch.equal(a[:, :9], b[:, :9])
    assert (a[:, 9:] - b[:, 9:]).abs().max() > 1e-6  # the change is visible where it may be


def test_same_seed_same_initial_weights_for_every_head_count(lm):
    LM = lm.build_model_classes()
    torch.manual_seed(3)
    a = LM(2, 32, 1, "linear", 16)
    torch.manual_seed(3)
    b = LM(2, 32, 8, "exp_rms", 16)
    pa, pb = dict(a.named_parameters()), dict(b.named_parameters())
    assert pa.keys() == pb.keys()
    assert all(torch.equal(pa[n].flatten(), pb[n].flatten()) for n in pa)  # head_gain: [1, 32] vs [8, 4]
    with pytest.raises(ValueError, match="heads=3"):
        LM(1, 32, 3, "linear", 16)


# ---- corpus -----------------------------------------------------------------------------------------------------
def test_split_rule_on_a_known_corpus(lm, tmp_path):
    (tmp_path / "b").write_bytes(b"".join(b"b%d\n%%\n" % i for i in range(12)))
    (tmp_path / "a").write_bytes(b"a0\n%\na1 line one\nline two\n%\n")
    (tmp_path / "a.dat").write_bytes(b"\x00index")
    os.symlink(tmp_path / "a", tmp_path / "a.u8")
    tr, va, info = lm.load_corpus(str(tmp_path))
    order = [b"a0", b"a1 line one\nline two"] + [b"b%d" % i for i in range(12)]  # files sorted, .dat/.u8 skipped
    assert info["files"] == 2 and info["fortunes"] == 14
    assert va == b"".join(f + b"\n%\n" for j, f in enumerate(order) if j % 10 == 9) == b"b7\n%\n"
    assert tr == b"".join(f + b"\n%\n" for j, f in enumerate(order) if j % 10 != 9)


def test_fortunes_split_is_deterministic_and_disjoint(lm):
    if not os.path.isdir(lm.CORPUS_DIR):
        pytest.skip("Debian package 'fortunes' not installed")
    tr, va, info = lm.load_corpus()
    tr2, va2, _ = lm.load_corpus()
    assert tr == tr2 and va == va2
    assert info["val_fortunes"] == info["fortunes"] // 10 and info["train_fortunes"] + info["val_fortunes"] == info["fortunes"]
    # disjoint by index: re-split every fortune and check each lands in exactly one stream, in order
    allf = []
    for f in lm.corpus_files(lm.CORPUS_DIR):
        with open(os.path.join(lm.CORPUS_DIR, f), "rb") as fh:
            allf += lm.split_fortunes(fh.read())
    assert tr == b"".join(x + b"\n%\n" for j, x in enumerate(allf) if j % 10 != 9)
    assert va == b"".join(x + b"\n%\n" for j, x in enumerate(allf) if j % 10 == 9)
    assert len(tr) + len(va) == sum(len(x) + 3 for x in allf)


# ---- command line -----------------------------------------------------------------------------------------------
def run_script(*args, timeout=60):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=timeout)


def test_quick_json_schema():
    r = run_script("--quick", "--steps", "2", "--arms", "linear,softmax")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["quick"] is True and res["config"]["steps"] == 2 and res["corpus"]["files"] > 0
    arms = {(a["attention"], a["heads"]) for a in res["arms"]}
    assert arms == {("linear", 1), ("linear", 4), ("softmax", 1), ("softmax", 4)}
    for a in res["arms"]:
        assert a["head_dim"] * a["heads"] == res["config"]["hidden"]
        (run,) = a["runs"]
        assert math.isfinite(run["val_loss"]) and run["diverged_at"] is None and run["seconds"] > 0
        gn = run["grad_norm"]
        assert len(gn["per_step"]) == 2 and all(x > 0 for x in gn["per_step"])
        assert {"median", "p95", "max", "spike_ratio", "cv"} <= gn.keys()
    p = {a["params"] for a in res["arms"] if a["attention"] == "linear"}
    assert len(p) == 1  # the same parameter count for every head count


@pytest.mark.parametrize("args,msg", [
    (["--heads", "1,3"], "does not divide"),
    (["--steps", "0"], "--steps"),
    (["--arms", "linear,relu"], "arms"),
    (["--lr", "nan"], "--lr"),
    (["--heads", "x"], "integers"),
])
def test_bad_arguments_exit_nonzero(args, msg):
    r = run_script("--quick", *args)
    assert r.returncode != 0 and msg in r.stderr


def test_missing_corpus_names_path_and_package(tmp_path):
    missing = str(tmp_path / "nope")
    r = run_script("--quick", "--corpus-dir", missing)
    assert r.returncode != 0 and missing in r.stderr and "fortunes" in r.stderr


def test_runs_are_reproducible():
    def strip(o):
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items() if k != "seconds"}
        return [strip(x) for x in o] if isinstance(o, list) else o

    args = ("--quick", "--steps", "3", "--arms", "exp_rms", "--heads", "1")
    a, b = run_script(*args), run_script(*args)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    ja, jb = (strip(json.loads(r.stdout.strip().splitlines()[-1])) for r in (a, b))
    assert ja == jb
