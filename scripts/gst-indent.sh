#!/usr/bin/env bash
# Formats C files in GStreamer's style (GNU indent, as GStreamer's gst-indent).
#   bash scripts/gst-indent.sh FILE...
set -euo pipefail
for f in "$@"; do
  indent --braces-on-if-line --case-brace-indentation0 --case-indentation2 \
    --braces-after-struct-decl-line --line-length80 --no-tabs --cuddle-else \
    --dont-line-up-parentheses --continuation-indentation4 --honour-newlines \
    --tab-size8 --indent-level2 --leave-preprocessor-space "$f"
  rm -f "$f~"
done
