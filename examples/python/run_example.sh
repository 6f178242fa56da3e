#!/usr/bin/env bash
# The worked example, run by ctest: dump inputs, run the NumPy kernel, validate (text, json and
# JUnit output; the JUnit XML is checked for well-formedness and structure), then show that the
# off-by-one variant is caught. Usage: run_example.sh RECALL PYTHON WORKDIR
set -euo pipefail
recall="$1"; py="$2"; work="$3"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$work"; cd "$work"
for dtype in f32 f64; do
  "$recall" dump --op gated_linear_attention --shape B=1,H=2,T=37,dk=8,dv=4 --seed 7 --gates zeros_mixed \
    --initial-state --dtype "$dtype" --out "in_$dtype.npz"
  "$py" "$here/gated_linear_attention.py" "in_$dtype.npz" "out_$dtype.npz"
  "$recall" validate --op gated_linear_attention --inputs "in_$dtype.npz" --outputs "out_$dtype.npz"
  "$recall" validate --op gated_linear_attention --inputs "in_$dtype.npz" --outputs "out_$dtype.npz" --format junit > "junit_$dtype.xml"
  "$py" - "junit_$dtype.xml" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert len(suites) == 1
cases = suites[0].findall("testcase")
assert int(suites[0].get("tests")) == len(cases) == 2, [c.get("name") for c in cases]
assert {c.get("name") for c in cases} == {"o", "s_final"}
assert int(suites[0].get("failures")) == sum(len(c.findall("failure")) for c in cases) == 0
print("valid JUnit XML:", sys.argv[1])
PYEOF
done
# the off-by-one kernel must fail validation (exit status 1) with failures in the JUnit report
"$py" "$here/gated_linear_attention.py" in_f32.npz out_bug.npz --bug
set +e
"$recall" validate --op gated_linear_attention --inputs in_f32.npz --outputs out_bug.npz --format junit > junit_bug.xml
rc=$?
set -e
if [ "$rc" -ne 1 ]; then echo "the buggy kernel was not rejected (exit $rc)"; exit 1; fi
"$py" -c "import sys, xml.etree.ElementTree as ET; r = ET.parse('junit_bug.xml').getroot(); n = sum(len(c.findall('failure')) for c in r.iter('testcase')); assert n >= 1, n; print('buggy kernel rejected:', n, 'failing outputs')"
echo "worked example: ok"
