/* qc-report: the video QC of a file or URI in one command, on the GPU.
 *
 *   qc-report [--frames FILE] [--summary FILE] [--cuda-device-id N]
 *             [--set PROPERTY=VALUE]... [--quiet] FILE-OR-URI
 *
 * Decodes the video with decodebin (which picks a hardware decoder where
 * there is one, and the frames then stay in CUDA memory) into
 * `cudasum detect=crop+black+cut+freeze percentiles=true`, and writes:
 *
 * - JSON lines, one per frame (--frames, default standard output): every
 *   field of the frame's `cudasum` message (docs/cudasum.md), with
 *   "frame", the frame's number from 0;
 * - a summary of the events (docs/qc.md): the scene cuts, black and freeze
 *   segments and crop changes, as JSON (--summary FILE), and in words on
 *   standard error.
 *
 * --set sets a property of cudasum, e.g. --set black-min-duration=500000000
 * (docs/qc.md lists them).  Progress goes to standard error (not with
 * --quiet).  The exit status
 * says what went wrong, with a message: 2 the file or URI cannot be
 * opened, 3 no video or a stream that cannot be decoded, 4 no GPU or a CUDA
 * failure, 5 another error, 64 a wrong command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>
#include <gst/pbutils/pbutils.h>

enum
{
  EXIT_OPEN = 2,
  EXIT_UNSUPPORTED = 3,
  EXIT_GPU = 4,
  EXIT_OTHER = 5,
  EXIT_USAGE = 64,
};

typedef struct
{
  GMainLoop *loop;
  GstElement *pipeline, *sum;
  FILE *frames_out;
  GString *events;              /* the summary's "events" array */
  guint64 frames;
  guint cuts, black, freezes, crops;
  gboolean quiet, progress_shown;
  gint64 started;
  int status;
  gchar *error;
  gchar *missing;               /* a decoder decodebin did not find */
} Report;

/* ---- JSON ---- */

static void
json_string (GString * out, const gchar * text)
{
  /* (a file name need not be UTF-8; JSON must) */
  gchar *s = g_utf8_make_valid (text, -1);
  const gchar *p;

  g_string_append_c (out, '"');
  for (p = s; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_printf (out, "\\%c", *p);
    else if ((guchar) * p < 0x20)
      g_string_append_printf (out, "\\u%04x", *p);
    else
      g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
  g_free (s);
}

static void
json_value (GString * out, const GValue * v)
{
  GType t = G_VALUE_TYPE (v);

  if (t == G_TYPE_UINT)
    g_string_append_printf (out, "%u", g_value_get_uint (v));
  else if (t == G_TYPE_INT)
    g_string_append_printf (out, "%d", g_value_get_int (v));
  else if (t == G_TYPE_UINT64 && g_value_get_uint64 (v) == G_MAXUINT64)
    g_string_append (out, "null");      /* GST_CLOCK_TIME_NONE: not known */
  else if (t == G_TYPE_UINT64)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, g_value_get_uint64 (v));
  else if (t == G_TYPE_INT64)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, g_value_get_int64 (v));
  else if (t == G_TYPE_DOUBLE)
    g_string_append_printf (out, "%.17g", g_value_get_double (v));
  else if (t == G_TYPE_BOOLEAN)
    g_string_append (out, g_value_get_boolean (v) ? "true" : "false");
  else if (t == G_TYPE_STRING)
    json_string (out, g_value_get_string (v));
  else if (t == GST_TYPE_ARRAY) {
    guint i, n = gst_value_array_get_size (v);

    g_string_append_c (out, '[');
    for (i = 0; i < n; i++) {
      if (i)
        g_string_append_c (out, ',');
      json_value (out, gst_value_array_get_value (v, i));
    }
    g_string_append_c (out, ']');
  } else {
    gchar *s = gst_value_serialize (v);

    json_string (out, s ? s : "");
    g_free (s);
  }
}

typedef struct
{
  GString *out;
  gboolean first;
} JsonFields;

static gboolean
json_field (GQuark field, const GValue * value, gpointer user_data)
{
  JsonFields *j = user_data;

  if (!j->first)
    g_string_append_c (j->out, ',');
  j->first = FALSE;
  json_string (j->out, g_quark_to_string (field));
  g_string_append_c (j->out, ':');
  json_value (j->out, value);
  return TRUE;
}

/* {"NAME": NAME, fields...}: every field of @s */
static void
json_structure (GString * out, const gchar * name_key, const gchar * name,
    const GstStructure * s)
{
  JsonFields j = { out, FALSE };

  g_string_append_c (out, '{');
  json_string (out, name_key);
  g_string_append_c (out, ':');
  json_string (out, name);
  gst_structure_foreach (s, json_field, &j);
  g_string_append_c (out, '}');
}

/* ---- the messages ---- */

static gdouble
seconds (const GstStructure * s, const gchar * field)
{
  guint64 t = GST_CLOCK_TIME_NONE;

  gst_structure_get_uint64 (s, field, &t);
  return GST_CLOCK_TIME_IS_VALID (t) ? (gdouble) t / GST_SECOND : -1.0;
}

static void
on_frame (Report * r, const GstStructure * s)
{
  GString *line = g_string_new (NULL);
  JsonFields j = { line, FALSE };

  g_string_append_printf (line, "{\"frame\":%" G_GUINT64_FORMAT, r->frames);
  gst_structure_foreach (s, json_field, &j);
  g_string_append (line, "}\n");
  fputs (line->str, r->frames_out);
  g_string_free (line, TRUE);
  r->frames++;
}

static void
on_event (Report * r, const GstStructure * s)
{
  const gchar *event = gst_structure_get_name (s) + strlen ("cudasum-");
  guint64 frame = 0;

  if (r->events->len > 1)
    g_string_append (r->events, ",\n    ");
  json_structure (r->events, "event", event, s);
  gst_structure_get_uint64 (s, "frame", &frame);

  if (!strcmp (event, "scene-cut")) {
    r->cuts++;
  } else if (g_str_has_suffix (event, "-end")) {
    gboolean black = g_str_has_prefix (event, "black");

    if (black)
      r->black++;
    else
      r->freezes++;
    if (!r->quiet)
      g_printerr ("%s%s from %.3f s to %.3f s (%.3f s)\n",
          r->progress_shown ? "\n" : "", black ? "black" : "freeze",
          seconds (s, "start-timestamp"), seconds (s, "timestamp"),
          seconds (s, "duration"));
    r->progress_shown = FALSE;
  } else if (!strcmp (event, "crop-changed")) {
    r->crops++;
  }
}

static gboolean
show_progress (gpointer data)
{
  Report *r = data;
  gint64 pos = -1, dur = -1;
  gdouble elapsed = (g_get_monotonic_time () - r->started) / 1e6;

  gst_element_query_position (r->pipeline, GST_FORMAT_TIME, &pos);
  gst_element_query_duration (r->pipeline, GST_FORMAT_TIME, &dur);
  if (pos >= 0 && dur > 0)
    g_printerr ("\r%.1f s of %.1f s (%.0f%%), %" G_GUINT64_FORMAT
        " frames, %.0f frames/s   ", (gdouble) pos / GST_SECOND,
        (gdouble) dur / GST_SECOND, 100.0 * pos / dur, r->frames,
        elapsed > 0 ? r->frames / elapsed : 0.0);
  else
    g_printerr ("\r%" G_GUINT64_FORMAT " frames   ", r->frames);
  r->progress_shown = TRUE;
  return G_SOURCE_CONTINUE;
}

static void
fail (Report * r, int status, const gchar * what, const gchar * detail)
{
  if (r->status == 0) {
    r->status = status;
    r->error = g_strdup_printf ("%s%s%s", what, detail ? ": " : "",
        detail ? detail : "");
  }
  g_main_loop_quit (r->loop);
}

/* Why the pipeline stopped, in the user's terms */
static void
on_error (Report * r, GstMessage * msg)
{
  GError *err = NULL;
  gchar *debug = NULL;
  GstObject *src = GST_MESSAGE_SRC (msg);

  gst_message_parse_error (msg, &err, &debug);
  if (src == GST_OBJECT (r->sum) && err->domain == GST_STREAM_ERROR)
    fail (r, EXIT_UNSUPPORTED, "cudasum cannot analyse this video",
        err->message);
  else if (src == GST_OBJECT (r->sum))
    fail (r, EXIT_GPU, "the GPU analysis failed", err->message);
  else if (err->domain == GST_RESOURCE_ERROR)
    fail (r, EXIT_OPEN, "cannot read the input", err->message);
  else if (err->domain == GST_STREAM_ERROR || err->domain == GST_CORE_ERROR)
    fail (r, EXIT_UNSUPPORTED, "cannot decode the video", err->message);
  else
    fail (r, EXIT_OTHER, "error", err->message);
  g_clear_error (&err);
  g_free (debug);
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Report *r = data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *s = gst_message_get_structure (msg);

      /* (an audio or subtitle stream without a decoder is no failure:
       * the video plays on; without video no frame comes) */
      if (gst_is_missing_plugin_message (msg)) {
        g_free (r->missing);
        r->missing = gst_missing_plugin_message_get_description (msg);
      } else if (gst_structure_has_name (s, "cudasum")) {
        on_frame (r, s);
      } else if (g_str_has_prefix (gst_structure_get_name (s), "cudasum-")) {
        on_event (r, s);
      }
      break;
    }
    case GST_MESSAGE_ERROR:
      on_error (r, msg);
      break;
    case GST_MESSAGE_EOS:
      g_main_loop_quit (r->loop);
      break;
    default:
      break;
  }
  return TRUE;
}

/* @value, parsed as a launch line would, into the property @name */
static gboolean
set_property (GstElement * e, const gchar * name, const gchar * value)
{
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      name);
  GValue v = G_VALUE_INIT;
  gboolean ok;

  g_value_init (&v, spec->value_type);
  ok = gst_value_deserialize (&v, value);
  if (ok)
    g_object_set_property (G_OBJECT (e), name, &v);
  g_value_unset (&v);
  return ok;
}

/* A decoded video stream: to cudasum as it is (in CUDA memory from a
 * hardware decoder), or through videoconvert when cudasum does not take
 * its format. */
static void
on_pad_added (GstElement * decoder, GstPad * pad, gpointer data)
{
  Report *r = data;
  GstPad *sink = gst_element_get_static_pad (r->sum, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean video, cuda;

  if (!caps)
    caps = gst_pad_query_caps (pad, NULL);
  video = !gst_caps_is_empty (caps) && g_str_has_prefix
      (gst_structure_get_name (gst_caps_get_structure (caps, 0)), "video/");
  cuda = video && gst_caps_features_contains (gst_caps_get_features (caps, 0),
      "memory:CUDAMemory");
  if (!video || gst_pad_is_linked (sink)) {
    /* another stream, or a second video: left unlinked */
  } else if (gst_pad_link (pad, sink) == GST_PAD_LINK_OK) {
    /* straight in, in CUDA memory from a hardware decoder */
  } else if (cuda) {
    gchar *what = gst_caps_to_string (caps);

    fail (r, EXIT_UNSUPPORTED, "cudasum does not take this video", what);
    g_free (what);
  } else {
    GstElement *convert = gst_element_factory_make ("videoconvert", NULL);
    GstPad *in = NULL;

    if (!convert || !gst_bin_add (GST_BIN (r->pipeline), convert) ||
        !gst_element_link (convert, r->sum) ||
        !gst_element_sync_state_with_parent (convert) ||
        !(in = gst_element_get_static_pad (convert, "sink")) ||
        gst_pad_link (pad, in) != GST_PAD_LINK_OK)
      fail (r, EXIT_UNSUPPORTED, "cannot convert this video for cudasum", NULL);
    gst_clear_object (&in);
  }
  gst_caps_unref (caps);
  gst_object_unref (sink);
}

static void
write_summary (Report * r, const gchar * path, const gchar * input)
{
  GString *out = g_string_new ("{\n  \"input\": ");
  FILE *f;

  json_string (out, input);
  g_string_append_printf (out, ",\n  \"status\": %d,\n  \"error\": ",
      r->status);
  if (r->error)
    json_string (out, r->error);
  else
    g_string_append (out, "null");
  g_string_append_printf (out, ",\n  \"frames\": %" G_GUINT64_FORMAT
      ",\n  \"scene-cuts\": %u,\n  \"black-segments\": %u,\n"
      "  \"freezes\": %u,\n  \"crop-changes\": %u,\n  \"events\": [%s]\n}\n",
      r->frames, r->cuts, r->black, r->freezes, r->crops, r->events->str + 1);
  f = fopen (path, "w");
  if (!f || fputs (out->str, f) < 0) {
    g_printerr ("cannot write %s\n", path);
    r->status = r->status ? r->status : EXIT_OTHER;
  }
  if (f)
    fclose (f);
  g_string_free (out, TRUE);
}

int
main (int argc, char **argv)
{
  Report r = { 0, };
  const gchar *input = NULL, *frames_path = "-", *summary_path = NULL;
  gint device_id = -1;
  GstElement *decoder, *sink;
  GstBus *bus;
  gchar *uri;
  guint progress = 0;
  gboolean usage = FALSE;
  GPtrArray *sets = g_ptr_array_new ();
  int i;

  gst_init (&argc, &argv);
  for (i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--frames") && i + 1 < argc)
      frames_path = argv[++i];
    else if (!strcmp (argv[i], "--summary") && i + 1 < argc)
      summary_path = argv[++i];
    else if (!strcmp (argv[i], "--cuda-device-id") && i + 1 < argc) {
      gchar *end;

      device_id = (gint) strtol (argv[++i], &end, 10);
      usage |= *end != '\0' || end == argv[i];
    } else if (!strcmp (argv[i], "--set") && i + 1 < argc &&
        strchr (argv[i + 1], '='))
      g_ptr_array_add (sets, argv[++i]);
    else if (!strcmp (argv[i], "--quiet"))
      r.quiet = TRUE;
    else if (argv[i][0] != '-' && !input)
      input = argv[i];
    else
      usage = TRUE;
  }
  if (!input || usage) {
    g_printerr ("usage: %s [--frames FILE] [--summary FILE] "
        "[--cuda-device-id N] [--set PROPERTY=VALUE]... [--quiet] "
        "FILE-OR-URI\n", argv[0]);
    return EXIT_USAGE;
  }
  if (gst_uri_is_valid (input)) {
    uri = g_strdup (input);
  } else if (!g_file_test (input, G_FILE_TEST_IS_REGULAR)) {
    g_printerr ("%s: no such file\n", input);
    return EXIT_OPEN;
  } else {
    uri = gst_filename_to_uri (input, NULL);
  }

  r.pipeline = gst_pipeline_new ("qc-report");
  decoder = gst_element_factory_make ("uridecodebin", NULL);
  r.sum = gst_element_factory_make ("cudasum", NULL);
  sink = gst_element_factory_make ("fakesink", NULL);
  if (!decoder || !r.sum || !sink) {
    g_printerr ("missing GStreamer elements: %s\n", !decoder ?
        "uridecodebin (gst-plugins-base)" : !r.sum ?
        "cudasum (is GST_PLUGIN_PATH set to gst-cudafilters' plugin?)" :
        "fakesink");
    return EXIT_OTHER;
  }
  g_object_set (decoder, "uri", uri, NULL);
  gst_util_set_object_arg (G_OBJECT (r.sum), "detect", "crop+black+cut+freeze");
  g_object_set (r.sum, "percentiles", TRUE, "cuda-device-id", device_id, NULL);
  for (i = 0; i < (int) sets->len; i++) {
    gchar **kv = g_strsplit (g_ptr_array_index (sets, i), "=", 2);
    gboolean known = g_object_class_find_property (G_OBJECT_GET_CLASS
        (r.sum), kv[0]) != NULL;

    /* the report needs a message a frame */
    gboolean ok = known && !g_str_equal (kv[0], "post-messages") &&
        !g_str_equal (kv[0], "interval") && set_property (r.sum, kv[0], kv[1]);

    if (!ok)
      g_printerr ("cannot set cudasum's %s to %s\n", kv[0], kv[1]);
    g_strfreev (kv);
    if (!ok)
      return EXIT_USAGE;
  }
  g_ptr_array_free (sets, TRUE);
  g_object_set (sink, "sync", FALSE, NULL);
  gst_bin_add_many (GST_BIN (r.pipeline), decoder, r.sum, sink, NULL);
  gst_element_link (r.sum, sink);
  g_signal_connect (decoder, "pad-added", G_CALLBACK (on_pad_added), &r);

  if (!strcmp (frames_path, "-"))
    r.frames_out = stdout;
  else if (!(r.frames_out = fopen (frames_path, "w"))) {
    g_printerr ("cannot write %s\n", frames_path);
    return EXIT_OTHER;
  }
  r.events = g_string_new ("[");
  r.loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (r.pipeline);
  gst_bus_add_watch (bus, on_message, &r);
  if (!r.quiet && isatty (STDERR_FILENO))
    progress = g_timeout_add (500, show_progress, &r);
  r.started = g_get_monotonic_time ();
  if (gst_element_set_state (r.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE && !r.status) {
    /* the bus has said why, unless the failure posted nothing */
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

    if (msg) {
      on_error (&r, msg);
      gst_message_unref (msg);
    } else {
      fail (&r, EXIT_OTHER, "the pipeline would not start", NULL);
    }
  }
  if (!r.status)
    g_main_loop_run (r.loop);

  if (progress)
    g_source_remove (progress);
  gst_element_set_state (r.pipeline, GST_STATE_NULL);
  if (r.status == 0 && r.frames == 0)
    fail (&r, EXIT_UNSUPPORTED, "no video frame was analysed", r.missing ?
        r.missing : NULL);
  if (r.progress_shown)
    g_printerr ("\n");
  if (r.status != 0) {
    g_printerr ("%s: %s\n", input, r.error);
  } else if (!r.quiet) {
    g_printerr ("%" G_GUINT64_FORMAT " frames: %u scene cut(s), %u black "
        "segment(s), %u freeze(s), %u crop change(s)\n", r.frames, r.cuts,
        r.black, r.freezes, r.crops);
  }
  if (r.frames_out != stdout ? fclose (r.frames_out) != 0 :
      fflush (stdout) != 0)
    fail (&r, EXIT_OTHER, "cannot write the frames' lines", frames_path);
  if (summary_path)
    write_summary (&r, summary_path, input);

  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_object_unref (r.pipeline);
  g_main_loop_unref (r.loop);
  g_string_free (r.events, TRUE);
  g_free (r.error);
  g_free (r.missing);
  g_free (uri);
  return r.status;
}
