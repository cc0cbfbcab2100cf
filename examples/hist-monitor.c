/* A live histogram monitor in the terminal.
 *
 *   hist-monitor [URI] [--bins N] [--frames N]
 *
 * Plays a test pattern (a moving ball over a colour test pattern), or any
 * URI GStreamer can decode, through cudahist, and redraws the histogram of
 * every channel in the terminal for each message: one row per channel, one
 * column per bin, heights in Unicode eighth blocks, scaled to the channel's
 * largest bin.  It shows how an application reads the `cudahist` message:
 * the `channels` array names the channels, and each channel's field is an
 * array of uint64 counts.
 *
 * --frames N stops after N frames (default: until EOS or Ctrl-C).  Without
 * a terminal (output redirected) it prints each message's counts as text
 * instead of drawing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>

typedef struct
{
  GMainLoop *loop;
  gboolean draw;
  guint frames;
  guint max_frames;
  GstElement *pipeline;
} Monitor;

static const gchar *blocks[] =
    { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };

#define ROWS 6                  /* text rows per channel */

/* One channel's histogram as ROWS rows of bars. */
static void
draw_channel (const gchar * name, const GValue * counts)
{
  guint n = gst_value_array_get_size (counts), i, row;
  guint64 max = 1;

  for (i = 0; i < n; i++)
    max = MAX (max, g_value_get_uint64 (gst_value_array_get_value (counts, i)));
  for (row = ROWS; row > 0; row--) {
    printf ("%s ", row == ROWS ? name : " ");
    for (i = 0; i < n; i++) {
      guint64 c = g_value_get_uint64 (gst_value_array_get_value (counts, i));
      /* height in eighths of a row */
      guint64 eighths = c * ROWS * 8 / max;
      guint64 base = (guint64) (row - 1) * 8;
      guint level = eighths <= base ? 0 : MIN (eighths - base, 8);
      fputs (blocks[level], stdout);
    }
    printf ("\033[K\n");
  }
}

static void
print_channel (const gchar * name, const GValue * counts)
{
  guint n = gst_value_array_get_size (counts), i;

  printf ("%s:", name);
  for (i = 0; i < n; i++)
    printf (" %" G_GUINT64_FORMAT,
        g_value_get_uint64 (gst_value_array_get_value (counts, i)));
  printf ("\n");
}

static void
show_histogram (Monitor * m, const GstStructure * s)
{
  const GValue *channels = gst_structure_get_value (s, "channels");
  guint64 ts = GST_CLOCK_TIME_NONE, pixels = 0;
  guint frames = 0, c;

  gst_structure_get_uint64 (s, "timestamp", &ts);
  gst_structure_get_uint64 (s, "pixels", &pixels);
  gst_structure_get_uint (s, "frames", &frames);
  if (m->draw)
    printf ("\033[H");          /* home: redraw in place */
  printf ("cudahist  %" GST_TIME_FORMAT "  %u frame(s), %" G_GUINT64_FORMAT
      " pixels%s\n", GST_TIME_ARGS (ts), frames, pixels,
      m->draw ? "\033[K" : "");
  for (c = 0; channels && c < gst_value_array_get_size (channels); c++) {
    const gchar *name =
        g_value_get_string (gst_value_array_get_value (channels, c));
    const GValue *counts = gst_structure_get_value (s, name);

    if (!counts)
      continue;
    if (m->draw)
      draw_channel (name, counts);
    else
      print_channel (name, counts);
  }
  fflush (stdout);
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Monitor *m = user_data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *s = gst_message_get_structure (msg);
      if (gst_structure_has_name (s, "cudahist")) {
        guint frames = 0;
        show_histogram (m, s);
        gst_structure_get_uint (s, "frames", &frames);
        m->frames += frames;
        if (m->max_frames && m->frames >= m->max_frames)
          g_main_loop_quit (m->loop);
      }
      break;
    }
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *debug = NULL;
      gst_message_parse_error (msg, &err, &debug);
      fprintf (stderr, "error from %s: %s\n%s\n", GST_OBJECT_NAME
          (GST_MESSAGE_SRC (msg)), err->message, debug ? debug : "");
      g_clear_error (&err);
      g_free (debug);
      g_main_loop_quit (m->loop);
      break;
    }
    case GST_MESSAGE_EOS:
      g_main_loop_quit (m->loop);
      break;
    default:
      break;
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  Monitor m = { 0, };
  const gchar *uri = NULL;
  guint bins = 64;
  gchar *launch;
  GError *err = NULL;
  GstBus *bus;
  int i, status = 0;

  gst_init (&argc, &argv);
  for (i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--bins") && i + 1 < argc)
      bins = (guint) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--frames") && i + 1 < argc)
      m.max_frames = (guint) atoi (argv[++i]);
    else if (argv[i][0] != '-' && !uri)
      uri = argv[i];
    else {
      fprintf (stderr, "usage: %s [URI] [--bins N] [--frames N]\n", argv[0]);
      return 2;
    }
  }

  /* a test pattern at 30 fps shown in real time, or the file as fast as
   * it decodes: either way each frame's histogram is drawn */
  if (uri)
    launch = g_strdup_printf ("uridecodebin uri=%s ! videoconvert ! "
        "video/x-raw,format={RGBA,BGRA,RGBx,BGRx,I420,NV12} ! "
        "cudahist name=hist bins=%u ! fakesink sync=true", uri, bins);
  else
    launch = g_strdup_printf ("videotestsrc pattern=ball background-color="
        "0xff2060a0 ! video/x-raw,format=RGBA,width=1280,height=720,"
        "framerate=30/1 ! cudahist name=hist bins=%u ! fakesink sync=true",
        bins);
  m.pipeline = gst_parse_launch (launch, &err);
  g_free (launch);
  if (!m.pipeline) {
    fprintf (stderr, "could not make the pipeline: %s\n", err->message);
    g_clear_error (&err);
    return 1;
  }

  m.draw = isatty (STDOUT_FILENO);
  if (m.draw)
    printf ("\033[2J");         /* clear the screen once */
  m.loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (m.pipeline);
  gst_bus_add_watch (bus, on_message, &m);
  if (gst_element_set_state (m.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    /* the bus says why; run the loop until it has */
    status = 1;
  }
  g_main_loop_run (m.loop);

  gst_element_set_state (m.pipeline, GST_STATE_NULL);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_object_unref (m.pipeline);
  g_main_loop_unref (m.loop);
  if (m.frames == 0)
    status = 1;
  printf ("%u frame(s) shown\n", m.frames);
  return status;
}
