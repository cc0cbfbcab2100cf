/* The origin articles' kernels (/work/shared/seeds, see its README), written
 * again small and plain so that kernel-bench can time each step of their
 * ladders on this GPU, beside ours and on the same frames.  Baselines for
 * timing only: each is checked against a CPU computation by the bench, not
 * by tests.
 *
 * Every entry point only launches on the default stream (as the bench's
 * events are recorded there) and returns 0 or the launch's cudaError_t, as
 * the kernels of cudafilters-kernels.h do. */
#ifndef CUDAFILTERS_BENCH_SEEDS_H
#define CUDAFILTERS_BENCH_SEEDS_H

#include <stddef.h>
#include <stdint.h>

/* ---- seeds/000: summing an image, step by step ----------------------- */

/* The article sums 512x512 floats; here a frame's bytes, read as 32-bit
 * words so that each thread still loads one 4-byte element per step, the
 * four bytes added to a 64-bit total so nothing overflows.  Each adds all
 * the bytes of words[0 .. n) to *total: zero it first for a result. */

/* Step 1 ("the dumbest way"): one thread walks the whole frame. */
int seed_sum_one_thread (const uint32_t * words, size_t n,
    unsigned long long *total);
/* Step 2: one block of 256 threads, strided, one atomic per thread. */
int seed_sum_one_block_atomics (const uint32_t * words, size_t n,
    unsigned long long *total);
/* Step 3: 16 blocks x 256 threads, grid-stride, one atomic per thread. */
int seed_sum_many_blocks_atomics (const uint32_t * words, size_t n,
    unsigned long long *total);
/* Step 4 (the article's best, sumOfCuda_v2): 16 blocks x 256 threads,
 * grid-stride, a shared-memory tree per block, one atomic per block. */
int seed_sum_block_tree (const uint32_t * words, size_t n,
    unsigned long long *total);

/* ---- seeds/002: histogram with atomics ------------------------------- */

/* The article counts 100 MiB of bytes into one 256-bin histogram; here the
 * bytes of a packed frame of `channels` bytes per pixel, byte i counted in
 * the histogram of channel i % channels: counts[c * 256 + v], the layout
 * of cf_hist_planes().  The frame must be contiguous (no row padding).
 * Grid: twice the SM count, grid-stride, 256 threads per block.  Each adds
 * to counts: zero them first for a result.  channels: 1 or 4 (others
 * launch nothing). */

/* Step 1: one global atomicAdd per byte. */
int seed_hist_global_atomics (const uint8_t * bytes, size_t n, int channels,
    uint32_t * counts);
/* Step 2: per-block histograms by shared-memory atomics, merged with one
 * global atomicAdd per bin and block. */
int seed_hist_shared_atomics (const uint8_t * bytes, size_t n, int channels,
    uint32_t * counts);

/* ---- seeds/001: Gaussian blur as a direct 2D stencil ----------------- */

/* One thread per output pixel of an RGBA frame, the (2r+1)^2 weights
 * (row-major, float) staged in shared memory, every tap read from global
 * memory, clamp-to-edge borders, float arithmetic rounded to nearest.  Its
 * rounding is not cudablur's: the bench checks it against a CPU float
 * version of itself within 1.  radius <= 54: the weights must fit in
 * 48 KB of shared memory. */
int seed_blur_direct_rgba (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const float *weights,
    int radius);

/* ---- seeds/003: matrix-vector product, as frame profiles ------------- */

/* A frame's row and column sums are the frame times a ones-vector, and its
 * transpose times one: the article's kernel shapes, on a GRAY8 (or luma)
 * plane of width x height bytes, each sum written (not added) as a 32-bit
 * word.  The ones-vector needs no loads, so the article's steps that move
 * the vector into constant and then shared memory have nothing to do
 * here. */

/* mxvNaive: one thread per row walks its row; the 32 lanes of a warp read
 * 32 rows, a pitch apart: no coalescing. */
int seed_row_sums_thread_per_row (const uint8_t * plane, size_t pitch,
    int width, int height, uint32_t * row_sums);
/* mxvNaiveTranspose: one thread per column walks down it; the lanes of a
 * warp read 32 neighbouring bytes of a row: coalesced. */
int seed_column_sums_thread_per_column (const uint8_t * plane, size_t pitch,
    int width, int height, uint32_t * column_sums);
/* mxvBlock: one block of 256 threads per row, strided along it, a
 * shared-memory tree. */
int seed_row_sums_block_per_row (const uint8_t * plane, size_t pitch,
    int width, int height, uint32_t * row_sums);
/* The article's last step: one warp per row, strided along it, a reduction
 * by warp shuffles. */
int seed_row_sums_warp_per_row (const uint8_t * plane, size_t pitch,
    int width, int height, uint32_t * row_sums);

#endif /* CUDAFILTERS_BENCH_SEEDS_H */
