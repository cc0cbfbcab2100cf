#!/usr/bin/env bash
# All the benchmarks in one command, sized for one device call (< 10 min):
# kernel-bench, then the pipeline cases at 4K and 1080p RGBA (each element
# alone, the GPU chain with and without nvcodec's transfers, a chain on CUDA
# memory with no transfers, the transfer-only baseline, and the CPU elements
# doing the same jobs), and a summary table of both CSVs printed last.
# Writes to $OUT (or ./device-out): kernels.csv, pipelines.csv, the logs and
# meta.txt (GPU, driver, CPU, date).  Plots: python3 bench/plot.py $OUT.
# Run from the project root.  On the GPU machine, after
# `bash scripts/device-pack.sh`, with carry [".device", "build-device"]:
#   BUILD=$PWD/build-device bash bench/run-all.sh
#   BUILD=$PWD/build-device bash .device/run.sh bash bench/run-all.sh
# Where GStreamer and a GPU are installed: BUILD=build bash bench/run-all.sh
# Environment: PARTS ("kernels pipelines"), SIZES ("3840x2160 1920x1080"),
# DEADLINE_S (480: pipeline groups not started by then are skipped, and the
# summary says so) and LIMIT_S (570: any group still running then is
# stopped), so the whole run stays inside one device call (10 min).
set -uo pipefail
start=$SECONDS
parts=${PARTS:-kernels pipelines}
sizes=${SIZES:-3840x2160 1920x1080}
deadline=${DEADLINE_S:-480}
limit=${LIMIT_S:-570}
if [ -z "${BUILD:-}" ]; then
  if [ -d build-device ]; then BUILD=build-device; else BUILD=build; fi
fi
export BUILD=$(cd "$BUILD" && pwd)
out=${OUT:-device-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
status=0

# The packed runtime (.device) unless it is in use already (this script
# run through .device/run.sh) or absent (GStreamer installed here).
# In use already, it may have been sourced (.device/gst/env.sh) rather
# than set up by run.sh, which also adds the plugin: add it in any case.
case "${GST_PLUGIN_SYSTEM_PATH_1_0:-}" in
  */.device/gst/plugins) run="" ;;
  *)
    if [ -f .device/run.sh ]; then
      run="bash .device/run.sh"
    else
      run=""
    fi ;;
esac
if [ -z "$run" ]; then
  export GST_PLUGIN_PATH_1_0="$BUILD/gst${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "gpu, driver, memory, pcie gen, width, max sm clock: $(nvidia-smi \
    --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.current,clocks.max.sm \
    --format=csv,noheader 2>/dev/null | head -1 || true)"
  echo "cuda (driver): $(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | head -1)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
  echo "gstreamer: $($run gst-launch-1.0 --version 2>/dev/null | grep -m1 -i 'gstreamer ')"
  if commit=$(git rev-parse --short HEAD 2>/dev/null); then
    git diff --quiet HEAD -- 2>/dev/null || commit="$commit, with local changes"
  else
    commit="unknown (no git here)"
  fi
  echo "commit: $commit"
  echo "build: $BUILD"
  echo "parts: $parts; sizes: $sizes"
} > "$out/meta.txt"
cat "$out/meta.txt"

if [[ " $parts " == *" kernels "* ]]; then
  echo; echo "=== kernel benchmark"
  rm -f "$out/kernels.csv"
  timeout -k 10 "${KERNEL_TIMEOUT_S:-330}" $run "$BUILD/bench/kernel-bench" \
    --csv "$out/kernels.csv" 2>&1 | tee "$out/kernel-bench.log"
  rc=${PIPESTATUS[0]}
  echo "kernel-bench: rc=$rc" | tee -a "$out/kernel-bench.log"
  [ "$rc" = 0 ] || status=1
fi

# group NAME ARGS...: one pipeline-bench call (several chains, one size).
# Its table goes to pipeline-bench.log, its errors to pipeline-bench.err.
group() {
  local name=$1; shift
  if (( SECONDS - start > deadline || limit - (SECONDS - start) < 10 )); then
    echo "past DEADLINE_S=$deadline s: $name, ${w}x$h" \
      | tee -a "$out/not-run.txt"
    return
  fi
  echo; echo "=== $name, ${w}x$h ($(( SECONDS - start )) s)" \
    | tee -a "$out/pipeline-bench.log" "$out/pipeline-bench.err"
  local left=$(( limit - (SECONDS - start) ))
  timeout -k 5 $(( left < 120 ? left : 120 )) \
    $run "$BUILD/bench/pipeline-bench" --width "$w" \
    --height "$h" --csv "$out/pipelines.csv" "$@" \
    2>>"$out/pipeline-bench.err" | tee -a "$out/pipeline-bench.log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || { echo "pipeline-bench rc=$rc" \
    | tee -a "$out/pipeline-bench.log"; status=1; }
}

if [[ " $parts " == *" pipelines "* ]]; then
  rm -f "$out/pipelines.csv" "$out/pipeline-bench.log" \
    "$out/pipeline-bench.err" "$out/not-run.txt"
  for size in $sizes; do
    w=${size%x*} h=${size#*x}
    # 4K frames: at most 600 timed, or 3 s; smaller frames come faster
    if (( w * h > 4000000 )); then secs=3 frames=600; else secs=2 frames=1200; fi
    # System memory through our elements, which upload (and download)
    # themselves; the PCIe bound counts the bytes each downloads per pixel.
    group "each element alone" --input both --max-seconds $secs \
      --frames $frames --out-bytes-per-pixel 1 --chain cudagray
    group "each element alone; transfer-only baseline" --input both \
      --max-seconds $secs --frames $frames --out-bytes-per-pixel 4 \
      --chain "cudablur sigma=2.6" --chain "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudadownload"
    group "each element alone (analysis: nothing downloaded)" --input both \
      --max-seconds $secs --frames $frames --out-bytes-per-pixel 0 \
      --chain cudahist --chain cudasum
    # the chain downloads grey as NV12 (1.5 bytes per pixel): 1.22's CUDA
    # allocator cannot hold GRAY8
    group "GPU chain" --input both --max-seconds $secs --frames $frames \
      --out-bytes-per-pixel 1.5 \
      --chain "cudaupload ! cudagray ! cudablur sigma=2.6 ! cudahist ! cudasum ! cudadownload" \
      --chain "cudagray ! video/x-raw(memory:CUDAMemory) ! cudablur sigma=2.6 ! cudahist ! cudasum ! cudadownload"
    group "CUDA memory in and out: no transfers" --input cuda \
      --max-seconds $secs --frames $(( frames * 5 )) --latency-frames 200 \
      --chain cudagray --chain "cudablur sigma=2.6" --chain cudahist \
      --chain cudasum --chain "cudagray ! cudablur sigma=2.6 ! cudahist ! cudasum"
    # The CPU elements doing the same jobs.  gaussianblur takes only AYUV
    # and videoanalyse only planar YUV: the conversions are in the chains,
    # and the conversion to AYUV alone is measured too.
    group "CPU elements" --input system --max-seconds $secs --frames 300 \
      --latency-frames 20 \
      --chain "videoconvert ! video/x-raw,format=GRAY8" \
      --chain "videoconvert n-threads=0 ! video/x-raw,format=GRAY8" \
      --chain "videoconvert ! video/x-raw,format=AYUV" \
      --chain "videoconvert ! video/x-raw,format=AYUV ! gaussianblur sigma=2.6" \
      --chain "videoconvert ! video/x-raw,format=I420 ! videoanalyse" \
      --chain "videoconvert ! video/x-raw,format=GRAY8 ! videoconvert ! video/x-raw,format=AYUV ! gaussianblur sigma=2.6 ! videoconvert ! video/x-raw,format=I420 ! videoanalyse"
  done
fi

echo
echo "=== summary ($(( SECONDS - start )) s; $out)"
cat "$out/meta.txt"
python3 - "$out" <<'EOF' || { cat "$out/kernels.csv" "$out/pipelines.csv" 2>/dev/null; status=1; }
import csv, os, sys

out = sys.argv[1]


def rows(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def cell(v, fmt):
    return "" if v is None else fmt % v


kernels = rows("kernels.csv")
if kernels:
    print("\nkernels (us per frame; x = launch / floor)")
    print("%-8s %-22s %-14s %-10s %-7s %9s %9s %8s %6s %9s %9s"
          % ("op", "variant", "format", "size", "content", "launch",
             "sustained", "floor", "x", "copy", "cpu"))
    for r in kernels:
        launch, floor = num(r.get("launch_us")), num(r.get("floor_us"))
        print("%-8s %-22s %-14s %-10s %-7s %9s %9s %8s %6s %9s %9s" % (
            r.get("op", ""), r.get("variant", "")[:22], r.get("format", ""),
            "%sx%s" % (r.get("width", ""), r.get("height", "")),
            r.get("content", ""), cell(launch, "%.2f"),
            cell(num(r.get("sustained_us")), "%.2f"), cell(floor, "%.2f"),
            cell(launch / floor if launch and floor else None, "%.2f"),
            cell(num(r.get("copy_us")), "%.2f"),
            cell(num(r.get("cpu_us")), "%.0f")))

pipes = rows("pipelines.csv")
if pipes:
    print("\npipelines: appsrc ! PIPELINE ! fakesink (latency: one frame in "
          "flight; bound: PCIe measured in the same call)")
    last = None
    for r in pipes:
        size = "%s %sx%s" % (r["format"], r["width"], r["height"])
        if size != last:
            print("\n%s\n%-78s %-8s %9s %8s %8s %8s %9s %5s" % (
                size, "pipeline", "input", "fps", "ms/frame", "lat med",
                "lat p99", "bound", "of it"))
            last = size
        fps, bound = num(r["fps"]), num(r["pcie_bound_fps"])
        print("%-78s %-8s %9.1f %8.3f %8s %8s %9s %5s" % (
            r["pipeline"], r["input"], fps, 1000 / fps,
            cell(num(r["latency_ms_median"]), "%.3f"),
            cell(num(r["latency_ms_p99"]), "%.3f"), cell(bound, "%.1f"),
            cell(100 * fps / bound if bound else None, "%.0f%%")))

# cases that did not run: from pipeline-bench's tables ("  input FAILED: why"
# under the chain's line) and the groups past the deadline
missing = []
log = os.path.join(out, "pipeline-bench.log")
if os.path.exists(log):
    chain = size = None
    for line in open(log):
        line = line.rstrip("\n")
        if line.startswith("appsrc ("):
            size = line[len("appsrc ("):].split(")")[0]
        elif line.startswith(("GPU:", "PCIe", "gpu:", "===", "pipeline-bench")):
            continue
        elif line.startswith("  "):
            f = line.split(None, 2)
            if len(f) == 3 and f[1] in ("FAILED:", "SKIPPED:"):
                missing.append("%s %s [%s] %s %s" % (f[1][:-1], chain, f[0],
                                                     size, f[2]))
        elif line:
            chain = line
notrun = os.path.join(out, "not-run.txt")
if os.path.exists(notrun):
    missing += ["NOT RUN " + l.strip() for l in open(notrun)]
if missing:
    print("\ncases that did not run:")
    for m in missing:
        print("  " + m)
EOF
echo "run-all: status $status, $(( SECONDS - start )) s"
exit $status
