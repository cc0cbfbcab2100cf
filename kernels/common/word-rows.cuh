/* visit_row_words: the words of a row of 16-bit little-endian words that
 * starts at any byte (a region of interest starting mid-row, rows padded
 * by an odd count, the planes of RGB10A2's G and B at bytes 1 and 2 of
 * each pixel: cudafilters-kernels.h, CfWordPlane), read by the row paths
 * of the high-bit histogram and statistics (hist-words.cuh,
 * sum-words.cuh).  Device code only; not part of the C API. */
#ifndef CUDAFILTERS_WORD_ROWS_CUH
#define CUDAFILTERS_WORD_ROWS_CUH

#include <stdint.h>

namespace {

/* Thread @t of the @threads reading a row calls visit (i, word) for each
 * of its words i in [0, @samples), in no particular order.  Words are
 * read two at a time from 32-bit loads on the 4-byte grid: where the row
 * starts off the grid, the two loads that hold a pair's bytes, joined by
 * a funnel shift.  The words before the row's first such pair and after
 * its last are read a byte at a time, so that no byte outside the row's
 * words is read: not those before its start, nor those after its last
 * word (which may lie past the buffer). */
template < typename Visit > __device__ __forceinline__ void
visit_row_words (const uint8_t * row, int samples, int t, int threads,
    Visit && visit)
{
  const int off = (int) ((uintptr_t) row & 3);
  const uint32_t *grid = (const uint32_t *) (row - off);
  /* pair j: words 2j and 2j + 1, bytes off + 4j to off + 4j + 3 of
   * `grid`, held by grid[j] and, off the grid, grid[j + 1].  Paired: from
   * the first pair whose loads start at or after the row (j >= 1 off the
   * grid), to the last whose loads end at or before the row's last byte,
   * off + 2 samples - 1. */
  const int first = off ? 1 : 0;
  int end = first;
  if (off + 2 * samples >= 4)
    end = (off + 2 * samples - 4) / 4 - first + 1;
  /* (and whole pairs only) */
  end = max (min (end, samples / 2), first);
  for (int j = first + t; j < end; j += threads) {
    const uint32_t two = off ?
        __funnelshift_r (grid[j], grid[j + 1], 8 * off) : grid[j];
    visit (2 * j, two & 0xffff);
    visit (2 * j + 1, two >> 16);
  }
  /* the words left: before the first pair and after the last */
  const int head = min (2 * first, samples);
  const int tail = max (samples - 2 * end, 0);
  for (int k = t; k < head + tail; k += threads) {
    const int i = k < head ? k : 2 * end + (k - head);
    visit (i, row[2 * i] | (uint32_t) row[2 * i + 1] << 8);
  }
}

}                               /* namespace */

#endif
