"""Tests of the Python module: layouts, state layouts, the q scale, dtype inference, bad input,
claims, and the pytest fixture. Kernels here are small float64 NumPy recurrences written from the
ops' definitions (`recall.ops()`), in the layout under test."""

import math

import numpy as np
import pytest

import recall


def gla_bthd_kv(q, k, v, log_gate, s0, scale=1.0):
    """gated linear attention in [B, T, H, d], state [B, H, dk, dv]: S_t = a_t S + k v^T, o = S^T (scale q)"""
    B, T, H, dk = q.shape
    S = s0.astype(np.float64).copy()
    o = np.zeros(v.shape)
    for t in range(T):
        a = np.exp(log_gate[:, t, :])[:, :, None, None]
        S = a * S + np.einsum("bhk,bhv->bhkv", k[:, t], v[:, t])
        o[:, t] = np.einsum("bhkv,bhk->bhv", S, scale * q[:, t])
    return o, S


def softmax_bhtd(q, k, v, scale):
    B, H, T, dk = q.shape
    logits = scale * np.einsum("bhtd,bhsd->bhts", q, k)
    logits = np.where(np.tril(np.ones((T, T), bool)), logits, -np.inf)
    logits -= logits.max(-1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(-1, keepdims=True)
    return p @ v


SHAPE = dict(B=1, H=2, T=37, dk=8, dv=8)


@pytest.fixture(scope="module")
def gla():
    x = recall.generate("gated_linear_attention", SHAPE, seed=3, dtype="f64", layout="bthd", state_layout="kv",
                        initial_state=True, gates="zeros_mixed")
    o, s = gla_bthd_kv(x["q"], x["k"], x["v"], x["log_gate"], x["s0"])
    return x, {"o": o, "s_final": s}


def test_generate_layouts_are_transposes():
    a = recall.generate("gated_linear_attention", SHAPE, seed=5, initial_state=True)
    b = recall.generate("gated_linear_attention", SHAPE, seed=5, initial_state=True, layout="bthd", state_layout="kv")
    assert a["q"].shape == (1, 2, 37, 8) and b["q"].shape == (1, 37, 2, 8)
    np.testing.assert_array_equal(a["q"], b["q"].transpose(0, 2, 1, 3))
    np.testing.assert_array_equal(a["log_gate"], b["log_gate"].transpose(0, 2, 1))
    np.testing.assert_array_equal(a["s0"], b["s0"].transpose(0, 1, 3, 2))


def test_generate_dtypes_and_default_scale():
    x = recall.generate("softmax_attention", SHAPE, seed=1, dtype="f16")
    assert x["q"].dtype == np.float16
    assert x["scale"].tolist() == [1 / math.sqrt(8)]  # the documented default, written explicitly
    y = recall.generate("softmax_attention", SHAPE, seed=1, scale=0.5)
    assert y["scale"].tolist() == [0.5]


def test_validate_bthd_kv_passes(gla):
    x, out = gla
    rep = recall.validate("gated_linear_attention", x, out, layout="bthd", state_layout="kv")
    assert rep.passed, rep.text
    assert rep.dtype == "f64" and "no q scale" in rep.scale
    assert "layout bthd" in str(rep)


def test_state_layout_mixup_fails(gla):
    # square states: the transposed state has the right shape, so only the numbers can tell
    x, out = gla
    rep = recall.validate("gated_linear_attention", x, out, layout="bthd", state_layout="vk")
    assert not rep.passed


def test_q_scale_for_ops_without_scale_input():
    x = recall.generate("gated_linear_attention", SHAPE, seed=4, dtype="f64", layout="bthd", state_layout="kv", initial_state=True)
    o, s = gla_bthd_kv(x["q"], x["k"], x["v"], x["log_gate"], x["s0"], scale=0.125)
    out = {"o": o, "s_final": s}
    assert recall.validate("gated_linear_attention", x, out, layout="bthd", state_layout="kv", scale=0.125).passed
    assert not recall.validate("gated_linear_attention", x, out, layout="bthd", state_layout="kv").passed


def test_scale_input_of_softmax():
    x = recall.generate("softmax_attention", SHAPE, seed=2, dtype="f64")
    s = x.pop("scale")[0]  # a kernel using the default 1/sqrt(dk)
    o = softmax_bhtd(x["q"], x["k"], x["v"], s)
    rep = recall.validate("softmax_attention", x, {"o": o})
    assert rep.passed and "default 1/sqrt(d_k)" in rep.scale
    assert recall.validate("softmax_attention", x, {"o": o}, scale=s).passed
    assert not recall.validate("softmax_attention", x, {"o": o}, scale=1.0).passed
    with pytest.raises(ValueError, match="scale"):  # the file's scale and the argument disagree
        recall.validate("softmax_attention", dict(x, scale=np.array([0.5])), {"o": o}, scale=1.0)


def test_dtype_inference_and_torch_bf16():
    torch = pytest.importorskip("torch")
    x = recall.generate("gated_linear_attention", SHAPE, seed=6, dtype="bf16", layout="bthd", state_layout="kv",
                        initial_state=True, as_torch=True)
    assert x["q"].dtype == torch.bfloat16
    xd = {k: v.double().numpy() for k, v in x.items()}
    o, s = gla_bthd_kv(xd["q"], xd["k"], xd["v"], xd["log_gate"], xd["s0"])
    out = {"o": torch.from_numpy(o).to(torch.bfloat16), "s_final": torch.from_numpy(s).to(torch.bfloat16)}
    rep = recall.validate("gated_linear_attention", x, out, layout="bthd", state_layout="kv")
    assert rep.dtype == "bf16" and rep.passed, rep.text
    with pytest.raises(ValueError, match="different dtypes"):
        recall.validate("gated_linear_attention", x, {"o": out["o"], "s_final": torch.from_numpy(s).float()}, layout="bthd",
                        state_layout="kv")


def test_bad_input_is_named(gla):
    x, out = gla
    bad = dict(x)
    bad["q"] = x["q"].copy()
    bad["q"][0, 3, 1, 2] = np.nan
    with pytest.raises(ValueError, match="'q'"):
        recall.validate("gated_linear_attention", bad, out, layout="bthd", state_layout="kv")
    with pytest.raises(ValueError, match="unknown layout"):
        recall.validate("gated_linear_attention", x, out, layout="tbhd")
    with pytest.raises(ValueError, match="nope"):
        recall.validate("nope", x, out)
    with pytest.raises(ValueError, match="missing output 's_final'"):
        recall.validate("gated_linear_attention", x, {"o": out["o"]}, layout="bthd", state_layout="kv")
    with pytest.raises(ValueError, match="dtype"):
        recall.validate("gated_linear_attention", x, {k: v.tolist() for k, v in out.items()}, layout="bthd", state_layout="kv")


def test_check_claim():
    r = recall.check("A000-AM-OUTER")
    assert r.verdict == "holds" and r["id"] == "A000-AM-OUTER"
    assert [c["id"] for c in recall.check(["A004-UPD-LA", "A001-LINATTN"])] == ["A004-UPD-LA", "A001-LINATTN"]
    with pytest.raises(ValueError, match="A999-NOPE"):
        recall.check("A999-NOPE")


def test_fixture_fails_with_the_report(gla, recall_validate):
    x, out = gla
    assert recall_validate("gated_linear_attention", x, out, layout="bthd", state_layout="kv")
    wrong = {"o": out["o"] * (1 + 1e-6), "s_final": out["s_final"]}
    with pytest.raises(pytest.fail.Exception, match="rejected"):
        recall_validate("gated_linear_attention", x, wrong, layout="bthd", state_layout="kv")


def test_ops_lists_layouts():
    names = {o["name"]: o for o in recall.ops()}
    assert "delta_rule" in names
    assert any(i["name"] == "beta" and i["shape"] == "B,H,T" for i in names["delta_rule"]["inputs"])
