#!/usr/bin/env bash
# The whole check on a GPU machine, in one call (see docs/development.md):
# the test suite, real gst-launch pipelines, the benchmarks, and the suite
# again under compute-sanitizer memcheck, synccheck and racecheck (slowest,
# so last).
# Logs and CSV go to $OUT (or ./device-out).  Run from the project root,
# after `bash scripts/device-pack.sh`, with carry [".device", "build-device"],
# as: bash scripts/device-check.sh [run|sanitize]
# (run: tests, pipelines, examples, benchmarks; sanitize: the suite under
# memcheck, synccheck and racecheck; both by default.  Each fitted one
# device call before synccheck was added, which took ~3 min of tests on
# its own on an H100; sanitize has not been timed whole since.)
set -uo pipefail
what=${1:-all}
export BUILD=${BUILD:-$PWD/build-device}
out=${OUT:-device-out}
mkdir -p "$out"
run=".device/run.sh"
status=0
step() { echo; echo "=== $*"; }
# the kernels against their CPU references, one test an operation
kernel_tests="kernels-gray kernels-plane kernels-blur kernels-hist kernels-sum"

if [ "$what" != sanitize ]; then
step "test suite"
bash $run test 2>&1 | tee "$out/tests.log" || status=1

step "pipelines"
for p in \
  "videotestsrc num-buffers=60 ! video/x-raw,format=RGBA,width=1920,height=1080 ! cudagray ! fakesink" \
  "videotestsrc num-buffers=60 ! video/x-raw,format=BGR,width=1921,height=1081 ! cudagray matrix=bt709 ! fakesink" \
  "videotestsrc num-buffers=60 ! cudaupload ! cudagray ! cudadownload ! video/x-raw,format=NV12 ! fakesink" \
  "videotestsrc num-buffers=60 ! video/x-raw,format=NV12 ! cudaupload ! cudagray ! cudagray ! cudadownload ! fakesink" \
  "videotestsrc num-buffers=30 pattern=smpte ! video/x-raw,format=I420,width=640,height=360,framerate=30/1 ! openh264enc ! h264parse ! nvh264dec ! cudagray ! cudadownload ! video/x-raw,format=NV12 ! videoconvert ! pngenc snapshot=true ! filesink location=$out/nvh264dec-cudagray.png" \
  "videotestsrc num-buffers=30 pattern=smpte ! video/x-raw,format=RGBA,width=320,height=240 ! cudablur sigma=3 ! cudagray ! pngenc snapshot=true ! filesink location=$out/blur-gray-smpte.png" \
  "videotestsrc num-buffers=60 ! video/x-raw,format=NV12,width=1921,height=1081 ! cudaupload ! cudablur sigma=2.6 border=reflect-101 ! cudagray ! cudadownload ! fakesink" \
  "videotestsrc num-buffers=60 ! video/x-raw,format=BGRx,width=1921,height=1081 ! cudahist bins=32 roi-x=100 roi-width=640 interval=1000000000 ! fakesink" \
  "videotestsrc num-buffers=30 pattern=smpte ! video/x-raw,format=I420,width=640,height=360,framerate=30/1 ! openh264enc ! h264parse ! nvh264dec ! cudahist ! cudablur ! cudahist attach-meta=true ! fakesink" \
  "videotestsrc num-buffers=60 ! video/x-raw,format=NV12,width=1921,height=1081 ! cudaupload ! cudasum percentiles=true profiles=true detect=crop+black+cut interval=1000000000 ! cudahist ! cudadownload ! fakesink" \
  ; do
  echo "--- gst-launch-1.0 $p"
  bash $run gst-launch-1.0 -q $p 2>&1 | tail -5
  rc=${PIPESTATUS[0]}
  echo "rc=$rc"; [ "$rc" = 0 ] || status=1
done
echo "--- bad cuda-device-id (must fail with a clear error)"
bash $run gst-launch-1.0 -q videotestsrc num-buffers=1 ! cudagray cuda-device-id=7 ! fakesink 2>&1 | head -4

echo "--- the messages, as gst-launch -m prints them"
bash $run gst-launch-1.0 -m videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 ! cudahist bins=16 ! fakesink 2>&1 | tee "$out/cudahist-gst-launch.txt" | grep -m1 "cudahist, " | cut -c1-300

echo "--- cudasum messages, as gst-launch -m prints them (the device has no videobox)"
bash $run gst-launch-1.0 -m videotestsrc num-buffers=2 pattern=smpte ! video/x-raw,format=RGBA,width=64,height=48 ! cudasum detect=crop+black+cut percentiles=true ! fakesink 2>&1 | tee "$out/cudasum-gst-launch.txt" | grep -m2 "cudasum, " | cut -c1-600

step "example: an application sharing its CUDA context"
bash $run $BUILD/examples/shared-context 2>&1 | grep -v "^0:00" || status=1

step "example: the live histogram monitor (not a terminal: printed as text)"
bash $run $BUILD/examples/hist-monitor --frames 3 --bins 16 2>&1 | tail -6 || status=1

step "kernel benchmark"
bash $run $BUILD/bench/kernel-bench --csv "$out/kernels.csv" 2>&1 | tee "$out/kernel-bench.log" || status=1

step "pipeline benchmark"
for i in 1 2 3; do
  bash $run $BUILD/bench/pipeline-bench --csv "$out/pipelines.csv" 2>&1 | tee -a "$out/pipeline-bench.log" || status=1
  # an analysis element uploads and never downloads
  bash $run $BUILD/bench/pipeline-bench --chain cudahist --out-bytes-per-pixel 0 --csv "$out/pipelines.csv" 2>&1 | tee -a "$out/pipeline-bench.log" || status=1
  bash $run $BUILD/bench/pipeline-bench --chain cudasum --out-bytes-per-pixel 0 --csv "$out/pipelines.csv" 2>&1 | tee -a "$out/pipeline-bench.log" || status=1
done
fi

if [ "$what" != run ]; then
step "test suite under compute-sanitizer memcheck"
# The sanitizer's own report goes to files: a passing test's output is not
# shown by the runner, and the summary lines are the evidence.  API errors
# are not reported: some tests cause them on purpose (and assert the
# returned codes); memory errors in kernels are what this run is for.
rm -rf /tmp/sanitizer && mkdir -p /tmp/sanitizer
bash $run test --timeout-multiplier 10 \
  --wrap "compute-sanitizer --tool memcheck --report-api-errors no --require-cuda-init no --error-exitcode 1 --print-limit 20 --log-file /tmp/sanitizer/%p.log" \
  2>&1 | tee "$out/memcheck.log" || status=1
grep -h "ERROR SUMMARY" /tmp/sanitizer/*.log | sort | uniq -c | tee -a "$out/memcheck.log"
# (a test that never initialises CUDA leaves a log without a summary)
for f in $(grep -L -e "ERROR SUMMARY: 0 errors" -e "terminated before first instrumented API call" /tmp/sanitizer/*.log); do
  echo "--- $f"; head -30 "$f"
done 2>&1 | tee -a "$out/memcheck.log"

step "test suite under compute-sanitizer synccheck (barriers)"
rm -rf /tmp/sanitizer && mkdir -p /tmp/sanitizer
bash $run test --timeout-multiplier 10 $kernel_tests cudagray cudablur cudahist cudasum \
  --wrap "compute-sanitizer --tool synccheck --report-api-errors no --require-cuda-init no --error-exitcode 1 --print-limit 20 --log-file /tmp/sanitizer/%p.log" \
  2>&1 | tee "$out/synccheck.log" || status=1
grep -h "ERROR SUMMARY" /tmp/sanitizer/*.log | sort | uniq -c | tee -a "$out/synccheck.log"

step "test suite under compute-sanitizer racecheck (shared-memory kernels)"
rm -rf /tmp/sanitizer && mkdir -p /tmp/sanitizer
bash $run test --timeout-multiplier 20 $kernel_tests cudablur cudahist \
  --wrap "compute-sanitizer --tool racecheck --report-api-errors no --error-exitcode 1 --print-limit 20 --log-file /tmp/sanitizer/%p.log" \
  2>&1 | tee "$out/racecheck.log" || status=1
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" /tmp/sanitizer/*.log | sort | uniq -c | tee -a "$out/racecheck.log"

fi

step "done: status $status"
exit $status
