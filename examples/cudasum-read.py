#!/usr/bin/env python3
"""Reading cudasum's results from Python (the snippet of docs/cudasum.md).

    cudasum-read.py                   run a letterboxed test pattern through
                                      cudasum, print each message's means,
                                      standard deviations and crop rectangle
                                      and check them against the frame's meta
    cudasum-read.py --parse FILE      read messages as `gst-launch-1.0 -m`
                                      prints them, one per line

Needs PyGObject and GStreamer's Python overrides (Debian: python3-gi,
python3-gst-1.0), which turn the arrays into Python sequences.
"""
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

CROP_FIELDS = ("crop-x", "crop-y", "crop-width", "crop-height")

# videobox adds 60 black rows above and below a 640x360 picture: the
# picture is 640x360 at (0, 60) of the 640x480 frame (docs/cudasum.md)
LETTERBOX = (0, 60, 640, 360)


def statistics(structure):
    """{channel: (mean, stddev)} and the crop rectangle (x, y, width,
    height), None without detect=crop, of a `cudasum` message or
    GstCudaSumMeta."""
    stats = dict(zip(structure.get_value("channels"),
                     zip(structure.get_value("mean"),
                         structure.get_value("stddev"))))
    crop = None
    if structure.has_field("crop-x"):
        crop = tuple(structure.get_value(f) for f in CROP_FIELDS)
    return stats, crop


def check(stats, crop, pixels):
    """Samples lie in 0-255: so does each mean, and the variance is at most
    mean * (255 - mean).  The crop rectangle holds at most the pixels."""
    for mean, stddev in stats.values():
        assert 0.0 <= mean <= 255.0, mean
        assert stddev * stddev <= mean * (255.0 - mean) + 1e-6, (mean, stddev)
    if crop is not None:
        assert crop[2] * crop[3] <= pixels, (crop, pixels)


def show(stats, crop):
    return ({n: (round(m, 3), round(sd, 3)) for n, (m, sd) in stats.items()},
            crop)


def on_message(bus, message, state):
    if message.type == Gst.MessageType.ELEMENT:
        s = message.get_structure()
        if s.has_name("cudasum"):
            _, ts = s.get_uint64("timestamp")
            _, pixels = s.get_uint64("pixels")
            stats, crop = statistics(s)
            check(stats, crop, pixels)
            print(f"{ts / Gst.SECOND:.3f}s", *show(stats, crop))
            state["messages"].append((stats, crop))
    elif message.type == Gst.MessageType.ERROR:
        err, _ = message.parse_error()
        state["error"] = err.message
        state["loop"].quit()
    elif message.type == Gst.MessageType.EOS:
        state["loop"].quit()
    return True


def on_buffer(pad, info, state):
    """The meta: the same fields, with the frame."""
    meta = info.get_buffer().get_custom_meta("GstCudaSumMeta")
    if meta is not None:
        state["metas"].append(statistics(meta.get_structure()))
    return Gst.PadProbeReturn.OK


def run_pipeline():
    pipeline = Gst.parse_launch(
        "videotestsrc num-buffers=5 pattern=smpte ! "
        "video/x-raw,width=640,height=360 ! "
        "videobox top=-60 bottom=-60 fill=black ! "
        "video/x-raw,format=RGBA ! "
        "cudasum name=sum detect=crop attach-meta=true ! fakesink name=sink")
    state = {"loop": GLib.MainLoop(), "messages": [], "metas": [],
             "error": None}
    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message, state)
    pipeline.get_by_name("sink").get_static_pad("sink").add_probe(
        Gst.PadProbeType.BUFFER, on_buffer, state)
    pipeline.set_state(Gst.State.PLAYING)
    state["loop"].run()
    pipeline.set_state(Gst.State.NULL)
    if state["error"]:
        print("error:", state["error"], file=sys.stderr)
        return 1
    assert len(state["messages"]) == 5 and state["messages"] == state["metas"]
    assert all(crop == LETTERBOX for _, crop in state["messages"])
    return 0


def parse(path):
    count = 0
    with open(path) as f:
        for line in f:
            # gst-launch -m: 'Got message #N from element "x" (element): cudasum, ...'
            start = line.find("cudasum, ")
            if start < 0:
                continue
            s = Gst.Structure.from_string(line[start:].strip())[0]
            _, pixels = s.get_uint64("pixels")
            stats, crop = statistics(s)
            check(stats, crop, pixels)
            print(*show(stats, crop))
            count += 1
    return 0 if count else 1


if __name__ == "__main__":
    Gst.init(None)
    if len(sys.argv) == 3 and sys.argv[1] == "--parse":
        sys.exit(parse(sys.argv[2]))
    sys.exit(run_pipeline())
