"""A chunked delta rule in PyTorch, written the way GPU-library kernels are: [B, T, H, d] tensors,
bf16 storage, fp32 accumulation, states [B, H, d_k, d_v], `scale` multiplying q (default
1/sqrt(d_k)), the WY/UT form inside each chunk and a sequential pass over chunks.

    S_t = S_{t-1} + beta_t k_t (v_t - S_{t-1}^T k_t)^T,   o_t = S_t^T (scale q_t)

Per chunk of C tokens (K, V, beta its rows; S the state entering it):
    T_c = (I + strict_lower(diag(beta) K K^T))^{-1} diag(beta)     (the UT transform)
    W = T_c K,  U = T_c V,  U' = U - W S                             (corrected values)
    O = scale Q S + tril(scale Q K^T) U',   S <- S + K^T U'

`off_by_one=True` is the classic bug: the intra-chunk causal mask excludes the diagonal, so each
token's output misses its own (corrected) value. The example's test must reject it.
"""

import torch


def chunked_delta_rule(q, k, v, beta, scale=None, initial_state=None, chunk_size=64, off_by_one=False):
    B, T, H, dk = q.shape
    dv = v.shape[-1]
    if scale is None:
        scale = dk ** -0.5
    acc = torch.float32
    # [B, H, T, d] in fp32 for the arithmetic; the inputs stay as stored (bf16 values are exact in fp32)
    qf = q.to(acc).transpose(1, 2) * scale
    kf = k.to(acc).transpose(1, 2)
    vf = v.to(acc).transpose(1, 2)
    bf = beta.to(acc).transpose(1, 2)
    S = torch.zeros(B, H, dk, dv, dtype=acc) if initial_state is None else initial_state.to(acc).clone()
    out = torch.empty(B, H, T, dv, dtype=acc)
    for c0 in range(0, T, chunk_size):
        c1 = min(c0 + chunk_size, T)  # the tail chunk is shorter
        n = c1 - c0
        Q, K, V, b = qf[:, :, c0:c1], kf[:, :, c0:c1], vf[:, :, c0:c1], bf[:, :, c0:c1]
        eye = torch.eye(n, dtype=acc)
        A = eye + torch.tril(b.unsqueeze(-1) * (K @ K.transpose(-1, -2)), diagonal=-1)
        Tc = torch.linalg.solve_triangular(A, torch.diag_embed(b), upper=False, unitriangular=True)
        W, U = Tc @ K, Tc @ V
        Uc = U - W @ S
        mask_diag = -1 if off_by_one else 0
        attn = torch.tril(Q @ K.transpose(-1, -2), diagonal=mask_diag)
        out[:, :, c0:c1] = Q @ S + attn @ Uc
        S = S + K.transpose(-1, -2) @ Uc
    o = out.transpose(1, 2).to(q.dtype)  # back to [B, T, H, dv] in the storage type
    return o, S  # the final state in fp32, [B, H, dk, dv]
