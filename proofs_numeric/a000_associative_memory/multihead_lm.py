#!/usr/bin/env python3
"""A000-EXP-MULTIHEAD / A000-KERNEL-HYP (paper A000 §3.1, Fig. 2; §2.1): a scaled-down GPT-2-like byte-level
language model trained with three attention variants at head counts {1, 2, 4, 8}.

Arms (paper §3.1: "For the linear attention setting, we simply replace the Softmax operation with a linear
kernel function and apply per-head RMS normalization ... we also remove the original normalization term from the
Softmax baseline and apply per-head RMS norm instead"):
  linear   : o_t = RMSNorm_head( sum_{i<=t} v_i (q_t . k_i) )                (linear kernel, per-head RMSNorm)
  exp_rms  : o_t = RMSNorm_head( sum_{i<=t} v_i exp(s q_t . k_i) )           (softmax without its normaliser,
             s = 1/sqrt(d_head), per-head RMSNorm: the paper's softmax baseline of Fig. 2)
  softmax  : o_t = sum_{i<=t} softmax_i(s q_t . k_i) v_i                     (standard softmax with its normaliser,
             no per-head norm: the reference arm of hypothesis (c) of A000-KERNEL-HYP)
The unnormalised exp sum is computed stably as Z_t * softmax-output with Z_t = exp(lse_t): RMSNorm(Z o) =
o / sqrt(mean(o^2) + eps / Z^2), so exp_rms never forms exp of a large logit. (Note: per-head RMSNorm is invariant
to the positive per-row factor Z_t, so exp_rms equals RMSNorm(softmax attention) up to the eps term: removing the
normaliser and adding a per-head RMSNorm is, apart from eps, the same as adding a per-head RMSNorm.)

Model: token embedding (256 bytes) + learned positions, `layers` pre-norm blocks x + Attn(RMSNorm(x)),
x + MLP(RMSNorm(x)) (MLP 4x, GELU), final RMSNorm, LM head tied to the embedding; no biases. The parameter count
is the same for every head count (head dim = hidden / heads; the per-head RMSNorm gain has `hidden` entries per
layer; the `softmax` arm lacks that gain: `layers * hidden` fewer parameters). Initialisation N(0, 0.02), residual
output projections N(0, 0.02 / sqrt(2 layers)); the same seed gives the same initial weights and the same batch
stream in every arm (paired by seed). AdamW (betas 0.9/0.95, weight decay 0.1 on matrices), linear warm-up over
10% of the steps then cosine decay to 10% of the peak rate, gradient clipping at 1.0 (the global norm is recorded
before clipping), fp32, deterministic algorithms, a fixed thread count.

Corpus: the Debian package `fortunes` (/usr/share/games/fortunes): the plain files without an extension (the
`.dat` indices and `.u8` links are skipped), sorted by name, each split into fortunes at lines consisting of "%".
Split: numbering the fortunes 0, 1, 2, ... over the sorted files, fortune j goes to validation when j % 10 == 9,
to training otherwise; each stream is the concatenation of its fortunes, each followed by "%\\n". Tokens are bytes
(vocabulary 256). Training batches are windows of context + 1 bytes at uniform offsets of the training stream
(a torch.Generator seeded by the run seed); validation is the mean cross-entropy over `val_windows` fixed,
evenly spaced, non-overlapping windows of the validation stream (the same for every run).

Prints one JSON object on the last stdout line: config, corpus, per arm (attention, heads) the per-seed final
validation loss, train-loss curve, gradient-norm statistics and per-step norms, seconds. Decisions are made by the
C++ claim checks (proofs_numeric/a000_associative_memory/section3_multihead.cpp), never here.
"""

import argparse
import json
import math
import os
import sys
import time

CORPUS_DIR = "/usr/share/games/fortunes"
ARMS = ("linear", "exp_rms", "softmax")
VOCAB = 256


# ---------------------------------------------------------------------------------------------------------
# corpus
# ---------------------------------------------------------------------------------------------------------
def corpus_files(corpus_dir):
    """The plain fortune files (no extension, regular files, not links), sorted by name."""
    if not os.path.isdir(corpus_dir):
        raise FileNotFoundError(f"corpus directory {corpus_dir} not found (install the Debian package 'fortunes')")
    files = sorted(f for f in os.listdir(corpus_dir)
                   if "." not in f and os.path.isfile(os.path.join(corpus_dir, f))
                   and not os.path.islink(os.path.join(corpus_dir, f)))
    if not files:
        raise FileNotFoundError(f"no fortune files in {corpus_dir} (install the Debian package 'fortunes')")
    return files


def split_fortunes(data):
    """bytes of one fortune file -> list of fortunes (bytes, without the '%' separator lines)."""
    out, cur = [], []
    for line in data.split(b"\n"):
        if line.rstrip(b"\r") == b"%":
            if cur:
                out.append(b"\n".join(cur))
            cur = []
        else:
            cur.append(line)
    tail = b"\n".join(cur).strip(b"\n")
    if tail:
        out.append(tail)
    return [f for f in out if f.strip()]


def load_corpus(corpus_dir=CORPUS_DIR):
    """(train bytes, validation bytes, info). Fortune j (0-based over the sorted files) -> validation iff j % 10 == 9."""
    files = corpus_files(corpus_dir)
    train, val = [], []
    j = 0
    for f in files:
        with open(os.path.join(corpus_dir, f), "rb") as fh:
            for fort in split_fortunes(fh.read()):
                (val if j % 10 == 9 else train).append(fort + b"\n%\n")
                j += 1
    tr, va = b"".join(train), b"".join(val)
    info = {"dir": corpus_dir, "files": len(files), "fortunes": j, "train_fortunes": len(train), "val_fortunes": len(val),
            "train_bytes": len(tr), "val_bytes": len(va),
            "split": "fortune j (0-based, files sorted by name) to validation iff j % 10 == 9"}
    return tr, va, info


# ---------------------------------------------------------------------------------------------------------
# attention cores (tensors [B, H, T, d]; tokens are rows) and the per-head RMSNorm
# ---------------------------------------------------------------------------------------------------------
def causal_mask(T, device=None):
    import torch
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def causal_linear_attention(q, k, v):
    """o_t = sum_{i<=t} v_i (q_t . k_i), written as the masked quadratic form (Q K^T * M) V (no scale)."""
    T = q.shape[-2]
    a = (q @ k.transpose(-1, -2)).masked_fill(~causal_mask(T, q.device), 0.0)
    return a @ v


def causal_softmax_attention(q, k, v, scale, return_lse=False):
    """o_t = sum_{i<=t} softmax_i(scale q_t . k_i) v_i; with return_lse also lse_t = log sum_{i<=t} exp(scale q_t . k_i)."""
    import torch
    T = q.shape[-2]
    logits = (q @ k.transpose(-1, -2)) * scale
    logits = logits.masked_fill(~causal_mask(T, q.device), float("-inf"))
    lse = torch.logsumexp(logits, dim=-1, keepdim=True)
    o = torch.exp(logits - lse) @ v
    return (o, lse) if return_lse else o


def per_head_rms_norm(o, gain, eps, log_scale=None):
    """RMSNorm over each head's vector: o / sqrt(mean_j o_j^2 + eps) * gain, gain [H, d_head].
    With log_scale (shape [B, H, T, 1]) it returns RMSNorm(exp(log_scale) * o) without forming exp(log_scale):
    o / sqrt(mean o^2 + eps * exp(-2 log_scale)) * gain."""
    import torch
    ms = o.pow(2).mean(dim=-1, keepdim=True)
    if log_scale is None:
        den = ms + eps
    else:
        den = ms + eps * torch.exp((-2.0 * log_scale).clamp(max=80.0))
    return o * torch.rsqrt(den) * gain[None, :, None, :]


# ---------------------------------------------------------------------------------------------------------
# model
# ---------------------------------------------------------------------------------------------------------
def dense(x, w):
    """x [..., in] times W^T, W [out, in], as a 1x1 convolution (see Dense)."""
    import torch.nn.functional as F
    lead = x.shape[:-1]
    y = F.conv1d(x.reshape(-1, x.shape[-1], 1), w.unsqueeze(-1))
    return y.reshape(*lead, w.shape[0])


def build_model_classes():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Dense(nn.Module):
        """y = x W^T (no bias), W [out, in]. Computed as a 1x1 convolution over the N = prod(leading dims) rows:
        Debian's torch links the reference (netlib) BLAS, ~1.3 GFLOP/s here, while its oneDNN convolution runs
        ~6x faster on one thread; the result is the same product (another summation order)."""

        def __init__(self, d_in, d_out):
            super().__init__()
            self.weight = nn.Parameter(torch.empty(d_out, d_in))

        def forward(self, x):
            return dense(x, self.weight)

    class RMSNorm(nn.Module):
        def __init__(self, d, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.weight = nn.Parameter(torch.ones(d))

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight

    class Attention(nn.Module):
        def __init__(self, d, heads, kind, eps=1e-5):
            super().__init__()
            if kind not in ARMS:
                raise ValueError(f"attention kind '{kind}' is not one of {ARMS}")
            if heads < 1 or d % heads:
                raise ValueError(f"heads={heads} must divide hidden={d}")
            self.d, self.h, self.dh, self.kind, self.eps = d, heads, d // heads, kind, eps
            self.qkv = Dense(d, 3 * d)
            self.proj = Dense(d, d)
            self.head_gain = nn.Parameter(torch.ones(heads, d // heads)) if kind != "softmax" else None

        def core(self, q, k, v):
            """per-head outputs [B, H, T, dh] from q, k, v [B, H, T, dh] (before the output projection)."""
            if self.kind == "linear":
                return per_head_rms_norm(causal_linear_attention(q, k, v), self.head_gain, self.eps)
            scale = 1.0 / math.sqrt(self.dh)
            if self.kind == "softmax":
                return causal_softmax_attention(q, k, v, scale)
            o, lse = causal_softmax_attention(q, k, v, scale, return_lse=True)
            return per_head_rms_norm(o, self.head_gain, self.eps, log_scale=lse)

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = self.qkv(x).view(B, T, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
            o = self.core(q, k, v)
            return self.proj(o.transpose(1, 2).reshape(B, T, self.d))

    class Block(nn.Module):
        def __init__(self, d, heads, kind):
            super().__init__()
            self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
            self.attn = Attention(d, heads, kind)
            self.fc = Dense(d, 4 * d)
            self.out = Dense(4 * d, d)

        def forward(self, x):
            x = x + self.attn(self.n1(x))
            return x + self.out(F.gelu(self.fc(self.n2(x))))

    class LM(nn.Module):
        def __init__(self, layers, d, heads, kind, context):
            super().__init__()
            self.emb = nn.Embedding(VOCAB, d)
            self.pos = nn.Parameter(torch.zeros(context, d))
            self.blocks = nn.ModuleList([Block(d, heads, kind) for _ in range(layers)])
            self.norm = RMSNorm(d)
            # the same initial weights for every head count and attention kind under one seed: every weight
            # tensor is drawn in a fixed order with a shape that does not depend on heads or kind
            std = 0.02
            nn.init.normal_(self.emb.weight, std=std)
            nn.init.normal_(self.pos, std=std)
            for b in self.blocks:
                nn.init.normal_(b.attn.qkv.weight, std=std)
                nn.init.normal_(b.attn.proj.weight, std=std / math.sqrt(2 * layers))
                nn.init.normal_(b.fc.weight, std=std)
                nn.init.normal_(b.out.weight, std=std / math.sqrt(2 * layers))

        def forward(self, idx):
            T = idx.shape[1]
            x = self.emb(idx) + self.pos[:T]
            for b in self.blocks:
                x = b(x)
            return dense(self.norm(x), self.emb.weight)  # tied LM head

    return LM


# ---------------------------------------------------------------------------------------------------------
# training
# ---------------------------------------------------------------------------------------------------------
def lr_at(step, steps, peak):
    warm = max(1, steps // 10)
    if step < warm:
        return peak * (step + 1) / warm
    p = (step - warm) / max(1, steps - warm)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * p)))


def val_windows(val, context, n):
    """n evenly spaced non-overlapping windows of context + 1 bytes of the validation stream (all when fewer)."""
    import torch
    W = (len(val) - 1) // (context + 1)
    if W < 1:
        raise ValueError("validation stream shorter than one window")
    n = min(n, W)
    starts = [round(i * (W - 1) / max(1, n - 1)) * (context + 1) for i in range(n)] if n > 1 else [0]
    data = torch.frombuffer(bytearray(val), dtype=torch.uint8).long()
    return torch.stack([data[s:s + context + 1] for s in starts])


def evaluate(model, windows, batch=32):
    import torch
    import torch.nn.functional as F
    model.eval()
    tot, cnt = 0.0, 0
    with torch.no_grad():
        for i in range(0, windows.shape[0], batch):
            w = windows[i:i + batch]
            logits = model(w[:, :-1])
            tot += F.cross_entropy(logits.reshape(-1, VOCAB), w[:, 1:].reshape(-1), reduction="sum").item()
            cnt += w[:, 1:].numel()
    model.train()
    return tot / cnt


def grad_stats(norms, steps):
    """statistics of the pre-clip global gradient norms after the warm-up (10% of the steps)."""
    warm = max(1, steps // 10)
    post = [g for g in norms[warm:] if math.isfinite(g)] or [g for g in norms if math.isfinite(g)]
    if not post:
        return {"median": None, "p95": None, "max": None, "spike_ratio": None, "cv": None, "after_step": warm}
    s = sorted(post)
    med = s[len(s) // 2] if len(s) % 2 else 0.5 * (s[len(s) // 2 - 1] + s[len(s) // 2])
    p95 = s[min(len(s) - 1, int(math.ceil(0.95 * len(s))) - 1)]
    mean = sum(s) / len(s)
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / max(1, len(s) - 1))
    return {"median": med, "p95": p95, "max": s[-1], "spike_ratio": s[-1] / med if med > 0 else None,
            "cv": sd / mean if mean > 0 else None, "after_step": warm}


def train_run(LM, train_t, windows, kind, heads, seed, a):
    import torch
    import torch.nn.functional as F
    t0 = time.time()
    torch.manual_seed(seed)
    model = LM(a.layers, a.hidden, heads, kind, a.context)
    nparams = sum(p.numel() for p in model.parameters())
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": a.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.95), eps=1e-8)
    gen = torch.Generator().manual_seed(seed)
    n = train_t.shape[0] - a.context - 1
    ar = torch.arange(a.context + 1)
    losses, norms = [], []
    diverged_at = None
    for step in range(a.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step, a.steps, a.lr)
        off = torch.randint(0, n, (a.batch,), generator=gen)
        w = train_t[off[:, None] + ar]
        logits = model(w[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), w[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = float(torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip))
        lv = float(loss.item())
        losses.append(lv)
        norms.append(gn)
        if not (math.isfinite(lv) and math.isfinite(gn)):
            diverged_at = step + 1  # 1-based step of the first non-finite loss or gradient
            break
        opt.step()
    val = evaluate(model, windows) if diverged_at is None else None
    if val is not None and not math.isfinite(val):
        val, diverged_at = None, a.steps
    # train-loss curve: means over 20 equal segments of the steps run
    seg = max(1, len(losses) // 20)
    curve = [sum(losses[i:i + seg]) / len(losses[i:i + seg]) for i in range(0, len(losses), seg)]
    return {"seed": seed, "val_loss": val, "diverged_at": diverged_at, "params": nparams,
            "final_train_loss": sum(losses[-seg:]) / len(losses[-seg:]) if losses else None,
            "train_loss_curve": [round(x, 5) if math.isfinite(x) else None for x in curve],
            "grad_norm": dict(grad_stats(norms, a.steps), per_step=[float(f"{g:.4g}") if math.isfinite(g) else None for g in norms]),
            "seconds": time.time() - t0}


# ---------------------------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------------------------
def int_list(s):
    try:
        v = [int(x) for x in s.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{s}' is not a comma-separated list of integers")
    if not v or any(x < 1 for x in v):
        raise argparse.ArgumentTypeError(f"'{s}' must list positive integers")
    return v


def arm_list(s):
    v = [x.strip() for x in s.split(",") if x.strip()]
    bad = [x for x in v if x not in ARMS]
    if not v or bad:
        raise argparse.ArgumentTypeError(f"arms '{s}': each must be one of {','.join(ARMS)}")
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: 1 seed, heads 1,4, 3 steps, 2 layers, hidden 64, context 32, batch 8, 8 validation windows")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (default 5; quick 1)")
    p.add_argument("--seed", type=int, default=20261122, help="base seed; run s uses base + 1000003 s (mod 2^31)")
    p.add_argument("--steps", type=int, default=None, help="training steps per run (default 200; quick 3)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--heads", type=int_list, default=None, help="head counts (default 1,2,4,8; quick 1,4)")
    p.add_argument("--softmax-heads", type=int_list, default=None,
                   help="head counts of the 'softmax' arm (with its normaliser; default 1,4; quick 1,4)")
    p.add_argument("--arms", type=arm_list, default=list(ARMS), help="attention kinds: " + ",".join(ARMS))
    p.add_argument("--layers", type=int, default=None, help="default 4; quick 2")
    p.add_argument("--hidden", type=int, default=None, help="default 96; quick 64")
    p.add_argument("--context", type=int, default=None, help="default 64; quick 32")
    p.add_argument("--batch", type=int, default=None, help="default 16; quick 8")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--val-windows", type=int, default=None, help="default 256; quick 8")
    p.add_argument("--corpus-dir", default=CORPUS_DIR)
    p.add_argument("--out", default=None, help="directory for result.json (nothing is written elsewhere)")
    a = p.parse_args(argv)
    q = a.quick
    a.seeds = a.seeds if a.seeds is not None else (1 if q else 5)
    a.steps = a.steps if a.steps is not None else (3 if q else 200)
    a.heads = a.heads if a.heads is not None else ([1, 4] if q else [1, 2, 4, 8])
    a.softmax_heads = a.softmax_heads if a.softmax_heads is not None else [1, 4]
    a.layers = a.layers if a.layers is not None else (2 if q else 4)
    a.hidden = a.hidden if a.hidden is not None else (64 if q else 96)
    a.context = a.context if a.context is not None else (32 if q else 64)
    a.batch = a.batch if a.batch is not None else (8 if q else 16)
    a.val_windows = a.val_windows if a.val_windows is not None else (8 if q else 256)
    for name in ("seeds", "steps", "threads", "layers", "hidden", "context", "batch", "val_windows"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1 (got {getattr(a, name)})")
    if a.seed < 0:
        p.error(f"--seed must be >= 0 (got {a.seed})")
    for name in ("lr", "clip"):
        v = getattr(a, name)
        if not (math.isfinite(v) and v > 0):
            p.error(f"--{name} must be a positive number (got {v})")
    if not (math.isfinite(a.weight_decay) and a.weight_decay >= 0):
        p.error(f"--weight-decay must be >= 0 (got {a.weight_decay})")
    for h in a.heads + a.softmax_heads:
        if a.hidden % h:
            p.error(f"--heads: {h} does not divide --hidden {a.hidden}")
    return a


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    t0 = time.time()
    try:
        train, val, info = load_corpus(a.corpus_dir)
    except FileNotFoundError as e:
        print(f"multihead_lm.py: {e}", file=sys.stderr)
        return 3
    import torch
    torch.set_num_threads(a.threads)
    torch.use_deterministic_algorithms(True)
    LM = build_model_classes()
    train_t = torch.frombuffer(bytearray(train), dtype=torch.uint8).long()
    if train_t.shape[0] <= a.context + 1:
        print("multihead_lm.py: training stream shorter than one window", file=sys.stderr)
        return 3
    windows = val_windows(val, a.context, a.val_windows)
    seeds = [(a.seed + 1000003 * s) % (2 ** 31) for s in range(a.seeds)]
    arms = []
    for kind in a.arms:
        for h in (a.softmax_heads if kind == "softmax" else a.heads):
            runs = []
            for sd in seeds:
                runs.append(train_run(LM, train_t, windows, kind, h, sd, a))
                r = runs[-1]
                print(f"multihead_lm.py: {kind} heads={h} seed={sd}: val {r['val_loss']}, grad-norm median "
                      f"{r['grad_norm']['median']}, {r['seconds']:.1f} s", file=sys.stderr, flush=True)
            arms.append({"attention": kind, "heads": h, "head_dim": a.hidden // h, "params": runs[0]["params"], "runs": runs})
    res = {"script": "multihead_lm.py", "quick": a.quick,
           "config": {"layers": a.layers, "hidden": a.hidden, "context": a.context, "batch": a.batch, "steps": a.steps,
                      "tokens_per_run": a.steps * a.batch * a.context, "lr": a.lr, "weight_decay": a.weight_decay,
                      "clip": a.clip, "val_windows": int(windows.shape[0]), "val_tokens": int(windows.shape[0] * a.context),
                      "threads": a.threads, "seed": a.seed, "seeds": seeds, "heads": a.heads, "softmax_heads": a.softmax_heads,
                      "arms": a.arms,
                      "dtype": "float32", "torch": torch.__version__},
           "corpus": info, "arms": arms, "seconds": time.time() - t0}
    line = json.dumps(res, separators=(",", ":"))
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "result.json"), "w") as fh:
            fh.write(line + "\n")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
