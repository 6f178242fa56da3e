"""The worked example: a PyTorch chunked delta rule in the [B, T, H, d] convention with bf16 inputs,
validated against the multiprecision reference through the `recall` module, in one line per test.
Its off-by-one twin must be rejected. Run: PYTHONPATH=build/python python3 -m pytest examples/python/torch
"""

import pytest
import torch

import recall
from chunked_delta_rule import chunked_delta_rule

# a realistic shape: T not a multiple of the chunk (a tail chunk), d = 64, two heads, batch 2
SHAPE = dict(B=2, H=2, T=1000, dk=64, dv=64)
KW = dict(layout="bthd", state_layout="kv")


@pytest.fixture(scope="module")
def inputs():
    # unit keys and beta |k|^2 in [0, 1] (a contraction): well-conditioned, so the budget is tight
    return recall.generate("delta_rule", SHAPE, seed=7, dtype="bf16", keys="unit_sphere", betas="unit_interval",
                           initial_state=True, as_torch=True, **KW)


def run(inputs, **kw):
    o, s = chunked_delta_rule(inputs["q"], inputs["k"], inputs["v"], inputs["beta"], scale=SHAPE["dk"] ** -0.5,
                              initial_state=inputs["s0"].float(), **kw)
    return {"o": o, "s_final": s}


def test_chunked_delta_rule_bf16(recall_validate, inputs):
    # outputs: o in bf16, the final state in fp32 (as GPU libraries return it): judged at bf16
    rep = recall_validate("delta_rule", inputs, run(inputs), scale=SHAPE["dk"] ** -0.5, dtype="bf16", **KW)
    assert rep.passed and "q scaled by 0.125" in rep.scale
    assert {r["output"] for r in rep.results} == {"o", "s_final"}



def test_kernel_wrong_by_5_percent_is_rejected(inputs):
    # the budget means something in bf16: outputs 5 % too large fail (measured: 3 % passes, at
    # 0.90 of the budget; the bf16 budget of this op is dominated by its sensitivity term)
    out = run(inputs)
    out["o"] = (out["o"].float() * 1.05).to(torch.bfloat16)
    assert not recall.validate("delta_rule", inputs, out, scale=SHAPE["dk"] ** -0.5, dtype="bf16", **KW).passed


def test_off_by_one_twin_is_rejected(inputs):
    rep = recall.validate("delta_rule", inputs, run(inputs, off_by_one=True), scale=SHAPE["dk"] ** -0.5, dtype="bf16", **KW)
    assert not rep.passed, rep.text
    assert any(r["output"] == "o" and not r["pass"] for r in rep.results)


def test_forgotten_q_scale_is_rejected(inputs):
    # the kernel scales q by 1/sqrt(dk); a validation that forgets to say so must fail, not pass silently
    rep = recall.validate("delta_rule", inputs, run(inputs), dtype="bf16", **KW)
    assert not rep.passed and "no q scale" in rep.scale


def test_wrong_layout_is_an_error(inputs):
    with pytest.raises(ValueError, match="shape"):
        recall.validate("delta_rule", inputs, run(inputs), scale=SHAPE["dk"] ** -0.5, dtype="bf16", layout="bhtd",
                        state_layout="kv")
