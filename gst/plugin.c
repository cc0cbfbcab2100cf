/* GStreamer
 * gst-cudafilters: plugin registration.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudagray.h"
#include "gstcudablur.h"
#include "gstcudahist.h"
#include "gstcudasum.h"

/* Elements are registered whether or not a GPU is present, so gst-inspect
 * documents them everywhere; without one they fail to start with an error
 * that says so. */
static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = TRUE;

  ok &= GST_ELEMENT_REGISTER (cudagray, plugin);
  ok &= GST_ELEMENT_REGISTER (cudablur, plugin);
  ok &= GST_ELEMENT_REGISTER (cudahist, plugin);
  ok &= GST_ELEMENT_REGISTER (cudasum, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudafilters,
    "GPU video filters and frame statistics with CUDA", plugin_init, VERSION,
    "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
