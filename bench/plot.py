#!/usr/bin/env python3
"""Plots of the benchmark CSVs (bench/run-all.sh writes them).

    python3 bench/plot.py DIR                  # DIR/kernels.csv, DIR/pipelines.csv
    python3 bench/plot.py FILE.csv... [--out DIR]

Each CSV is recognised by its header:
  kernels   gpu,op,variant,format,width,height,content,bytes,launch_us,
            sustained_us,floor_us,copy_us,cpu_us
  pipelines gpu,pipeline,input,format,width,height,frames,fps,
            latency_ms_median,latency_ms_p99,pcie_bound_fps[,
            cpu_us_per_frame,cores,streams,gpus[,setup]]
(empty fields: not measured).  Writes PNGs next to the first input, or into
--out:
  kernels-OP.png        per op, time per frame against frame size (pixels),
                        log-log: ours (per launch and sustained), CUB, the
                        seeds, the CPU reference, and the floor; one panel
                        per input format
  pipelines-SIZE.png    frames per second and latency of every pipeline, by
                        input (pinned, pageable, cuda: GPU; system: CPU),
                        with the PCIe bound where there is one
  jobs-SIZE.png         per job (grey, blur, ...), GPU against CPU
  streams-SIZE.png      aggregate frames per second against the number of
                        streams (rows with a `streams` column: pipeline-bench
                        --streams, and CSVs that add a `setup` column for N
                        processes, with or without MPS), a panel a chain
Repeated rows (several runs of the same case) are reduced to their median.
"""
import argparse
import csv
import os
import re
import statistics
import sys
import textwrap

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError:
    sys.exit("plot.py needs matplotlib, which is not installed here: "
             "apt-get install python3-matplotlib (or pip install matplotlib)")

INPUTS = ["pinned", "pageable", "cuda", "system"]
INPUT_COLOURS = {"pinned": "tab:blue", "pageable": "tab:cyan",
                 "cuda": "tab:green", "system": "tab:red"}


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def read(paths):
    """-> (kernel rows, pipeline rows) from CSV files and directories"""
    kernels, pipelines = [], []
    for path in paths:
        if os.path.isdir(path):
            files = [os.path.join(path, n) for n in ("kernels.csv",
                                                     "pipelines.csv")]
            files = [f for f in files if os.path.exists(f)]
            if not files:
                sys.exit("plot.py: no kernels.csv or pipelines.csv in " + path)
        else:
            files = [path]
        for f in files:
            with open(f, newline="") as fh:
                reader = csv.DictReader(fh)
                fields = reader.fieldnames or []
                if "op" in fields and "launch_us" in fields:
                    kernels += list(reader)
                elif "pipeline" in fields and "fps" in fields:
                    pipelines += list(reader)
                else:
                    sys.exit("plot.py: %s is neither a kernels nor a "
                             "pipelines CSV (header: %s)" % (f, fields))
    return kernels, pipelines


def slug(s):
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", s).strip("_")


def gpu_title(rows):
    gpus = sorted({r.get("gpu", "") for r in rows if r.get("gpu")} - {"none"})
    return ", ".join(gpus) if gpus else "no GPU"


# ---- kernels ---------------------------------------------------------------

SEED_COLOURS = ["tab:green", "tab:brown", "tab:pink", "tab:olive", "tab:cyan",
                "tab:gray"]


def variant_style(variant, seeds):
    if variant == "ours":
        return dict(color="tab:blue", marker="o", linewidth=2)
    if variant == "CUB":
        return dict(color="tab:orange", marker="s")
    return dict(marker="^", linestyle="-.",
                color=SEED_COLOURS[seeds.index(variant) % len(SEED_COLOURS)])


def plot_kernels(rows, outdir):
    written = []
    # (the empty launch has no frame to plot against)
    rows = [r for r in rows if int(r["width"]) * int(r["height"]) > 0]
    for op in sorted({r["op"] for r in rows}):
        op_rows = [r for r in rows if r["op"] == op]
        formats = sorted({r["format"] for r in op_rows})
        fig, axes = plt.subplots(1, len(formats), squeeze=False,
                                 figsize=(5.5 * len(formats), 6),
                                 sharey=True)
        for ax, fmt in zip(axes[0], formats):
            fr = [r for r in op_rows if r["format"] == fmt]
            contents = sorted({r.get("content", "") for r in fr})
            # random content is the main series; others only for ours
            main = "random" if "random" in contents else contents[0]

            def px(r):
                return int(r["width"]) * int(r["height"])

            def series(select, field):
                pts = {}
                for r in fr:
                    if select(r):
                        pts.setdefault(px(r), []).append(num(r.get(field)))
                xs = sorted(x for x in pts if median(pts[x]) is not None)
                return xs, [median(pts[x]) for x in xs]

            variants = sorted({r["variant"] for r in fr},
                              key=lambda v: (v != "ours", v != "CUB", v))
            seeds = [v for v in variants if v not in ("ours", "CUB")]
            for v in variants:
                xs, ys = series(lambda r: r["variant"] == v and
                                r.get("content", "") == main, "launch_us")
                if xs:
                    ax.plot(xs, ys, label=v + " (per launch)"
                            if v == "ours" else v,
                            **variant_style(v, seeds))
                if v == "ours":
                    xs, ys = series(lambda r: r["variant"] == v and
                                    r.get("content", "") == main,
                                    "sustained_us")
                    if xs:
                        ax.plot(xs, ys, color="tab:blue", marker="o",
                                linestyle="--", alpha=0.6,
                                label="ours (sustained)")
                    for c in contents:
                        if c == main:
                            continue
                        xs, ys = series(lambda r: r["variant"] == v and
                                        r.get("content", "") == c,
                                        "launch_us")
                        if xs:
                            ax.plot(xs, ys, marker="x", linestyle=":",
                                    color="tab:purple",
                                    label="ours, %s content" % c)
            # the CPU reference and the floor: whichever rows carry them
            xs, ys = series(lambda r: r.get("content", "") == main, "cpu_us")
            if xs:
                ax.plot(xs, ys, color="tab:red", marker="D", label="CPU")
            xs, ys = series(lambda r: True, "floor_us")
            if xs:
                ax.plot(xs, ys, color="black", linestyle="--", linewidth=1.5,
                        label="floor (bytes / copy bandwidth)")
            xs, ys = series(lambda r: True, "copy_us")
            if xs:
                ax.plot(xs, ys, color="grey", linestyle=":", linewidth=1,
                        label="device copy, same bytes")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title("%s %s (%s content)" % (op, fmt, main))
            ax.set_xlabel("pixels per frame")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7, loc="upper center", ncol=2,
                      bbox_to_anchor=(0.5, -0.14))
        axes[0][0].set_ylabel("µs per frame")
        fig.suptitle("kernel %s: time against frame size, %s"
                     % (op, gpu_title(op_rows)))
        fig.tight_layout()
        path = os.path.join(outdir, "kernels-%s.png" % slug(op))
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


# ---- pipelines -------------------------------------------------------------

def short(pipeline):
    s = pipeline.replace("video/x-raw(memory:CUDAMemory)", "CUDA")
    s = s.replace("video/x-raw,format=", "").replace("video/x-raw,", "")
    return "\n".join(textwrap.wrap(s, 46, break_on_hyphens=False))


def job(pipeline):
    """the job a pipeline does, so GPU and CPU pipelines line up"""
    p = pipeline
    stages = [s.strip().split()[0] for s in p.split("!")]
    if stages == ["cudaupload", "cudadownload"]:
        return "transfer only"
    if ("cudablur" in stages and "cudasum" in stages) or \
            ("gaussianblur" in stages and "videoanalyse" in stages):
        return "chain: grey, blur, statistics"
    if "cudablur" in stages or "gaussianblur" in stages:
        return "blur"
    if "cudahist" in stages:
        return "histogram"
    if "cudasum" in stages or "videoanalyse" in stages:
        return "statistics"
    if "cudagray" in stages or "GRAY8" in p:
        return "grey"
    if "videoconvert" in stages:
        return "conversion"
    return "other"


JOBS = ["grey", "blur", "histogram", "statistics",
        "chain: grey, blur, statistics", "transfer only", "conversion",
        "other"]


def reduce_pipelines(rows):
    """(size, pipeline, input) -> medians of repeated rows"""
    cases = {}
    for r in rows:
        key = ("%s %sx%s" % (r["format"], r["width"], r["height"]),
               r["pipeline"], r["input"])
        cases.setdefault(key, []).append(r)
    out = {}
    for key, rs in cases.items():
        out[key] = dict(
            fps=median([num(r["fps"]) for r in rs]),
            lat=median([num(r["latency_ms_median"]) for r in rs]),
            p99=median([num(r["latency_ms_p99"]) for r in rs]),
            bound=median([num(r["pcie_bound_fps"]) for r in rs]),
            runs=len(rs))
    return out


def one_stream(r):
    """a row of one pipeline in one process (what pipelines-SIZE.png shows)"""
    return (r.get("streams") or "1") == "1" and not r.get("setup") and \
        r["input"] in INPUTS


def plot_pipelines(rows, outdir):
    cases = reduce_pipelines([r for r in rows if one_stream(r)])
    written = []
    for size in sorted({k[0] for k in cases},
                       key=lambda s: -int(s.split()[1].split("x")[0])):
        pipes = []
        for (sz, p, _inp) in cases:
            if sz == size and p not in pipes:
                pipes.append(p)
        # by job, GPU before CPU, then as first seen
        pipes.sort(key=lambda p: (JOBS.index(job(p)), "cuda" not in p))
        inputs = [i for i in INPUTS
                  if any((size, p, i) in cases for p in pipes)]
        # one bar per pipeline and input it ran with, pipelines apart
        bars, ticks, seps, y = [], [], [], 0.0
        for i, p in enumerate(pipes):
            if i and job(p) != job(pipes[i - 1]):
                seps.append(y - 0.5)
            mine = [inp for inp in inputs
                    if cases.get((size, p, inp), {}).get("fps")]
            ticks.append(y + (len(mine) - 1) / 2)
            for inp in mine:
                bars.append((y, inp, cases[(size, p, inp)]))
                y += 1
            y += 0.6
        fig, (ax_fps, ax_lat) = plt.subplots(
            1, 2, figsize=(14, 1.2 + 0.28 * y), sharey=True,
            gridspec_kw=dict(width_ratios=[3, 2]))
        for inp in inputs:
            mine = [(yy, c) for yy, i2, c in bars if i2 == inp]
            ys = [yy for yy, _ in mine]
            fps = [c["fps"] for _, c in mine]
            ax_fps.barh(ys, fps, height=0.85, color=INPUT_COLOURS[inp],
                        label=inp + (" (CPU)" if inp == "system" else ""))
            for yy, v in zip(ys, fps):
                ax_fps.text(v, yy, " %.0f" % v if v >= 10 else " %.1f" % v,
                            va="center", fontsize=6)
            ax_lat.barh(ys, [c["lat"] or 0 for _, c in mine], height=0.85,
                        color=INPUT_COLOURS[inp],
                        xerr=[[0] * len(mine),
                              [max((c["p99"] or 0) - (c["lat"] or 0), 0)
                               for _, c in mine]],
                        error_kw=dict(lw=0.8))
        bounds = [(yy, c["bound"]) for yy, _, c in bars if c["bound"]]
        if bounds:
            ax_fps.scatter([b for _, b in bounds], [yy for yy, _ in bounds],
                           marker="|", s=150, color="black", zorder=3,
                           label="PCIe bound")
        ax_fps.set_yticks(ticks)
        ax_fps.set_yticklabels([short(p) for p in pipes], fontsize=7)
        ax_fps.invert_yaxis()
        for sep in seps:
            for ax in (ax_fps, ax_lat):
                ax.axhline(sep, color="grey", linewidth=0.6)
        ax_fps.set_xscale("log")
        ax_fps.set_xlabel("frames per second (log)")
        ax_fps.grid(True, axis="x", which="both", alpha=0.3)
        ax_fps.legend(fontsize=7, loc="lower right")
        ax_lat.set_xscale("log")
        ax_lat.set_xlabel("latency, ms: median, bar to p99 (log)")
        ax_lat.grid(True, axis="x", which="both", alpha=0.3)
        fig.suptitle("appsrc ! PIPELINE ! fakesink, %s, %s"
                     % (size, gpu_title(rows)))
        fig.tight_layout(rect=(0, 0, 1, 0.97))
        path = os.path.join(outdir, "pipelines-%s.png" % slug(size))
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)

        # per job: the best of each input, GPU against CPU
        jobs = [jb for jb in JOBS if any(job(p) == jb for p in pipes)]
        width = 0.8 / len(inputs)
        fig, ax = plt.subplots(figsize=(1.6 + 1.5 * len(jobs), 4.5))
        for j, inp in enumerate(inputs):
            xs, vs = [], []
            for k, jb in enumerate(jobs):
                best = max(((cases[(size, p, inp)]["fps"], p) for p in pipes
                            if job(p) == jb and (size, p, inp) in cases
                            and cases[(size, p, inp)]["fps"]),
                           default=None)
                if best:
                    xs.append(k - 0.4 + width * (j + 0.5))
                    vs.append(best[0])
            ax.bar(xs, vs, width=width, color=INPUT_COLOURS[inp],
                   label="GPU, %s input" % inp if inp != "system"
                   else "CPU elements")
            for x, v in zip(xs, vs):
                ax.text(x, v, "%.0f" % v if v >= 10 else "%.1f" % v,
                        ha="center", va="bottom", fontsize=6)
        ax.set_xticks(range(len(jobs)))
        ax.set_xticklabels(["\n".join(textwrap.wrap(jb, 14)) for jb in jobs],
                           fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("frames per second (best pipeline of the job; log)")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title("GPU against CPU, %s, %s" % (size, gpu_title(rows)),
                     fontsize=10)
        fig.tight_layout()
        path = os.path.join(outdir, "jobs-%s.png" % slug(size))
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


# ---- many streams ----------------------------------------------------------

# setup: how the N streams ran (pipeline-bench --streams: one process)
SETUP_STYLES = {"one process": dict(marker="o", linestyle="-"),
                "one process, MPS": dict(marker="v", linestyle="none"),
                "processes": dict(marker="s", linestyle="--"),
                "processes, MPS": dict(marker="^", linestyle="-.")}
SETUP_LABELS = {"one process": "N pipelines in one process",
                "one process, MPS": "N pipelines in one process, under MPS",
                "processes": "N processes, time-sliced",
                "processes, MPS": "N processes under MPS"}


def plot_streams(rows, outdir):
    """aggregate fps against the number of streams, a panel a chain: N
    pipelines in one process (pipeline-bench --streams) and, from CSVs
    with a `setup` column, N processes of one pipeline each"""
    cases = {}
    for r in rows:
        if not r.get("streams") or num(r["fps"]) is None:
            continue
        size = "%s %sx%s" % (r["format"], r["width"], r["height"])
        line = (r["input"], r.get("gpus") or "1",
                r.get("setup") or "one process")
        cases.setdefault((size, r["pipeline"]), {}).setdefault(
            line, {}).setdefault(int(r["streams"]), []).append(num(r["fps"]))
    written = []
    for size in sorted({k[0] for k in cases}):
        chains = [c for (sz, c) in cases if sz == size
                  and any(len(pts) > 1 for pts in cases[(sz, c)].values())]
        if not chains:
            continue
        fig, axes = plt.subplots(1, len(chains), squeeze=False,
                                 figsize=(6.5 * len(chains), 4.8))
        for ax, chain in zip(axes[0], chains):
            for (inp, gpus, setup), pts in sorted(cases[(size, chain)].items()):
                ns = sorted(pts)
                label = "%s: %s%s" % (
                    "decoded by nvh264dec" if inp == "h264"
                    else "%s memory" % ("CUDA" if inp == "cuda" else inp),
                    SETUP_LABELS.get(setup, setup),
                    "" if gpus in ("0", "1") else ", %s GPUs" % gpus)
                ax.plot(ns, [median(pts[n]) for n in ns], label=label,
                        **SETUP_STYLES.get(setup, {}))
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted({n for pts in cases[(size, chain)].values()
                                  for n in pts}))
            ax.get_xaxis().set_major_formatter(
                matplotlib.ticker.ScalarFormatter())
            ax.set_yscale("log")
            ax.set_xlabel("streams (pipelines at once)")
            ax.set_ylabel("frames per second, all streams (log)")
            ax.grid(True, which="both", alpha=0.3)
            ax.set_title(short(chain), fontsize=8)
            ax.legend(fontsize=7)
        fig.suptitle("Many streams, %s, %s" % (size, gpu_title(rows)))
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        path = os.path.join(outdir, "streams-%s.png" % slug(size))
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("inputs", nargs="+", metavar="DIR|CSV")
    ap.add_argument("--out", help="directory for the PNGs (default: that of "
                    "the first input)")
    args = ap.parse_args()
    kernels, pipelines = read(args.inputs)
    first = args.inputs[0]
    outdir = args.out or (first if os.path.isdir(first)
                          else os.path.dirname(first) or ".")
    os.makedirs(outdir, exist_ok=True)
    written = []
    if kernels:
        written += plot_kernels(kernels, outdir)
    if pipelines:
        if any(one_stream(r) for r in pipelines):
            written += plot_pipelines(pipelines, outdir)
        written += plot_streams(pipelines, outdir)
    if not written:
        sys.exit("plot.py: the CSVs hold no rows")
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
