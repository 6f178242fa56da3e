"""recall: judge a sequence-layer kernel against multiprecision references, from Python.

    import recall
    inputs = recall.generate("delta_rule", dict(B=2, T=1024, H=4, dk=64, dv=64), seed=1,
                             layout="bthd", state_layout="kv", dtype="bf16")
    o, s = my_kernel(**inputs)                     # your kernel, [B, T, H, d] tensors
    rep = recall.validate("delta_rule", inputs, {"o": o, "s_final": s},
                          layout="bthd", state_layout="kv")
    assert rep.passed, rep

Conventions (`recall validate --list-ops` documents every op):
  layout        "bhtd" (canonical: tokens [B, H, T, d], scalars [B, H, T]) or "bthd"
                ([B, T, H, d] and [B, T, H]: PyTorch and most GPU libraries)
  state_layout  "vk" (canonical S, [B, H, d_v, d_k], S q = read-out) or "kv" ([B, H, d_k, d_v])
  scale         multiplies q.k. Ops with a `scale` input (softmax_attention, deltaformer_*) take it
                as that input (default 1/sqrt(d_k)); the others (linear attention, the delta rule)
                multiply q by it (default: none). The report says which scale was used.
  dtype         the storage precision the kernel ran in: "bf16", "f16" (fp32 accumulation
                assumed), "f32" or "f64"; default: the outputs' dtype.

Arrays: NumPy arrays, anything with __array__, or PyTorch tensors (CPU or GPU; bf16 accepted:
its values are exact in float32). They are converted to float64 for the reference, which is
exact for every storage format.
"""

import json as _json

from . import _recall

__all__ = ["validate", "generate", "check", "ops", "Report", "ClaimResult"]

_DTYPES = ("bf16", "f16", "f32", "f64")


def _dtype_name(a):
    """The storage dtype of an array-like, as recall names it (None when unknown)."""
    t = getattr(a, "dtype", None)
    if t is None:
        return None
    s = str(t).replace("torch.", "")
    return {"bfloat16": "bf16", "float16": "f16", "half": "f16", "float32": "f32", "float": "f32",
            "float64": "f64", "double": "f64"}.get(s)


def _to_f64(name, a):
    import numpy as np
    if hasattr(a, "detach") and hasattr(a, "cpu"):  # a torch tensor: bf16 has no NumPy twin
        import torch
        t = a.detach().cpu()
        if t.is_complex():
            raise TypeError(f"'{name}': complex tensors are not supported")
        return np.ascontiguousarray(t.to(dtype=torch.float64).numpy())
    try:
        arr = np.asarray(a)
    except Exception as e:  # noqa: BLE001 - named below
        raise TypeError(f"'{name}': cannot be converted to an array ({e})") from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"'{name}': dtype {arr.dtype} is not a real number type")
    return np.ascontiguousarray(arr, dtype=np.float64)


def _convert(what, mapping):
    if not isinstance(mapping, dict):
        raise TypeError(f"{what} must be a dict of name -> array, got {type(mapping).__name__}")
    return {str(k): _to_f64(f"{what}['{k}']", v) for k, v in mapping.items()}


class Report:
    """The verdict of recall.validate: `passed`, one result per output, the text table."""

    def __init__(self, passed, js, text, junit):
        self.passed = bool(passed)
        self.json = _json.loads(js)
        self.text = text
        self.junit = junit

    @property
    def results(self):
        """One dict per output: name, pass, max_err_u, budget_u, row_ratio, ... (see `recall validate --format json`)."""
        return self.json["results"]

    @property
    def scale(self):
        """The scale the reference used, in words."""
        return self.json["scale"]

    @property
    def dtype(self):
        return self.json["dtype"]

    def __bool__(self):
        return self.passed

    def __str__(self):
        return self.text

    def __repr__(self):
        fails = [r["output"] for r in self.results if not r["pass"]]
        return f"<recall.Report {self.json['op']} {self.dtype}: {'pass' if self.passed else 'FAIL ' + ', '.join(fails)}>"


def validate(op, inputs, outputs, *, layout="bhtd", state_layout="vk", scale=None, dtype=None):
    """Judge a kernel's `outputs` of `inputs` against the multiprecision reference of `op`.

    Returns a Report (truthy when every output is within its error budget). Bad input (unknown
    op, missing tensors, wrong shapes, NaN/Inf inputs, unknown layout) raises ValueError naming it.
    """
    if dtype is None:
        names = {k: _dtype_name(v) for k, v in outputs.items()} if isinstance(outputs, dict) else {}
        found = set(names.values())
        if None in found or not found:
            raise ValueError("dtype=None: the outputs' storage dtype cannot be told from " +
                             ", ".join(f"'{k}'" for k, v in names.items() if v is None) + "; pass dtype='bf16'|'f16'|'f32'|'f64'")
        if len(found) > 1:
            raise ValueError(f"the outputs have different dtypes {names}; pass dtype=")
        dtype = found.pop()
    if dtype not in _DTYPES:
        raise ValueError(f"unknown dtype '{dtype}' (expected one of {', '.join(_DTYPES)})")
    ok, js, text, junit = _recall.validate(op, _convert("inputs", inputs), _convert("outputs", outputs), dtype,
                                           layout, state_layout, None if scale is None else float(scale))
    return Report(ok, js, text, junit)


def generate(op, shape, seed, *, layout="bhtd", state_layout="vk", dtype="f32", scale=None, keys="gaussian",
             gates="uniform", betas="mixed", initial_state=False, scale_exp=0, as_torch=False):
    """Inputs of `op` from the test-bed's generators, in the requested layout.

    shape: dict(B=, H=, T=, dk=, dv=) or "B=1,H=2,T=65,dk=16,dv=16". keys, gates, betas: the
    generators' corner cases (`recall dump --help`); keys="unit_sphere", betas="unit_interval" are
    the well-conditioned inputs of the report's realistic shape. Values are exactly
    representable in `dtype` (`scale` stays float64). Returned as NumPy arrays (float32 for bf16: NumPy has no bfloat16)
    or, with as_torch=True, CPU torch tensors of `dtype` (torch.bfloat16 for bf16). A `scale`
    input (softmax, DeltaFormer) is always present: `scale`, or the documented 1/sqrt(d_k).
    """
    import numpy as np
    if isinstance(shape, dict):
        shape = ",".join(f"{k}={int(v)}" for k, v in shape.items())
    if dtype not in _DTYPES:
        raise ValueError(f"unknown dtype '{dtype}' (expected one of {', '.join(_DTYPES)})")
    raw = _recall.generate(op, shape, int(seed), dtype, layout, state_layout, None if scale is None else float(scale),
                           keys, gates, bool(initial_state), int(scale_exp), betas)
    # `scale` is a parameter, not a stored tensor: it stays float64 (rounded to bf16/f16 it would
    # differ from the 1/sqrt(d_k) a kernel computes)
    if as_torch:
        import torch
        tdt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "f64": torch.float64}[dtype]
        return {k: torch.from_numpy(v).to(torch.float64 if k == "scale" else tdt) for k, v in raw.items()}
    ndt = {"bf16": np.float32, "f16": np.float16, "f32": np.float32, "f64": np.float64}[dtype]
    return {k: v if k == "scale" else v.astype(ndt) for k, v in raw.items()}


class ClaimResult(dict):
    """One claim's verdict with its evidence (the ledger's JSON object); `verdict` is holds,
    violated or inconclusive, computed by the check."""

    @property
    def verdict(self):
        return self["verdict"]


def check(claim_id, *, full=False, seed=None):
    """Run the numerical check of a paper's claim (a spec ID, or a list of them)."""
    ids = [claim_id] if isinstance(claim_id, str) else list(claim_id)
    args = {} if seed is None else {"seed": int(seed)}
    rc, out = _recall.check(ids, full, **args)
    res = [ClaimResult(_json.loads(line)) for line in out.splitlines() if line.strip()]
    return res[0] if isinstance(claim_id, str) else res


def ops():
    """Every op with its inputs and outputs (name, canonical shape, doc)."""
    return _recall.ops()
