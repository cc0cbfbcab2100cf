#!/usr/bin/env bash
# The whole test suite on a GPU machine within one device call (see
# docs/development.md): every test but `stress` in SUITE_GROUPS (5) groups at once
# (no test is timed, and the machine has 16 cores), then `stress` alone,
# since it fills the device memory and measures its growth.  Run from the
# project root after a pack, as
#   BUILD=$PWD/build-device bash scripts/device-suite.sh .device
#   BUILD=$PWD/build-126 bash scripts/device-suite.sh .device-126
# Each group's log and stress's go to $OUT (or ./device-out); the output
# closes with each group's and stress's `N passed, N failed, N skipped`.
# STRESS=0 leaves stress out (to run it later, alone, when something else
# shares the GPU meanwhile).
# Exit status: 0 when every group and stress passed.
set -uo pipefail
pack=${1:-.device}
export BUILD=${BUILD:-$PWD/build-device}
out=${OUT:-device-out}
groups=${SUITE_GROUPS:-5}
mkdir -p "$out"

# The tests, longest first into the least loaded group (seconds measured
# on an H100 with five groups at once, 2026-11-28; others count 30)
mapfile -t lines < <(python3 - "$BUILD/meson-info/intro-tests.json" "$groups" <<'EOF'
import json, sys
seconds = {"kernels-sum": 166, "qc": 192, "cudahist-high-bit": 123,
           "cudahist": 80, "cudasum": 70, "kernels-blur": 65,
           "cudablur": 60, "cudasum-high-bit": 59, "cudasum-light": 57,
           "kernels-light": 56, "kernels-hist": 46, "blur-reference": 40,
           "cudagray": 36, "cudagray-high-bit": 35}
names = [t["name"] for t in json.load(open(sys.argv[1])) if t["name"] != "stress"]
n = int(sys.argv[2])
load, groups = [0] * n, [[] for _ in range(n)]
for name in sorted(names, key=lambda t: -seconds.get(t, 30)):
    i = load.index(min(load))
    groups[i].append(name)
    load[i] += seconds.get(name, 30)
for g in groups:
    print(" ".join(g))
EOF
)

status=0
start=$(date +%s)
for i in "${!lines[@]}"; do
  [ -n "${lines[$i]}" ] || continue
  # shellcheck disable=SC2086
  (bash "$pack/run.sh" test ${lines[$i]} > "$out/group$i.log" 2>&1) &
done
for job in $(jobs -p); do
  wait "$job" || status=1
done
echo "=== the suite but stress, ${#lines[@]} groups at once: $(( $(date +%s) - start )) s"
for i in "${!lines[@]}"; do
  echo "--- group $i: ${lines[$i]}"
  tail -n 1 "$out/group$i.log"
  grep -E "^(FAIL|TIMEOUT)" "$out/group$i.log"
done
if [ "${STRESS:-1}" != 0 ]; then
  echo "=== stress"
  bash "$pack/run.sh" test stress > "$out/stress.log" 2>&1 || status=1
  tail -n 1 "$out/stress.log"
fi
exit $status
