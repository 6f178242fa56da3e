"""pytest plugin: the `recall_validate` fixture.

Enable it in a kernel repository's conftest.py with `pytest_plugins = ["recall.pytest_plugin"]`
(after `pip install`, it is registered automatically through the pytest11 entry point). Then:

    def test_my_delta_rule(recall_validate):
        inputs = recall.generate("delta_rule", dict(B=1, T=512, H=2, dk=64, dv=64), seed=0,
                                 layout="bthd", state_layout="kv", dtype="bf16", as_torch=True)
        o, s = my_kernel(**inputs)
        recall_validate("delta_rule", inputs, {"o": o, "s_final": s}, layout="bthd", state_layout="kv")

The fixture fails the test with the full report (every output's error, budget and decisive row)
when an output is over its budget, and returns the Report otherwise.
"""

import pytest

import recall


@pytest.fixture
def recall_validate():
    def _validate(op, inputs, outputs, **kwargs):
        rep = recall.validate(op, inputs, outputs, **kwargs)
        if not rep.passed:
            pytest.fail(f"recall.validate('{op}') rejected the kernel's outputs:\n{rep.text}", pytrace=False)
        return rep
    return _validate
