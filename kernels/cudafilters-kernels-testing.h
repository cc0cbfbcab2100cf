/* Hooks of the kernels for their tests only, not for the plugin: the
 * choices dispatch makes by the GPU, forced so that one GPU runs every
 * path, and which way dispatch went.  No GStreamer types, as
 * cudafilters-kernels.h. */
#ifndef CUDAFILTERS_KERNELS_TESTING_H
#define CUDAFILTERS_KERNELS_TESTING_H

#ifdef __cplusplus
extern "C" {
#endif

/* The counters cf_hist_planes() counts in: by default 32-bit counters a
 * block, where a block can have 128 KB of shared memory (160 KB where a
 * byte of the pixels is not counted; sm_80, sm_90), else 8-bit counters a
 * warp.  Tests force the second, so that a GPU with
 * the memory runs that path too.  Process-wide; not for use while another
 * thread launches cf_hist_planes(). */
typedef enum
{
  CF_HIST_LAYOUT_AUTO,
  CF_HIST_LAYOUT_WARP_BYTES
} CfHistLayout;

void cf_hist_set_layout (CfHistLayout layout);

/* The launches of the grey entry points that have also set their frame's
 * neutral planes (CfNeutralPlanes), rather than leaving them to launches
 * of their own, since the program began: tests check which way a frame
 * went.  Process-wide. */
unsigned long long cf_gray_neutral_fused_launches (void);

/* The launches of cf_blur_planes that blurred two planes or more at once
 * (the other calls went plane by plane) since the program began: tests
 * check which way a frame went.  Process-wide. */
unsigned long long cf_blur_planes_one_launches (void);

#ifdef __cplusplus
}
#endif

#endif
