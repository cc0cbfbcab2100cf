/* Per-channel histograms: the atomic pattern.
 *
 * Shared-memory atomics are fast only without conflicts, and a histogram
 * of real video is full of them: on a solid colour every lane of a warp
 * adds to the same counter, and even random bytes put ~3.5 lanes on one
 * bank.  So each lane counts into counters of its own, laid out in its own
 * bank: the counter of value v for lane l is word v * 32 + l of its
 * channel's counters.  Every atomic of a warp then hits 32 different banks
 * whatever the data, and a solid frame costs what a random one does.
 *
 * Two layouts of those counters (docs/notes.md, cudahist):
 * - BlockWords: one 32-bit word [channel][value][lane] for the whole block
 *   (the same lane of every warp shares it), 128 KB, so that a block of 32
 *   warps has them all and hides the loads' latency.  No counter can
 *   overflow, so none is ever emptied before the end.  Used where a block
 *   can have that much shared memory (sm_80 and sm_90).
 * - WarpBytes: every warp has its own words [value][lane], each holding
 *   four 8-bit counters, one per sub-counter s (the byte's position in the
 *   row, modulo 4, or modulo 3 for 3-byte pixels), 32 KB a warp.  8-bit
 *   counters fill up, so a warp empties them into its 32-bit per-channel
 *   sub-histogram (4 KB more) before any could pass 255.  For GPUs with
 *   less shared memory a block.
 * At the end a block adds its counts into the global counts, one atomic
 * per non-zero bin, and the last block to finish sums the counts' copies
 * (Workspace), writes them out and zeroes them for the next launch, so a
 * frame is one launch (cf_hist_planes).  Finding the last block and its
 * copying take ~1.2 us of every launch on an H100 (docs/notes.md), so
 * cf_hist_planes_add leaves the copies in the caller's buffer instead,
 * for the caller to copy out and add up, and zeroes the buffer of a later
 * launch.
 *
 * A warp takes one segment at a time: up to 32 x units_per_lane() units of
 * 16 bytes (48 for 3-byte pixels, so that a unit holds whole pixels), all
 * of a lane's loaded before any is counted.  A plane is cut row by row: a
 * row's bytes up to the first 16-byte boundary (the head) and after the
 * last whole unit (the tail) one per lane, the body in between in
 * segments.  Where rows are short against a segment (WarpBytes: NV12
 * 1080p has 120 units a row, a segment 256) and whole aligned units, the
 * plane is instead one run of units numbered row after row, and a segment
 * spans rows (cut_plane).  A launch whose rows would leave some warps a
 * segment more than most has every plane cut as one run, in items of as
 * even a size as the grid's warps allow (even_run_item_units).  The
 * items (segments, or a run's items) are dealt to the warps in turn; in a
 * launch of 4 or more a warp, the last ones go to the warps that ask for
 * them first (ItemQueue), so that the blocks finish together.
 *
 * CPU reference: hist-reference.c, the same counts. */
#include "cudafilters-kernels.h"
#include "cudafilters-kernels-testing.h"
#include "kernels-common.cuh"

#include <mutex>

namespace {

constexpr int kBins = CF_HIST_BINS;
constexpr int kChannels = CF_HIST_MAX_CHANNELS;

enum class Layout
{ kBlockWords, kWarpBytes };

/* Whether a warp issues its next segment's loads before counting one.
 * With WarpBytes a block has 6 warps on the H100, too few to hide the
 * loads' latency otherwise.  With BlockWords 32 warps hide it: 2 units a
 * lane with the next 2 in flight took 21.1 us at 4K RGBA on the H100,
 * against 19.9 without (docs/notes.md). */
template < Layout L > __host__ __device__ constexpr bool
prefetch ()
{
  return L == Layout::kWarpBytes;
}

/* Body units each lane loads before counting them.  With BlockWords, 4
 * and 8 took 20.8 and 22.9 us at 4K RGBA on the H100, against 19.9 for 2;
 * 3-byte pixels' units are 48 bytes, and 2 of them do not fit the 64
 * registers a thread of a 1024-thread block has. */
template < Layout L, int BPP > __host__ __device__ constexpr int
units_per_lane ()
{
  if constexpr (L == Layout::kBlockWords)
    return BPP == 3 ? 1 : 2;
  else
    return BPP == 3 ? 3 : 8;
}

template < int BPP > __host__ __device__ constexpr int
unit_bytes ()
{
  return BPP == 3 ? 48 : 16;
}

template < Layout L, int BPP > __host__ __device__ constexpr int
segment_units ()
{
  return 32 * units_per_lane < L, BPP > ();
}

struct PlaneArgs
{
  const uint8_t *data;
  size_t pitch;
  int row_bytes;
  int rows;
  int bpp;
  int segments;                 /* per row; 0: the plane is one run of units */
  int first_item;               /* of this plane in the launch's items */
  int items;                    /* of this plane */
  int units;                    /* one run of units: how many */
  int units_per_row;            /* one run of units: per row, at least 2 */
  int run_item_units;           /* one run of units: units an item, at most
                                 * a segment */
  uint64_t row_of_unit;         /* one run of units: ceil (2^64 / units_per_row) */
  int channel_of_sub[4];        /* sub-counter -> channel, -1: not counted */
};

struct LaunchArgs
{
  PlaneArgs plane[CF_HIST_MAX_PLANES];
  int n_planes;
  unsigned channels_used;       /* bit c: some plane counts into channel c */
  int items;                    /* of all planes */
  int shared_from;              /* items from here on are handed out as
                                 * warps ask (ItemQueue); items: none */
  /* false: the blocks add into the caller's zeroed sums and nobody
   * publishes (cf_hist_planes_add) */
  bool publish;
  uint32_t *zero_next;          /* words the launch zeroes, or null */
  int zero_words;
};

constexpr int kCounts = kChannels * kBins;

/* The workspace: counts being summed, and how many blocks are done.
 * Block b adds into copy b % kCopies, so that fewer blocks' atomics queue
 * on each address, and the last block sums the copies.  On the H100 4
 * copies took 0.1-0.8 us off a launch against 1 at every size but 8K
 * (most at 720p and on NV12); 8 and 16 were slower than 4
 * (docs/notes.md). */
constexpr int kCopies = 4;
/* Counters that hand out the shared items (ItemQueue), each on a 128-byte
 * line of its own so that their atomics queue apart. */
constexpr int kQueues = 32;
struct Workspace
{
  uint32_t counts[kCopies][kCounts];
  uint32_t queue_next[kQueues][32];
  uint32_t blocks_done;
};

/* The items a warp counts.  Those below `shared_from` are dealt out in
 * turn: warp g of the grid's W takes items g, g + W, g + 2W, ...  The
 * rest go to whichever warps ask first, so that the SMs whose loads come
 * back sooner count more of them and the blocks finish together (dealt
 * alone, the blocks of a 4K frame finished counting over 3.7 us;
 * docs/notes.md).  Warp w of every block asks queue w, a counter that
 * hands out the shared items shared_from + w + kQueues * n, n counting
 * up, so that each counter serves one warp an SM.  A warp asks for its
 * next item once the current one's loads are out and reads the answer
 * after counting it.  A thread's atomics on one address take effect in
 * its order, so a warp's items only grow and its planes come in order. */
struct ItemQueue
{
  int item;                     /* the warp's current item; >= items: none */
  int stride;                   /* W */
  int shared_from, items;
  int queue;
  uint32_t *counter;            /* the queue's */
  uint32_t ticket;              /* lane 0: the queue's answer */
  bool asked;

  __device__ void start (const LaunchArgs & args, Workspace * ws)
  {
    const int warp = threadIdx.x >> 5;
    const int n_warps = blockDim.x >> 5;
    item = blockIdx.x * n_warps + warp;
    stride = gridDim.x * n_warps;
    shared_from = args.shared_from;
    items = args.items;
    queue = warp % kQueues;
    counter = &ws->queue_next[queue][0];
    ticket = 0;
    asked = false;
    if (item >= shared_from)
      item = items;
  }
  /* A dealt item's loads are out, and the warp's next dealt one would be
   * `next`: if that is past the dealt ones, ask for a shared one. */
  __device__ __forceinline__ void ask_after_dealt (int next, int lane)
  {
    asked = shared_from < items && next >= shared_from;
    if (asked && lane == 0)
      ticket = atomicAdd (counter, 1u);
  }
  /* a shared item's loads are out: ask for the next one */
  __device__ __forceinline__ void ask (int lane)
  {
    asked = true;
    if (lane == 0)
      ticket = atomicAdd (counter, 1u);
  }
  /* the current item is counted: the answer, if the warp asked, becomes
   * the current one */
  __device__ __forceinline__ void take_answer ()
  {
    if (!asked)
      return;
    asked = false;
    const uint32_t n = __shfl_sync (0xffffffffu, ticket, 0);
    const long long shared = shared_from + queue + (long long) kQueues * n;
    item = shared < items ? (int) shared : items;
  }
};

/* The counter word of value v sits at byte offset v * 128 (+ lane * 4) of
 * its lane's counters; byte K of a loaded word w gives that offset in a
 * shift and a mask. */
constexpr uint32_t kValueMask = 0xffu << 7;

template < int K > __device__ __forceinline__ uint32_t
value_offset (uint32_t w)
{
  uint32_t shifted = K == 0 ? w << 7 : w >> (8 * K - 7);
  return shifted & kValueMask;
}

/* ---- BlockWords: 32-bit counters [channel][value][lane] per block ---- */

struct BlockWords
{
  static constexpr int kWarps = 32;
  static constexpr uint32_t kChannelBytes = kBins * 32 * 4;
  /* bytes of no counted channel (the x of RGBx) go to a fifth block of
   * counters that nobody reads */
  static constexpr int kSkipped = kChannels;

  uint8_t *counters;
  uint32_t lane4;
  /* a sub-counter's channel's words + lane4, as a byte offset into
   * `counters` whose bits (channel 15-17, lane 2-6) are apart from the
   * value's (7-14): a byte's counter is then `counters + (value_offset |
   * sub_offset[s])`, one LOP3 and an atomic with the counters' base in a
   * uniform register, where adding the value's offset to a pointer a
   * sub-counter took one more instruction a byte (docs/notes.md,
   * cudahist v11) */
  uint32_t sub_offset[4];
  unsigned channels_used;
  bool ready;                   /* counters zeroed, block past its barrier */

  /* Each warp zeroes its 32nd of the counters of the channels counted,
   * then waits for the others: the first time after its first loads are
   * issued, so that the zeroing hides under them (or at the end, for a
   * warp with nothing to count).  Warps arrive here from different places
   * (each count_plane, or the kernel's end), which __syncthreads (the
   * aligned bar.sync) does not allow: the barrier is the unaligned form,
   * which counts the threads wherever they arrive (compute-sanitizer's
   * synccheck reported the aligned one). */
  __device__ void get_ready ()
  {
    constexpr int kVectors = kChannels * kChannelBytes / 16;
    constexpr int kPerWarp = kVectors / kWarps;
    uint4 *v = reinterpret_cast < uint4 * >(counters);
    const int first = (threadIdx.x >> 5) * kPerWarp + (threadIdx.x & 31);
    for (int i = first; i < first + kPerWarp; i += 32) {
      if (channels_used >> (i / (kChannelBytes / 16)) & 1)
        v[i] = make_uint4 (0, 0, 0, 0);
    }
    asm volatile ("barrier.sync 0;":::"memory");
    ready = true;
  }

  __device__ void begin_plane (const PlaneArgs & pl)
  {
#pragma unroll
    for (int s = 0; s < 4; s++) {
      const int c = pl.channel_of_sub[s] < 0 ? kSkipped : pl.channel_of_sub[s];
      sub_offset[s] = c * kChannelBytes | lane4;
    }
  }
  template < int BPP > __device__ __forceinline__ void before_segment ()
  {
    if (!ready)
      get_ready ();
  }
  /* s is a constant once count_body's loops are unrolled */
  __device__ __forceinline__ void add (int s, uint32_t offset)
  {
    atomicAdd (reinterpret_cast < uint32_t * >(counters +
            (offset | sub_offset[s])), 1u);
  }
  __device__ __forceinline__ void add_any (int s, uint32_t offset)
  {
    const uint32_t sub = s == 0 ? sub_offset[0] : s == 1 ? sub_offset[1] :
        s == 2 ? sub_offset[2] : sub_offset[3];
    atomicAdd (reinterpret_cast < uint32_t * >(counters + (offset | sub)),
        1u);
  }
  __device__ void end_plane (bool last_plane)
  {
  }

  /* shared memory a block needs */
  static size_t smem_bytes (bool skips)
  {
    return (size_t) (kChannels + (skips ? 1 : 0)) * kChannelBytes;
  }
};

/* ---- WarpBytes: 8-bit counters [value][lane] per warp ---------------- */

/* The most any 8-bit counter of a lane grows in one segment: its body units
 * (a quarter, or a third, of their bytes) plus a head and a tail byte or
 * two. */
template < int BPP > __host__ __device__ constexpr int
max_growth_per_segment ()
{
  return units_per_lane < Layout::kWarpBytes, BPP > () * unit_bytes < BPP > ()
      / (BPP == 3 ? 3 : 4) + 3;
}

struct WarpBytes
{
  static constexpr int kMaxWarps = 8;
  /* per warp: 8-bit counters [value][lane], then its 32-bit sub-histogram */
  static constexpr int kCounterWords = kBins * 32;
  static constexpr int kWarpWords = kCounterWords + kChannels * kBins;

  uint32_t *counters;           /* this warp's */
  uint32_t *sub_hist;
  uint32_t lane4;
  int lane;
  int growth;
  bool cleared;
  const int *channel_of_sub;

  __device__ void clear ()
  {
    for (int i = lane; i < kWarpWords / 4; i += 32)
      reinterpret_cast < uint4 * >(counters)[i] = make_uint4 (0, 0, 0, 0);
    __syncwarp ();
    cleared = true;
  }

  /* Empties the warp's 8-bit counters into its sub-histogram.  Lane l
   * takes values l, l + 32, ...: it sums that value's 32 words (four 8-bit
   * counters each, as two pairs of 16-bit sums; 32 x 255 fits) and adds
   * each sub-counter's total to its channel.  The words are read as
   * 16-byte vectors, lane l starting at vector l % 8 of its row, so the
   * eight lanes of a quarter warp touch eight different bank groups.  The
   * counters are quiescent here (a warp flushes only its own), so plain
   * loads do; `zero` clears them for more counting. */
  __device__ void flush (bool zero)
  {
    __syncwarp ();
#pragma unroll 2
    for (int v = lane; v < kBins; v += 32) {
      uint4 *row = reinterpret_cast < uint4 * >(counters + v * 32);
      uint32_t even = 0, odd = 0;
#pragma unroll
      for (int j = 0; j < 8; j++) {
        uint4 q = row[(j + lane) & 7];
        even += (q.x & 0x00ff00ffu) + (q.y & 0x00ff00ffu) +
            (q.z & 0x00ff00ffu) + (q.w & 0x00ff00ffu);
        odd += ((q.x >> 8) & 0x00ff00ffu) + ((q.y >> 8) & 0x00ff00ffu) +
            ((q.z >> 8) & 0x00ff00ffu) + ((q.w >> 8) & 0x00ff00ffu);
      }
      if (zero) {
#pragma unroll
        for (int j = 0; j < 8; j++)
          row[(j + lane) & 7] = make_uint4 (0, 0, 0, 0);
      }
      const uint32_t sums[4] = { even & 0xffffu, odd & 0xffffu, even >> 16,
        odd >> 16
      };
#pragma unroll
      for (int s = 0; s < 4; s++) {
        if (channel_of_sub[s] >= 0 && sums[s])
          sub_hist[channel_of_sub[s] * kBins + v] += sums[s];
      }
    }
    __syncwarp ();
  }

  __device__ void begin_plane (const PlaneArgs & pl)
  {
    channel_of_sub = pl.channel_of_sub;
    growth = 0;
  }
  /* the counters are cleared while the first segments' loads are in
   * flight, and emptied before they could overflow */
  template < int BPP > __device__ __forceinline__ void before_segment ()
  {
    constexpr int GROWTH = max_growth_per_segment < BPP > ();
    if (!cleared)
      clear ();
    if (growth + GROWTH > 255) {
      flush (true);
      growth = 0;
    }
    growth += GROWTH;
  }
  __device__ __forceinline__ void add (int s, uint32_t offset)
  {
    atomicAdd (reinterpret_cast < uint32_t * >(reinterpret_cast < uint8_t *
            >(counters) + (offset | lane4)), 1u << (8 * s));
  }
  __device__ __forceinline__ void add_any (int s, uint32_t offset)
  {
    add (s, offset);
  }
  /* the next plane needs zeros; after the last nothing reads them */
  __device__ void end_plane (bool last_plane)
  {
    flush (!last_plane);
  }
};

/* ---- cutting planes into segments, and counting them ------------------ */

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
 * for both in one kernel made 1080p RGBA, 4K NV12 and 4K RGB 1-2 us
 * slower on the H100 where nothing was shared.  RUN: the plane is one run
 * of units (cut_plane); the two ways have code of their own, as sharing
 * it made the rows' way 6-9% slower on the H100. */
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

/* The last block out publishes the counts and leaves zeros behind. */
__device__ __forceinline__ void
publish_counts (Workspace * __restrict__ ws, uint32_t * __restrict__ out)
{
  if (!cf_block_is_last (&ws->blocks_done))
    return;
  /* a bin's copies loaded together, from L2 (where the atomics are) */
#pragma unroll 2
  for (int b = threadIdx.x; b < kCounts; b += blockDim.x) {
    uint32_t count[kCopies];
#pragma unroll
    for (int c = 0; c < kCopies; c++)
      count[c] = __ldcg (&ws->counts[c][b]);
    uint32_t sum = 0;
#pragma unroll
    for (int c = 0; c < kCopies; c++) {
      sum += count[c];
      __stcg (&ws->counts[c][b], 0u);
    }
    out[b] = sum;
  }
  if (threadIdx.x < kQueues)
    __stcg (&ws->queue_next[threadIdx.x][0], 0u);
  if (threadIdx.x == 0)
    __stcg (&ws->blocks_done, 0u);
}

/* RGB3 (3-byte pixels) needs more registers than the others, so it has a
 * kernel of its own, in either layout.  SHARE: the launch has items that
 * warps ask for (ItemQueue, count_plane); never with RGB3. */
template < bool RGB3, bool SHARE > __global__ void
__launch_bounds__ (32 * BlockWords::kWarps, 1)
hist_block_words_kernel (LaunchArgs args, Workspace * __restrict__ ws,
    uint32_t * __restrict__ out)
{
  extern __shared__ uint4 smem4[];
  uint32_t *smem = reinterpret_cast < uint32_t * >(smem4);

  cf_grid_zero_words (args.zero_next, args.zero_words);
  BlockWords counters;
  counters.counters = reinterpret_cast < uint8_t * >(smem);
  counters.lane4 = 4 * (threadIdx.x & 31);
  counters.channels_used = args.channels_used;
  counters.ready = false;
  count_planes < Layout::kBlockWords, RGB3, SHARE > (args, ws,
      threadIdx.x & 31, counters);
  if (!counters.ready)
    counters.get_ready ();
  __syncthreads ();

  /* bin b = channel * 256 + value sums its 32 lanes' words as 8 vectors
   * of 16 bytes, thread b starting at vector b % 8 so that each quarter
   * of a warp reads 32 banks at once.  Every block's end waits on this:
   * on the H100, 16-byte reads took 0.1-0.3 us off a launch against 32
   * word reads (docs/notes.md). */
  for (int b = threadIdx.x; b < kChannels * kBins; b += blockDim.x) {
    if (!(args.channels_used >> (b / kBins) & 1))
      continue;
    const uint4 *row = smem4 + b * 8;
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) {
      const uint4 q = row[(j + b) & 7];
      sum += q.x + q.y + q.z + q.w;
    }
    if (sum)
      atomicAdd (&ws->counts[blockIdx.x % kCopies][b], sum);
  }
  if (args.publish)
    publish_counts (ws, out);
}

template < bool RGB3 > __global__ void
hist_warp_bytes_kernel (LaunchArgs args, Workspace * __restrict__ ws,
    uint32_t * __restrict__ out)
{
  extern __shared__ uint32_t smem[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int n_warps = blockDim.x >> 5;

  cf_grid_zero_words (args.zero_next, args.zero_words);
  WarpBytes counters;
  counters.counters = smem + warp * WarpBytes::kWarpWords;
  counters.sub_hist = counters.counters + WarpBytes::kCounterWords;
  counters.lane = lane;
  counters.lane4 = 4 * lane;
  counters.cleared = false;
  count_planes < Layout::kWarpBytes, RGB3, false > (args, ws, lane,
      counters);
  /* a warp with nothing to count still adds its (zero) sub-histogram */
  if (!counters.cleared)
    counters.clear ();
  __syncthreads ();

  /* the block's sum of its warps, one atomic per non-zero bin (summing
   * all of a thread's bins before any atomic goes out, which Nsight
   * Compute suggested, was faster at 720p and slower at 4K and 8K) */
  for (int b = threadIdx.x; b < kChannels * kBins; b += blockDim.x) {
    uint32_t sum = 0;
    for (int w = 0; w < n_warps; w++)
      sum += smem[w * WarpBytes::kWarpWords + WarpBytes::kCounterWords + b];
    if (sum)
      atomicAdd (&ws->counts[blockIdx.x % kCopies][b], sum);
  }
  if (args.publish)
    publish_counts (ws, out);
}

/* The kernel a launch takes, its block and its shared memory, per device
 * (cached) and by whether it counts 3-byte pixels and skips bytes. */
typedef void (*HistKernel) (LaunchArgs, Workspace *, uint32_t *);

struct Shape
{
  Layout layout;
  HistKernel kernel;
  HistKernel sharing_kernel;    /* for launches that share items, or null */
  int warps, blocks;
  size_t smem;
  /* the kernels' limit of dynamic shared memory: the most any of their
   * launches asks, whether or not this one skips bytes (a limit lowered
   * for one shape would fail the launches of a shape cached before it) */
  size_t smem_limit;
};

/* Lets the shape's kernels have its shared memory.  Set at every launch,
 * not once per device: with CUDA 12.4's runtime (Debian 13's toolkit) the
 * limit belongs to the kernel in the current context, and each element may
 * have a context of its own (the second element's launches failed with
 * cudaErrorInvalidValue). */
cudaError_t
allow_shared_memory (const Shape & shape)
{
  cudaError_t err = cudaFuncSetAttribute (shape.kernel,
      cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shape.smem_limit);
  if (err == cudaSuccess && shape.sharing_kernel)
    err = cudaFuncSetAttribute (shape.sharing_kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shape.smem_limit);
  return err;
}

CfHistLayout forced_layout = CF_HIST_LAYOUT_AUTO;
/* elements launch from several streaming threads */
std::mutex shape_lock;

template < bool RGB3 > cudaError_t
kernel_shape (bool skips, Shape * shape)
{
  static Shape cached[64][2][2];
  const bool warp_bytes = forced_layout == CF_HIST_LAYOUT_WARP_BYTES;
  int dev = 0, smem = 0, sms = 0;
  cudaError_t err;

  if ((err = cudaGetDevice (&dev)) != cudaSuccess)
    return err;
  std::lock_guard < std::mutex > hold (shape_lock);
  if (dev >= 0 && dev < 64 && cached[dev][skips][warp_bytes].warps) {
    *shape = cached[dev][skips][warp_bytes];
    return allow_shared_memory (*shape);
  }
  if ((err = cudaDeviceGetAttribute (&smem,
              cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess
      || (err = cudaDeviceGetAttribute (&sms,
              cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
    return err;
  /* what static shared memory and the system take per block */
  smem -= 1024 + 16;
  shape->blocks = sms;
  if (!warp_bytes && (size_t) smem >= BlockWords::smem_bytes (skips)) {
    shape->layout = Layout::kBlockWords;
    shape->warps = BlockWords::kWarps;
    shape->smem = BlockWords::smem_bytes (skips);
    shape->kernel = hist_block_words_kernel < RGB3, false >;
    /* <false, true>: the kernel of 3-byte pixels never shares, and no
     * sharing build of it is made */
    shape->sharing_kernel = RGB3 ? nullptr :
        hist_block_words_kernel < RGB3, !RGB3 >;
    shape->smem_limit = (size_t) smem >= BlockWords::smem_bytes (true) ?
        BlockWords::smem_bytes (true) : BlockWords::smem_bytes (false);
  } else {
    shape->layout = Layout::kWarpBytes;
    shape->warps = smem / (int) (WarpBytes::kWarpWords * sizeof (uint32_t));
    if (shape->warps > WarpBytes::kMaxWarps)
      shape->warps = WarpBytes::kMaxWarps;
    if (shape->warps < 1)
      return cudaErrorInvalidConfiguration;
    shape->smem = (size_t) shape->warps * WarpBytes::kWarpWords *
        sizeof (uint32_t);
    shape->kernel = hist_warp_bytes_kernel < RGB3 >;
    shape->sharing_kernel = nullptr;
    shape->smem_limit = shape->smem;
  }
  if ((err = allow_shared_memory (*shape)) != cudaSuccess)
    return err;
  if (dev >= 0 && dev < 64)
    cached[dev][skips][warp_bytes] = *shape;
  return cudaSuccess;
}

/* Whether a plane can be counted as one run of units: every row whole,
 * aligned units of 16 bytes, at least 2 of them (row_of_unit). */
bool
can_be_run (const PlaneArgs & pl)
{
  return pl.row_bytes % 16 == 0 && pl.row_bytes / 16 >= 2
      && ((uintptr_t) pl.data & 15) == 0 && pl.pitch % 16 == 0;
}

/* Cuts a plane into items and returns how many: segments of rows, or, if
 * `runs`, one run of units where every row is whole aligned units and that
 * at least halves the items; or, if run_item_units > 0, one run in items
 * of that many units (the caller has checked can_be_run; never for 3-byte
 * pixels).  A run costs a division per unit for its address, where a
 * row's units are at fixed offsets: on the H100 runs made 4K and 8K RGBA
 * 13% and 10% slower, and NV12 1080p, whose rows are under half a
 * segment, 29% faster (docs/notes.md).  The kernel that counts 3-byte
 * pixels has no runs: their code made it 20% slower. */
template < Layout L, int BPP > long long
cut_plane (PlaneArgs * pl, bool runs, int run_item_units)
{
  constexpr long long UNIT = unit_bytes < BPP > ();
  constexpr long long SEGMENT_UNITS = segment_units < L, BPP > ();
  const long long units_per_row = pl->row_bytes / UNIT;
  const long long units = units_per_row * pl->rows;
  const long long run_items = (units + SEGMENT_UNITS - 1) / SEGMENT_UNITS;
  pl->segments = units_per_row > SEGMENT_UNITS ?
      (int) ((units_per_row + SEGMENT_UNITS - 1) / SEGMENT_UNITS) : 1;
  const long long row_items = (long long) pl->segments * pl->rows;
  pl->units = 0;
  pl->units_per_row = 1;
  pl->row_of_unit = 0;
  pl->run_item_units = (int) SEGMENT_UNITS;
  if (run_item_units > 0 || (runs && can_be_run (*pl)
          && units <= INT32_MAX - SEGMENT_UNITS
          && 2 * run_items <= row_items)) {
    pl->segments = 0;
    pl->units = (int) units;
    pl->units_per_row = (int) units_per_row;
    pl->row_of_unit = UINT64_MAX / (uint64_t) units_per_row + 1;
    if (run_item_units > 0) {
      pl->run_item_units = run_item_units;
      return (units + run_item_units - 1) / run_item_units;
    }
    return run_items;
  }
  return row_items;
}

template < Layout L > long long
cut_plane_as (PlaneArgs * pl, bool runs, int run_item_units = 0)
{
  switch (pl->bpp) {
    case 1:
      return cut_plane < L, 1 > (pl, runs, run_item_units);
    case 2:
      return cut_plane < L, 2 > (pl, runs, run_item_units);
    case 3:
      return cut_plane < L, 3 > (pl, runs, run_item_units);
    default:
      return cut_plane < L, 4 > (pl, runs, run_item_units);
  }
}

/* Units an item of the BlockWords kernel when every plane is cut as one
 * run, in items as even as the grid's warps allow: each warp then counts
 * as many segments as any other, give or take one, where cutting by rows
 * can leave a few warps a whole segment more than the rest (1080p RGBA:
 * 3 segments for some warps, 2 for most).  0 where not every plane can be
 * one run, or where the warp with the most items would not have at least
 * a quarter fewer than with the planes cut as they are (`items_now`):
 * runs cost more a segment than rows (an address a unit), and on the H100
 * they made 8K NV12 6% slower with 12 segments a warp against 13, where
 * 1080p RGBA, 2 against 3, gained 2.5% (docs/notes.md). */
int
even_run_item_units (const PlaneArgs * planes, int n_planes, int warps,
    long long items_now)
{
  constexpr long long SEGMENT_UNITS = segment_units < Layout::kBlockWords,
      4 > ();
  long long units = 0;
  for (int p = 0; p < n_planes; p++) {
    if (planes[p].bpp == 3 || !can_be_run (planes[p]))
      return 0;
    units += (long long) (planes[p].row_bytes / 16) * planes[p].rows;
  }
  if (n_planes == 0 || units > INT32_MAX / 2)
    return 0;
  const long long rounds = (units + warps * SEGMENT_UNITS - 1) /
      (warps * SEGMENT_UNITS);
  /* whole 128-byte lines an item, so that no line is split between warps */
  long long per_item = (units + warps * rounds - 1) / (warps * rounds);
  per_item = (per_item + 7) / 8 * 8;
  long long items = 0;
  for (int p = 0; p < n_planes; p++)
    items += ((long long) (planes[p].row_bytes / 16) * planes[p].rows +
        per_item - 1) / per_item;
  const long long most = (items + warps - 1) / warps;
  const long long most_now = (items_now + warps - 1) / warps;
  return 4 * most <= 3 * most_now ? (int) per_item : 0;
}

/* Where the items that warps ask for (ItemQueue) begin: after half of
 * each warp's whole rounds, and at least 3.  On the H100, with half the
 * rounds dealt, sharing took 0.8 us off 4K RGBA (7 rounds), 2.6 off 8K
 * RGBA and 1.4 off 8K NV12; sharing after the first or second round made
 * 1080p RGBA (2 rounds) 1.4 us slower and 4K NV12 (3 rounds) 1.9 us
 * (docs/notes.md): a warp waits for its answer there, presumably because
 * it queues behind the launch's first loads. */
constexpr long long kLeastDealtRounds = 3;
long long
shared_from (long long items, long long warps)
{
  long long dealt = items / warps / 2;
  if (dealt < kLeastDealtRounds)
    dealt = kLeastDealtRounds;
  return dealt * warps < items ? dealt * warps : items;
}

}                               /* namespace */

extern "C" void
cf_hist_set_layout (CfHistLayout layout)
{
  forced_layout = layout;
}

extern "C" size_t
cf_hist_workspace_bytes (void)
{
  return sizeof (Workspace);
}

extern "C" CfError
cf_hist_workspace_init (void *workspace, CfStream stream)
{
  cf_forget_earlier_errors ();
  return cudaMemsetAsync (workspace, 0, sizeof (Workspace), stream);
}

/* Both entry points: the blocks add into `workspace`'s counts; with
 * `counts` the last block publishes them there and zeroes the workspace,
 * without (cf_hist_planes_add) they stay where they are, and `zero_next`,
 * if any, is zeroed. */
static CfError
launch_hist (const CfSamplePlane * planes, int n_planes, uint32_t * counts,
    void *workspace, void *zero_next, CfStream stream)
{
  LaunchArgs args = { };
  long long items = 0;
  bool rgb3 = false, skips = false;

  /* the buffer zeroed for a later launch may not overlap this one's */
  const uintptr_t ws_at = (uintptr_t) workspace, zero_at = (uintptr_t) zero_next;
  if (n_planes < 0 || n_planes > CF_HIST_MAX_PLANES || !workspace
      || (n_planes > 0 && !planes) || ws_at % 4 || zero_at % 4
      || (zero_next && (zero_at > ws_at ? zero_at - ws_at : ws_at - zero_at)
          < sizeof (Workspace)))
    return cudaErrorInvalidValue;
  args.publish = counts != nullptr;
  args.zero_next = (uint32_t *) zero_next;
  args.zero_words = (int) (sizeof (Workspace) / 4);
  for (int p = 0; p < n_planes; p++) {
    const CfSamplePlane *in = &planes[p];
    if (in->bytes_per_pixel < 1 || in->bytes_per_pixel > 4 || in->width < 0
        || in->height < 0)
      return cudaErrorInvalidValue;
    /* only the planes counted choose the kernel: an empty 3-byte plane
     * beside 4-byte ones once chose the 3-byte kernel, which has no runs,
     * for planes then cut as runs (a division by zero a segment) */
    const bool counted = in->width > 0 && in->height > 0;
    for (int b = 0; b < 4; b++) {
      if (in->channel[b] >= CF_HIST_MAX_CHANNELS)
        return cudaErrorInvalidValue;
      if (counted && b < in->bytes_per_pixel && in->channel[b] < 0)
        skips = true;
    }
    rgb3 |= counted && in->bytes_per_pixel == 3;
  }

  Shape shape;
  cudaError_t err;
  cf_forget_earlier_errors ();
  err = rgb3 ? kernel_shape < true > (skips, &shape) :
      kernel_shape < false > (skips, &shape);
  if (err != cudaSuccess)
    return err;

  for (int p = 0; p < n_planes; p++) {
    const CfSamplePlane *in = &planes[p];
    PlaneArgs *pl = &args.plane[args.n_planes];
    int bpp = in->bytes_per_pixel;
    long long row_bytes = (long long) in->width * bpp;
    /* a row's last bytes are counted a lane each, at int offsets up to
     * row_bytes + 31 */
    if (row_bytes > INT32_MAX - 64
        || (in->height > 1 && in->pitch < (size_t) row_bytes))
      return cudaErrorInvalidValue;
    if (row_bytes == 0 || in->height == 0)
      continue;
    if (!in->data)
      return cudaErrorInvalidValue;
    pl->data = (const uint8_t *) in->data;
    pl->pitch = in->pitch;
    pl->row_bytes = (int) row_bytes;
    pl->rows = in->height;
    pl->bpp = bpp;
    long long plane_items = shape.layout == Layout::kBlockWords ?
        cut_plane_as < Layout::kBlockWords > (pl, !rgb3) :
        cut_plane_as < Layout::kWarpBytes > (pl, !rgb3);
    pl->first_item = (int) items;
    /* sub-counter s counts the bytes at row index i with i % 4 == s (i % 3
     * for 3-byte pixels): their channel is that of byte s % bpp */
    for (int s = 0; s < 4; s++) {
      pl->channel_of_sub[s] = bpp == 3 ? (s < 3 ? in->channel[s] : -1) :
          in->channel[s % bpp];
      if (pl->channel_of_sub[s] >= 0)
        args.channels_used |= 1u << pl->channel_of_sub[s];
    }
    items += plane_items;
    if (items > INT32_MAX / 2)
      return cudaErrorInvalidValue;
    pl->items = (int) plane_items;
    args.n_planes++;
  }

  if (shape.layout == Layout::kBlockWords) {
    const int per_item = even_run_item_units (args.plane, args.n_planes,
        shape.blocks * shape.warps, items);
    if (per_item > 0) {
      items = 0;
      for (int p = 0; p < args.n_planes; p++) {
        PlaneArgs *pl = &args.plane[p];
        pl->first_item = (int) items;
        pl->items = (int) cut_plane_as < Layout::kBlockWords > (pl, true,
            per_item);
        items += pl->items;
      }
    }
  }

  /* one block per SM at most; an empty region still needs one block to
   * publish its zeros */
  long long blocks = (items + shape.warps - 1) / shape.warps;
  if (blocks > shape.blocks)
    blocks = shape.blocks;
  if (blocks < 1)
    blocks = 1;
  args.items = (int) items;
  args.shared_from = (int) items;
  if (shape.sharing_kernel)
    args.shared_from = (int) shared_from (items, blocks * shape.warps);
  const HistKernel kernel = args.shared_from < args.items ?
      shape.sharing_kernel : shape.kernel;
  kernel <<< (int) blocks, 32 * shape.warps, shape.smem, stream >>>
      (args, (Workspace *) workspace, counts);
  return cudaGetLastError ();
}

extern "C" CfError
cf_hist_planes (const CfSamplePlane * planes, int n_planes, uint32_t * counts,
    void *workspace, CfStream stream)
{
  if (!counts)
    return cudaErrorInvalidValue;
  return launch_hist (planes, n_planes, counts, workspace, nullptr, stream);
}

extern "C" size_t
cf_hist_sums_bytes (void)
{
  return sizeof (Workspace);
}

extern "C" CfError
cf_hist_planes_add (const CfSamplePlane * planes, int n_planes, void *sums,
    void *zero_next, CfStream stream)
{
  return launch_hist (planes, n_planes, nullptr, sums, zero_next, stream);
}

extern "C" void
cf_hist_sums_counts (const void *sums, uint32_t * counts)
{
  const Workspace *ws = (const Workspace *) sums;
  for (int b = 0; b < kCounts; b++) {
    uint32_t sum = 0;
    for (int c = 0; c < kCopies; c++)
      sum += ws->counts[c][b];
    counts[b] = sum;
  }
}
