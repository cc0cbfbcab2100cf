/* gst-cudafilters: the kernels' C API, the Gaussian blur (the stencil
 * pattern; docs/design/blur.md, docs/cudablur.md).
 *
 * Part of cudafilters-kernels.h, which includes it where its section
 * was (include that one): the kernels' weights and border rules, the
 * blur of a plane and of a frame's planes at 8 bits and at 10 to 16
 * bits, and their CPU references. */
#ifndef CUDAFILTERS_KERNELS_BLUR_H
#define CUDAFILTERS_KERNELS_BLUR_H

#ifndef CUDAFILTERS_KERNELS_H
#error "include cudafilters-kernels.h"
#endif

/* The largest radius (taps on each side of the centre) a blur takes. */
#define CF_BLUR_MAX_RADIUS 150

/* Fixed-point arithmetic of the blur, identical on GPU and CPU (every
 * intermediate is an integer below 2^24, so float arithmetic, on the CUDA
 * cores or the tensor cores, is exact):
 *   h = sum_i kx[|i|] * P(x + i, y)          kx sums to 2^CF_BLUR_H_BITS
 *   t = rnd (h / 2^(H_BITS - MID_BITS))      0 .. 255 * 2^MID_BITS
 *   v = sum_j ky[|j|] * t(x, y + j)          ky sums to 2^CF_BLUR_V_BITS
 *   out = rnd (v / 2^(V_BITS + MID_BITS))    0 .. 255
 * rnd: round to nearest, halves up (add half, then shift).  P is the
 * frame extended by the border rule. */
#define CF_BLUR_H_BITS 15
#define CF_BLUR_MID_BITS 2
#define CF_BLUR_V_BITS 13

typedef enum
{
  CF_BORDER_REPLICATE = 0,      /* aaa|abcd|ddd */
  CF_BORDER_REFLECT_101 = 1,    /* dcb|abcd|cba */
  CF_BORDER_CONSTANT = 2,       /* vvv|abcd|vvv */
} CfBorder;

/* Half of a symmetric kernel: w[0] is the centre, w[i] the weight of each
 * of the two taps at distance i; w[0] + 2 * (w[1] + ... + w[radius]) is
 * 2^bits exactly. */
typedef struct
{
  int radius;
  uint32_t w[CF_BLUR_MAX_RADIUS + 1];
} CfBlurKernel;

/* The radius OpenCV's GaussianBlur derives for 8-bit images:
 * (round (6 sigma + 1) | 1) / 2, at least 1 for sigma > 0, 0 for 0. */
int cf_blur_radius_for_sigma (double sigma);

/* Samples exp(-i^2 / 2 sigma^2) for |i| <= radius, normalised to 2^bits and
 * rounded so the sum is exact (largest remainders, symmetric).  For bits up
 * to CF_BLUR_V_BITS (the vertical filter's), every weight is also exact in
 * IEEE half precision (at most 11 significant bits: weights of 2048 and
 * more are rounded to their half's spacing, and the pairs below 2048 make
 * the sum exact again), as the tensor cores take them.  sigma 0 or radius
 * 0 give the identity.  Returns 0, or -1 for a bad argument. */
int cf_blur_kernel_make (double sigma, int radius, int bits, CfBlurKernel * k);

/* Device memory cf_blur_plane needs for the intermediate of a plane
 * (16-bit values), and the row pitch it uses in it. */
size_t cf_blur_scratch_bytes (int width, int height, int channels);
size_t cf_blur_scratch_pitch (int width, int channels);

/* Blurs a plane of width x height pixels of `channels` interleaved 8-bit
 * channels (1 to 4).  kx must have CF_BLUR_H_BITS, ky CF_BLUR_V_BITS (and
 * weights exact in half precision for the tensor-core pass; others take
 * the CUDA cores' two passes);
 * border_value gives each channel's value for CF_BORDER_CONSTANT.  scratch
 * is device memory of cf_blur_scratch_bytes() (the two-pass paths use it:
 * on the tensor cores, sm_80 on, for radii over 32, and on the CUDA cores;
 * the one-pass tensor-core path, radii up to 32, does not);
 * src and dst must not overlap (and neither may overlap scratch). */
CfError cf_blur_plane (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int channels,
    const CfBlurKernel * kx, const CfBlurKernel * ky, CfBorder border,
    const uint8_t border_value[4], void *scratch, CfStream stream);

void cf_ref_blur_plane (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int channels,
    const CfBlurKernel * kx, const CfBlurKernel * ky, CfBorder border,
    const uint8_t border_value[4]);

/* The planes of a frame cf_blur_planes and cf_blur_planes_words take */
#define CF_BLUR_MAX_PLANES 3

/* A plane of cf_blur_planes (8 bits: as cf_blur_plane's arguments, each
 * border value at most 255) and of cf_blur_planes_words (as
 * cf_blur_plane_words' arguments) */
typedef struct
{
  const void *src;
  size_t src_pitch;
  void *dst;
  size_t dst_pitch;
  int width, height, channels;
  const CfBlurKernel *kx, *ky;
  uint16_t border_value[4];
} CfBlurPlane;

/* Blurs a frame's planes of 8-bit channels (1 to CF_BLUR_MAX_PLANES),
 * each as cf_blur_plane would, to the same bytes; in one launch where one
 * kernel takes them all (on sm_90 on: both radii up to 8 with vertical
 * weights exact in half precision, as cf_blur_kernel_make's are, the
 * replicate and reflect-101 rules, 1 or 2 channels, the first plane of 1
 * where there are more, the others alike, each at least 32 pixels wide,
 * its rows whole 16-byte units, 16-byte aligned in and out and at most
 * 64 MiB apart: NV12's, I420's and Y444's planes where their widths and
 * rows allow), otherwise plane by plane.  No plane's dst may overlap
 * another plane's src or dst (they are read and written at once; refused:
 * cf_blur_planes_overlap ()).  scratch: cf_blur_scratch_bytes () of the
 * largest plane. */
CfError cf_blur_planes (const CfBlurPlane * planes, int n_planes,
    CfBorder border, void *scratch, CfStream stream);

/* Whether cf_blur_planes () (sample_bytes 1) or cf_blur_planes_words ()
 * (2) refuses @planes as overlapping: a plane's dst, from its first row's
 * start to its last row's end, meets another plane's src or dst so taken.
 * Planes whose rows interleave within those ranges without sharing a byte
 * (a layout a video meta may give) are refused too, and are blurred right
 * plane by plane.  0 for planes that are not 1 to CF_BLUR_MAX_PLANES of
 * at least one pixel. */
int cf_blur_planes_overlap (const CfBlurPlane * planes, int n_planes,
    int sample_bytes);

/* High bit depth (#48, docs/cudablur.md "High bit depth"): planes of
 * 16-bit little-endian words, each holding a sample v of `depth` bits (9
 * to 16) at bit `shift`.  In IEEE single precision, each step rounded to
 * nearest (ties to even), in this order on the GPU and the CPU alike:
 *   S_r (p, w) = a_0, where a_(r+1) = 0 and, for i = r down to 1,
 *                a_i = fma (w[i], p(-i) + p(i), a_(i+1)),
 *                a_0 = fma (w[0], p(0), a_1)
 *   t   = S_rx (P(x + ., y), wx)      P: the frame, the border rule applied
 *   v   = S_ry (t(x, y + .), wy)      t of rows past the frame likewise
 *   out = v rounded to an integer, ties to even (at most 2^depth - 1)
 * written back as out << shift (the word's other bits 0).  wx and wy are
 * cf_blur_word_weights () of kernels made by cf_blur_kernel_make (sigma,
 * radius, CF_BLUR_WORD_BITS, &k).  The outermost pairs come first, so the
 * partial sums stay small while most taps are added: over any input the
 * roundings move v less than 0.27 from its exact value at every radius
 * (docs/design/high-bit-depth.md), and out stays within 1 of a true
 * Gaussian. */
#define CF_BLUR_WORD_BITS 28

/* Kernel weight i / 2^CF_BLUR_WORD_BITS as the nearest float, for i up to
 * k->radius, and 0 beyond; cf_blur_word_weights: all of them, up to
 * CF_BLUR_MAX_RADIUS */
float cf_blur_word_weight (const CfBlurKernel * k, int i);
void cf_blur_word_weights (const CfBlurKernel * k,
    float w[CF_BLUR_MAX_RADIUS + 1]);

/* S_r (p, w) above, p(i) being p[i * step] */
float cf_blur_word_taps (const float *w, int r, const float *p, long step);

/* Device memory cf_blur_plane_words needs for its intermediate (32-bit
 * values) */
size_t cf_blur_word_scratch_bytes (int width, int height, int channels);

/* Blurs a plane of width x height pixels of `channels` interleaved words
 * (1 to 4; P010's chroma: 2).  kx and ky must have CF_BLUR_WORD_BITS;
 * border_value gives each channel's value for CF_BORDER_CONSTANT, in the
 * sample's units (NULL: 0; bits above the depth are ignored).  src, dst
 * and their pitches are 2-byte aligned, scratch (device memory of
 * cf_blur_word_scratch_bytes ()) 4-byte aligned; src, dst and scratch do
 * not overlap. */
CfError cf_blur_plane_words (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int channels,
    int depth, int shift, const CfBlurKernel * kx, const CfBlurKernel * ky,
    CfBorder border, const uint16_t border_value[4], void *scratch,
    CfStream stream);

/* Blurs a frame's planes (1 to CF_BLUR_MAX_PLANES), each as
 * cf_blur_plane_words would, to the same words; in one launch where it
 * can: the first plane of one channel and the others alike, at radii (the
 * larger of x and y) up to 4 and 4, 8 and 4, 12 and 8 or 16 and 8 (sigma
 * and sigma / 2), where the GPU's blocks have the shared memory;
 * otherwise plane by plane.  No plane's dst may overlap another plane's
 * src or dst (they are read and written at once; refused).  scratch:
 * cf_blur_word_scratch_bytes () of the largest plane.  Widths times
 * channels and heights up to 2^30, 2^36 samples a plane. */
CfError cf_blur_planes_words (const CfBlurPlane * planes, int n_planes,
    int depth, int shift, CfBorder border, void *scratch, CfStream stream);

void cf_ref_blur_plane_words (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int channels,
    int depth, int shift, const CfBlurKernel * kx, const CfBlurKernel * ky,
    CfBorder border, const uint16_t border_value[4]);

/* Blurs a frame of packed 10-bit RGB (RGB10A2_LE or BGR10A2_LE alike:
 * 32-bit little-endian pixels of samples at bits 0-9, 10-19 and 20-29,
 * and a 2-bit alpha at 30-31), each of the four as a channel of words at
 * depth 10 would be (the arithmetic above; the alpha's samples 0 to 3
 * stay at most 3): in one pass where both radii are at most 8
 * (cf_blur_rgb10a2_one_pass (); scratch may then be NULL), otherwise in
 * two passes through scratch (cf_blur_word_scratch_bytes (width, height,
 * 4)).  The constant border is 0 in all four.  src, dst and their pitches
 * are 4-byte aligned and do not overlap scratch or each other. */
int cf_blur_rgb10a2_one_pass (const CfBlurKernel * kx,
    const CfBlurKernel * ky);
CfError cf_blur_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const CfBlurKernel * kx,
    const CfBlurKernel * ky, CfBorder border, void *scratch,
    CfStream stream);
void cf_ref_blur_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const CfBlurKernel * kx,
    const CfBlurKernel * ky, CfBorder border);

/* Index of the frame's row or column that position i (any integer) takes
 * under the border rule, for a frame of n; -1 for the constant value. */
int cf_border_index (int i, int n, CfBorder border);

#endif /* CUDAFILTERS_KERNELS_BLUR_H */
