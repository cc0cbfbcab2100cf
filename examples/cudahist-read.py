#!/usr/bin/env python3
"""Reading cudahist's results from Python (the snippet of docs/cudahist.md).

    cudahist-read.py                  run a test pattern through cudahist,
                                      print each message's histogram and
                                      check it against the frame's meta,
                                      with array-format value-array and
                                      buffer: the same counts
    cudahist-read.py --parse FILE     read messages as `gst-launch-1.0 -m`
                                      prints them, one per line

Needs PyGObject and GStreamer's Python overrides (Debian: python3-gi,
python3-gst-1.0), which turn the count arrays into Python sequences.
"""
import struct
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402


buffers_seen = False


def counts(value):
    """A channel's counts: a sequence (array-format=value-array), or a
    Gst.Buffer of guint64 in the machine's byte order (array-format=buffer,
    cheaper to build and to read)."""
    global buffers_seen
    if isinstance(value, Gst.Buffer):
        buffers_seen = True
        data = value.extract_dup(0, value.get_size())
        return list(struct.unpack("=%dQ" % (len(data) // 8), data))
    return list(value)


def histogram(structure):
    """{channel: [counts]} of a `cudahist` message or GstCudaHistMeta."""
    return {name: counts(structure.get_value(name))
            for name in structure.get_value("channels")}


def check(hist, pixels):
    """The first channel (R or Y) is never subsampled: one count a pixel."""
    first = next(iter(hist.values()))
    assert sum(first) == pixels, (sum(first), pixels)


def on_message(bus, message, state):
    if message.type == Gst.MessageType.ELEMENT:
        s = message.get_structure()
        if s.has_name("cudahist"):
            _, ts = s.get_uint64("timestamp")
            _, pixels = s.get_uint64("pixels")
            hist = histogram(s)
            check(hist, pixels)
            print(f"{ts / Gst.SECOND:.3f}s", {n: c[:4] for n, c in hist.items()})
            state["messages"].append(hist)
    elif message.type == Gst.MessageType.ERROR:
        err, _ = message.parse_error()
        state["error"] = err.message
        state["loop"].quit()
    elif message.type == Gst.MessageType.EOS:
        state["loop"].quit()
    return True


def on_buffer(pad, info, state):
    """The meta: the same fields, with the frame."""
    meta = info.get_buffer().get_custom_meta("GstCudaHistMeta")
    if meta is not None:
        state["metas"].append(histogram(meta.get_structure()))
    return Gst.PadProbeReturn.OK


def run_pipeline(array_format):
    pipeline = Gst.parse_launch(
        "videotestsrc num-buffers=5 pattern=smpte ! "
        "video/x-raw,format=RGBA,width=320,height=240 ! "
        "cudahist name=hist bins=16 attach-meta=true "
        f"array-format={array_format} ! fakesink name=sink")
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
        return None
    assert len(state["messages"]) == 5 and state["messages"] == state["metas"]
    return state["messages"]


def parse(path):
    count = 0
    with open(path) as f:
        for line in f:
            # gst-launch -m: 'Got message #N from element "x" (element): cudahist, ...'
            start = line.find("cudahist, ")
            if start < 0:
                continue
            s = Gst.Structure.from_string(line[start:].strip())[0]
            _, pixels = s.get_uint64("pixels")
            hist = histogram(s)
            check(hist, pixels)
            print({n: c[:4] for n, c in hist.items()})
            count += 1
    return 0 if count else 1


if __name__ == "__main__":
    Gst.init(None)
    if len(sys.argv) == 3 and sys.argv[1] == "--parse":
        sys.exit(parse(sys.argv[2]))
    arrays = run_pipeline("value-array")
    buffers = run_pipeline("buffer")
    if arrays is None or buffers is None:
        sys.exit(1)
    # the same counts, though the second run's came as buffers
    assert arrays == buffers and buffers_seen
    sys.exit(0)
