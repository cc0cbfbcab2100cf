/* gst-cudafilters: the kernels' C API.
 *
 * Plain C, no GStreamer and no CUDA headers: callers pass device pointers,
 * sizes in pixels, row pitches in bytes and the stream to launch on.  Every
 * GPU entry point only enqueues work on that stream and returns 0 or a CUDA
 * runtime error code (cudaError_t); cf_error_name() turns it into text.
 *
 * Each GPU entry point has a CPU reference, cf_ref_*(), on host pointers with
 * the same arguments (less the stream) and the identical result, bit for bit.
 */
#ifndef CUDAFILTERS_KERNELS_H
#define CUDAFILTERS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The same type as the driver's CUstream and the runtime's cudaStream_t. */
typedef struct CUstream_st *CfStream;

/* 0 on success, else a cudaError_t value. */
typedef int CfError;

const char *cf_error_name (CfError err);

/* Number of CUDA devices the runtime sees; 0 when there is no driver or GPU. */
int cf_device_count (void);

/* ---- grey (map pattern) ----------------------------------------------- */

typedef enum
{
  CF_GRAY_MATRIX_BT601 = 0,
  CF_GRAY_MATRIX_BT709 = 1,
  CF_GRAY_MATRIX_BT2020 = 2,
} CfGrayMatrix;

/* Fixed-point luma weights in units of 1/65536: kr and kb are the matrix's
 * Kr and Kb rounded to nearest, kg is what is left of 65536, so white maps
 * to 255 exactly.
 *   grey = (kr * R + kg * G + kb * B + 32768) >> 16 */
typedef struct
{
  uint32_t kr, kg, kb;
} CfGrayWeights;

CfGrayWeights cf_gray_weights (CfGrayMatrix matrix);

/* Packed RGB layouts: bytes per pixel (3 or 4) and the byte offsets of R, G
 * and B within a pixel.  The fourth byte (alpha or padding) is ignored. */
typedef struct
{
  int bytes_per_pixel;
  int r, g, b;
} CfPackedLayout;

/* dst (one byte per pixel) = grey of src (packed RGB).  Both planes are
 * width x height pixels with their own pitch in bytes. */
CfError cf_gray_from_packed (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height,
    CfPackedLayout layout, CfGrayMatrix matrix, CfStream stream);

void cf_ref_gray_from_packed (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height,
    CfPackedLayout layout, CfGrayMatrix matrix);

/* ---- plane helpers ---------------------------------------------------- */

/* Copies row_bytes x rows between two pitched device planes.  The CPU
 * reference is a row-by-row memcpy. */
CfError cf_copy_plane (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, size_t row_bytes, int rows, CfStream stream);

/* Sets row_bytes x rows of a pitched device plane to value. */
CfError cf_fill_plane (void *dst, size_t pitch, size_t row_bytes, int rows,
    uint8_t value, CfStream stream);

#ifdef __cplusplus
}
#endif
#endif /* CUDAFILTERS_KERNELS_H */
