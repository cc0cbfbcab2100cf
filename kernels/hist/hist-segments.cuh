/* How a warp counts its items, whichever the layout of its counters
 * (`Counters`: BlockWords or WarpBytes): an item's segment of a row or of
 * a run of units, its body loaded a unit a lane before any is counted, its
 * head and tail bytes one a lane, and the loop over a plane's items that
 * keeps the next one's loads in flight.  hist.cu includes it; see
 * docs/design/hist.md. */
#ifndef CUDAFILTERS_HIST_SEGMENTS_CUH
#define CUDAFILTERS_HIST_SEGMENTS_CUH

#include "hist-device.cuh"

namespace {

/* What a warp counts of one item: a segment, units [u0, u1) of 16 (or 48)
 * bytes.  Of a row: from `body`, which is 16-byte aligned at row byte
 * index `head`.  Of a run: unit u is unit u % units_per_row of row
 * u / units_per_row from `body`, the plane's first byte. */
struct Segment
{
  const uint8_t *row;
  const uint8_t *body;
  int head;                     /* bytes before the body */
  int tail_from;                /* the row's bytes after the last unit */
  int u0, u1;
  bool first, last;             /* of its row: counts head / tail bytes */
};

template < Layout L, int BPP, bool RUN > __device__ __forceinline__ Segment
segment_of (const PlaneArgs & pl, int item)
{
  constexpr int UNIT = unit_bytes < BPP > ();
  constexpr int SEGMENT_UNITS = segment_units < L, BPP > ();
  Segment s;
  int local = item - pl.first_item;
  if constexpr (RUN) {
    s.row = s.body = pl.data;
    s.head = s.tail_from = 0;
    s.u0 = local * pl.run_item_units;
    s.u1 = min (pl.units, s.u0 + pl.run_item_units);
    s.first = s.last = false;
    return s;
  }
  int y = local / pl.segments;
  int seg = local - y * pl.segments;
  s.row = pl.data + (size_t) y * pl.pitch;
  s.head = (int) ((16 - ((uintptr_t) s.row & 15)) & 15);
  if (s.head > pl.row_bytes)
    s.head = pl.row_bytes;
  int units = (pl.row_bytes - s.head) / UNIT;
  s.body = s.row + s.head;
  s.tail_from = s.head + units * UNIT;
  s.u0 = seg * SEGMENT_UNITS;
  s.u1 = min (units, s.u0 + SEGMENT_UNITS);
  s.first = seg == 0;
  s.last = seg == pl.segments - 1;
  return s;
}

template < Layout L, int BPP > using BodyWords =
    uint32_t[units_per_lane < L, BPP > ()][unit_bytes < BPP > () / 4];

template < int BPP > __device__ __forceinline__ void
load_unit (const uint8_t * p, uint32_t (&w)[unit_bytes < BPP > () / 4])
{
  const uint4 *v = reinterpret_cast < const uint4 * >(p);
#pragma unroll
  for (int j = 0; j < unit_bytes < BPP > () / 16; j++) {
    uint4 q = __ldg (v + j);
    w[4 * j + 0] = q.x;
    w[4 * j + 1] = q.y;
    w[4 * j + 2] = q.z;
    w[4 * j + 3] = q.w;
  }
}

/* Issues a segment's body loads (lane l: units u0 + l, u0 + l + 32, ...);
 * nothing waits for them until the words are counted. */
template < Layout L, int BPP, bool RUN > __device__ __forceinline__ void
load_body (const PlaneArgs & pl, const Segment & s, int lane,
    BodyWords < L, BPP > &words)
{
  constexpr int U = units_per_lane < L, BPP > ();
  constexpr size_t UNIT = unit_bytes < BPP > ();
  if constexpr (!RUN) {
    /* one row: the units at fixed offsets, no arithmetic per unit */
#pragma unroll
    for (int i = 0; i < U; i++) {
      const int u = s.u0 + lane + 32 * i;
      if (u < s.u1)
        load_unit < BPP > (s.body + u * UNIT, words[i]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < U; i++) {
      const int u = s.u0 + lane + 32 * i;
      if (u < s.u1) {
        /* exact for any u < 2^31: the rounding up of row_of_unit adds
         * less than 1 / units_per_row to the quotient */
        const int y = (int) __umul64hi ((uint64_t) u, pl.row_of_unit);
        const int x = u - y * pl.units_per_row;
        load_unit < BPP > (s.body + (size_t) y * pl.pitch + x * UNIT,
            words[i]);
      }
    }
  }
}

/* Counts loaded body words; Q = head % 4 (or % 3) gives each byte's
 * sub-counter. */
template < Layout L, int BPP, int Q, class Counters >
    __device__ __forceinline__ void
count_body (const Segment & s, int lane, Counters & counters,
    const BodyWords < L, BPP > &words)
{
  constexpr int U = units_per_lane < L, BPP > ();
  constexpr int WORDS = unit_bytes < BPP > () / 4;
  constexpr int M = BPP == 3 ? 3 : 4;
#pragma unroll
  for (int i = 0; i < U; i++) {
    if (s.u0 + lane + 32 * i < s.u1) {
#pragma unroll
      for (int k = 0; k < WORDS; k++) {
        const uint32_t w = words[i][k];
        counters.add ((Q + 4 * k) % M, value_offset < 0 > (w));
        counters.add ((Q + 4 * k + 1) % M, value_offset < 1 > (w));
        counters.add ((Q + 4 * k + 2) % M, value_offset < 2 > (w));
        counters.add ((Q + 4 * k + 3) % M, value_offset < 3 > (w));
      }
    }
  }
}

/* Head and tail bytes [from, to) of a row, one per lane. */
template < int BPP, class Counters > __device__ __forceinline__ void
count_bytes (const uint8_t * row, int from, int to, int lane,
    Counters & counters)
{
  for (int i = from + lane; i < to; i += 32)
    counters.add_any (BPP == 3 ? i % 3 : i & 3, (uint32_t) row[i] << 7);
}

/* Counts a segment whose body words are loaded. */
template < Layout L, int BPP, bool RUN, class Counters >
    __device__ __forceinline__ void
count_segment (const Segment & s, const PlaneArgs & pl, int lane,
    Counters & counters, const BodyWords < L, BPP > &words)
{
  if constexpr (RUN) {
    /* aligned rows of whole units: no head, no tail */
    count_body < L, BPP, 0 > (s, lane, counters, words);
    return;
  }
  if (s.first)
    count_bytes < BPP > (s.row, 0, s.head, lane, counters);
  if (s.u0 < s.u1) {
    /* warp-uniform: the whole warp works on one row */
    switch (BPP == 3 ? s.head % 3 : s.head & 3) {
      case 0:
        count_body < L, BPP, 0 > (s, lane, counters, words);
        break;
      case 1:
        count_body < L, BPP, 1 > (s, lane, counters, words);
        break;
      case 2:
        count_body < L, BPP, 2 > (s, lane, counters, words);
        break;
      default:
        if constexpr (BPP != 3)
          count_body < L, BPP, 3 > (s, lane, counters, words);
        break;
    }
  }
  if (s.last)
    count_bytes < BPP > (s.row, s.tail_from, pl.row_bytes, lane, counters);
}

/* This warp's items of one plane, from the queue's current one on: first
 * those dealt to it, then (SHARE) those it asks for.  While dealt items
 * last, the next one is known before the current one is counted, and
 * (with `prefetch`) its loads are issued first, so a warp's memory
 * requests stay in flight while it counts; its words move over when they
 * have arrived, by then long since.  An item asked for is known only once
 * the current one is counted, so the shared items have a loop of their
 * own, and a launch that shares none runs a kernel without it: the code
 * for both in one kernel slowed the launches that share nothing.  RUN:
 * the plane is one run of units (cut_plane); the two ways have code of
 * their own, as sharing it slowed the rows' way. */
template < Layout L, int BPP, bool RUN, bool SHARE, class Counters >
    __device__ void
count_plane (const PlaneArgs & pl, int plane_end, ItemQueue & queue,
    int lane, Counters & counters, bool last_plane)
{
  BodyWords < L, BPP > words, next_words;

  counters.begin_plane (pl);
  const int dealt_end = SHARE ? min (plane_end, queue.shared_from) :
      plane_end;
  if (queue.item < dealt_end) {
    int item = queue.item;
    Segment s = segment_of < L, BPP, RUN > (pl, item);
    load_body < L, BPP, RUN > (pl, s, lane, words);
    for (;;) {
      item += queue.stride;
      const bool more = item < dealt_end;
      Segment next = s;
      if (prefetch < L > () && more) {
        next = segment_of < L, BPP, RUN > (pl, item);
        load_body < L, BPP, RUN > (pl, next, lane, next_words);
      }
      if (SHARE && !more)
        queue.ask_after_dealt (item, lane);
      counters.template before_segment < BPP > ();
      count_segment < L, BPP, RUN > (s, pl, lane, counters, words);
      if (!more)
        break;
      if constexpr (!prefetch < L > ()) {
        s = segment_of < L, BPP, RUN > (pl, item);
        load_body < L, BPP, RUN > (pl, s, lane, words);
        continue;
      }
      s = next;
#pragma unroll
      for (int i = 0; i < units_per_lane < L, BPP > (); i++)
#pragma unroll
        for (int j = 0; j < unit_bytes < BPP > () / 4; j++)
          words[i][j] = next_words[i][j];
    }
    queue.item = item;
    if constexpr (SHARE)
      queue.take_answer ();
  }
  if constexpr (SHARE) {
    while (queue.item < plane_end) {
      Segment s = segment_of < L, BPP, RUN > (pl, queue.item);
      load_body < L, BPP, RUN > (pl, s, lane, words);
      queue.ask (lane);
      counters.template before_segment < BPP > ();
      count_segment < L, BPP, RUN > (s, pl, lane, counters, words);
      queue.take_answer ();
    }
  }
  counters.end_plane (last_plane);
}

/* The kernel for 3-byte pixels has no runs (see cut_plane). */
template < Layout L, int BPP, bool RUNS, bool SHARE, class Counters >
    __device__ __forceinline__ void
count_plane_as (bool run, const PlaneArgs & pl, int plane_end,
    ItemQueue & queue, int lane, Counters & counters, bool last_plane)
{
  if (RUNS && run)
    count_plane < L, BPP, RUNS, SHARE > (pl, plane_end, queue, lane,
        counters, last_plane);
  else
    count_plane < L, BPP, false, SHARE > (pl, plane_end, queue, lane,
        counters, last_plane);
}

/* Every plane of the launch that this warp has items of. */
template < Layout L, bool RGB3, bool SHARE, class Counters >
    __device__ __forceinline__ void
count_planes (const LaunchArgs & args, Workspace * ws, int lane,
    Counters & counters)
{
  ItemQueue queue;
  queue.start (args, ws);
  for (int p = 0; p < args.n_planes; p++) {
    const PlaneArgs & pl = args.plane[p];
    int end = pl.first_item + pl.items;
    if (queue.item >= end)
      continue;
    const bool last_plane = p == args.n_planes - 1;
    const bool run = pl.segments == 0;
    switch (pl.bpp) {
      case 1:
        count_plane_as < L, 1, !RGB3, SHARE > (run, pl, end, queue, lane,
            counters, last_plane);
        break;
      case 2:
        count_plane_as < L, 2, !RGB3, SHARE > (run, pl, end, queue, lane,
            counters, last_plane);
        break;
      case 3:
        if constexpr (RGB3)
          count_plane_as < L, 3, !RGB3, SHARE > (run, pl, end, queue, lane,
            counters, last_plane);
        break;
      default:
        count_plane_as < L, 4, !RGB3, SHARE > (run, pl, end, queue, lane,
            counters, last_plane);
        break;
    }
  }
}

}                               /* namespace */

#endif
