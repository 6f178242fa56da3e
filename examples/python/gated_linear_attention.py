#!/usr/bin/env python3
"""A deliberately simple NumPy implementation of recall's `gated_linear_attention` op.

Reads the inputs written by `recall dump` (q, k, v [B,H,T,d], log_gate [B,H,T], optional s0
[B,H,dv,dk]), runs the recurrence S_t = exp(log_gate_t) S_{t-1} + v_t k_t^T, o_t = S_t q_t token
by token in the inputs' dtype, and saves o and s_final to an .npz that `recall validate` judges.

    recall dump --op gated_linear_attention --shape B=1,H=2,T=37,dk=8,dv=4 --seed 7 \
        --gates zeros_mixed --initial-state --dtype f32 --out in.npz
    python3 gated_linear_attention.py in.npz out.npz
    recall validate --op gated_linear_attention --inputs in.npz --outputs out.npz

--bug applies each gate one token late (a classic off-by-one) to show a failing validation.
"""
import argparse

import numpy as np


def gated_linear_attention(q, k, v, log_gate, s0=None, bug=False):
    B, H, T, dk = q.shape
    dv = v.shape[3]
    dt = q.dtype
    o = np.empty((B, H, T, dv), dtype=dt)
    s_final = np.empty((B, H, dv, dk), dtype=dt)
    for b in range(B):
        for h in range(H):
            S = np.zeros((dv, dk), dtype=dt) if s0 is None else s0[b, h].copy()
            for t in range(T):
                lg = log_gate[b, h, t - 1] if (bug and t > 0) else log_gate[b, h, t]
                a = dt.type(np.exp(lg))  # exact 0 for a -inf log-gate (a reset)
                S = a * S + np.outer(v[b, h, t], k[b, h, t])
                o[b, h, t] = S @ q[b, h, t]
            s_final[b, h] = S
    return o, s_final


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs")
    p.add_argument("outputs")
    p.add_argument("--bug", action="store_true", help="apply each gate one token late")
    args = p.parse_args()
    with np.load(args.inputs) as f:
        arrays = {name: f[name] for name in f.files}
    o, s_final = gated_linear_attention(arrays["q"], arrays["k"], arrays["v"], arrays["log_gate"], arrays.get("s0"), args.bug)
    np.savez(args.outputs, o=o, s_final=s_final)


if __name__ == "__main__":
    main()
