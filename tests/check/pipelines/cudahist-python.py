#!/usr/bin/env python3
"""The Python snippet of docs/cudahist.md (examples/cudahist-read.py):

- on messages a GPU run printed (tests/data/cudahist-gst-launch.txt, from
  `gst-launch-1.0 -m ... ! cudahist ! ...` on an H100): it must read every
  channel's counts, and they must sum to the pixels;
- with a GPU, on a live pipeline: messages and metas, the same counts
  with array-format value-array and buffer.

Exits 77 (skipped) without PyGObject and GStreamer's Python overrides, and
skips the live part without a GPU."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "..")
script = os.path.join(root, "examples", "cudahist-read.py")

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    # the overrides make GstValueArray a sequence
    Gst.Structure.from_string("t, a=(int)<1>")[0].get_value("a")[0]
except Exception as e:  # noqa: BLE001
    print("SKIP: no PyGObject with GStreamer's overrides:", e)
    sys.exit(77)

data = os.path.join(here, "data", "cudahist-gst-launch.txt")
subprocess.run([sys.executable, script, "--parse", data], check=True)
print("parsed the messages of a GPU run")

element = Gst.ElementFactory.make("cudahist")
if element is None:
    print("FAIL: the plugin is not found")
    sys.exit(1)
if element.set_state(Gst.State.PAUSED) == Gst.StateChangeReturn.FAILURE:
    element.set_state(Gst.State.NULL)
    print("no GPU here: the live pipeline part is skipped")
    sys.exit(0)
element.set_state(Gst.State.NULL)
subprocess.run([sys.executable, script], check=True)
print("read the messages and metas of a live pipeline")
